import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './main.js';
import type { CommandIO } from './io.js';

const io = {
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  env: {},
  cwd: '/',
} as unknown as CommandIO;
const names = (argv?: string[]) =>
  buildProgram(io, () => {}, argv)
    .commands.map((c) => c.name())
    .filter((n) => n !== 'help');

describe('buildProgram', () => {
  it('defines every command when the run names none of them, so help and suggestions list them all', () => {
    const all = names();
    expect(all.length).toBeGreaterThan(10);
    expect(names(['node', 'tenantform', '--help'])).toEqual(all);
    expect(names(['node', 'tenantform', 'aply'])).toEqual(all);
    expect(names(['node', 'tenantform', 'help', 'apply'])).toEqual(all);
  });

  it('defines only the command a run names (start-up), for every command', () => {
    for (const name of names()) expect(names(['node', 'tenantform', name, '--x'])).toEqual([name]);
  });

  it('gives apply and destroy the same run options, defaults shown as numbers', () => {
    for (const name of ['apply', 'destroy']) {
      const help = buildProgram(io, () => {}, ['node', 'tenantform', name]).commands[0]!.helpInformation();
      expect(help).toContain('--auto-approve');
      expect(help).toMatch(/--parallelism <N> +concurrent operations \(default: 10\)/);
      expect(help).toMatch(
        /--batch-size <N> +resources per request[\s\S]*?carries several[\s\S]*?\(default:\s+100\)/,
      );
      expect(help).not.toContain('--permission-batch-size');
    }
  });
});
