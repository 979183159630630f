import { describe, expect, it } from 'vitest';
import { isFleetRun } from './fleet-flags.js';
import { prefixedStream } from './fleet-streams.js';
import { printPlans, type EnvRun } from './fleet-output.js';

describe('isFleetRun', () => {
  it.each([
    [{ env: ['a'] }, false],
    [{ env: 'a' }, false],
    [{ env: ['a', 'a'] }, false],
    [{ env: ['a', 'b'] }, true],
    [{ allEnvs: true }, true],
  ])('%j → %s', (flags, expected) => expect(isFleetRun(flags)).toBe(expected));
});

describe('prefixedStream', () => {
  it('prefixes whole lines, holding a partial line until it ends', () => {
    let out = '';
    const s = prefixedStream('[dev]', { write: (c: string) => (out += c) });
    s.write('one\ntw');
    expect(out).toBe('[dev] one\n');
    s.write('o\n\nthree');
    s.end();
    expect(out).toBe('[dev] one\n[dev] two\n[dev]\n[dev] three\n');
  });
});

describe('printPlans', () => {
  const run = (name: string, output: string, status: EnvRun['status'] = 'changes'): EnvRun => ({
    name,
    status,
    figures: { changes: 1 },
    target: 'https://t/api/v2',
    ms: 1,
    output,
    errors: status === 'failed' ? 'Error: boom\n' : '',
  });
  const print = (runs: EnvRun[]) => {
    let out = '';
    printPlans(runs, 'markdown', {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: () => 0 },
      env: {},
      cwd: '.',
    });
    return out;
  };

  it('keeps one Markdown comment within GitHub’s limit, cutting each section short and saying so', () => {
    const line = '| `+`&nbsp;create | rate&nbsp;limit&nbsp;policy | `x` | not in state |\n';
    const big = line.repeat(Math.ceil(40_000 / line.length));
    const out = print([run('a', big), run('b', big), run('c', big)]);
    expect(out.length).toBeLessThan(65_536);
    expect(out.match(/cut short to fit one comment/g)).toHaveLength(3);
    expect(out).toContain('## Environment `c`');
  });

  it('leaves small plans whole and shows a failed environment’s error', () => {
    const out = print([run('a', 'plan a\n'), run('b', '', 'failed')]);
    expect(out).toContain('plan a\n');
    expect(out).not.toContain('cut short');
    expect(out).toMatch(/\| `b` \| https:\/\/t\/api\/v2 \| failed \|/);
    expect(out).toContain('**Failed:**\n\n```\nError: boom\n```');
  });
});
