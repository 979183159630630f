import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../../test/helpers/cli.js';

const CONFIG = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:mobile
    configuration: { action: block, limit: 500 }
`;

const T0 = Date.parse('2026-11-20T08:00:00Z');

function burst(client: string, second: number, n: number, extra: Record<string, unknown> = {}): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      log_id: `${client}-${second}-${i}`,
      type: 'seccft',
      client_id: client,
      date: new Date(T0 + second * 1000 + (i % 1000)).toISOString(),
      ...extra,
    }),
  );
}

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'p.yaml'), CONFIG);
  const lines = [
    ...burst('mobile', 0, 912, { client_name: 'Mobile app' }),
    ...burst('mobile', 1, 600),
    ...burst('web', 30, 40),
    JSON.stringify({ type: 'sapi', date: '2026-11-20T08:00:00Z' }),
  ];
  writeFileSync(join(dir, 'logs.jsonl'), lines.join('\n') + '\n');
});
afterEach(() => cleanup());

const simulate = (...args: string[]) => runCli(['simulate', 'config', ...args], { cwd: dir });

describe('tenantform simulate', () => {
  it('says per policy and application what the policy would have done, and the limit the evidence suggests', async () => {
    const run = await simulate('--logs', 'logs.jsonl');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'Simulated 1,552 requests of 2 applications from 2026-11-20 08:00Z to 2026-11-20 08:00:30Z.',
        'Read 1,553 events from logs.jsonl: 1,552 Authentication API requests, 1 of other types, 0 api_limit.',
        'Counts are a lower bound: logs record outcomes, not every request (docs/simulate.md).',
        '',
        'Policy default (config/p.yaml:2:5)',
        '  action:   log above 100/s, never blocks, each application on its own counter',
        '  requests: 40 of 1 application; peak 40/s at 2026-11-20 08:00:30Z, peak minute 40/min at 2026-11-20 08:00Z',
        '  effect:   never over 100/s',
        "  suggest:  80–120/s (the docs' 2–3 × observed peak of 40/s)",
        '  applications:',
        '    web',
        '      40 requests, peak 40/s at 2026-11-20 08:00:30Z; never over 100/s',
        '      █',
        '',
        'Policy client_id:mobile (config/p.yaml:6:5)',
        '  action:   block above 500/s, on its own counter',
        '  requests: 1,512 of 1 application; peak 912/s at 2026-11-20 08:00:00Z, peak minute 1,512/min at 2026-11-20 08:00Z',
        '  effect:   would have turned away 512 requests in 2 seconds',
        "  suggest:  1,824–2,736/s (the docs' 2–3 × observed peak of 912/s)",
        '  applications:',
        '    Mobile app (mobile)',
        '      1,512 requests, peak 912/s at 2026-11-20 08:00:00Z; would have turned away 512 requests in 2 seconds',
        '      █',
        '',
      ].join('\n'),
    );
  });

  it('prints JSON for machines, and Markdown with a chart of each application a policy would have limited', async () => {
    const json = await simulate('--logs', 'logs.jsonl', '--format', 'json');
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.policies[1]).toMatchObject({
      selector: 'client_id:mobile',
      requests: 1512,
      peak_second: { requests: 912, at: '2026-11-20T08:00:00.000Z' },
      seconds_over: 2,
      turned_away: 512,
      suggested_limit: { low: 1824, high: 2736 },
      applications: [{ client_id: 'mobile', name: 'Mobile app', level: 'client', turned_away: 512 }],
    });
    const md = await simulate('--logs', 'logs.jsonl', '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('| Mobile app | `mobile` | 1,512 | 912/s | 2 | 512 | – |');
    expect(md.stdout.match(/```mermaid\nxychart-beta/g)).toHaveLength(1);
    expect(md.stdout).toContain('    bar [1512]\n    line [30000]\n');
  });

  it('reads gzip and a directory of files alike', async () => {
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'logs', 'a.jsonl.gz'), gzipSync(burst('mobile', 0, 912).join('\n')));
    writeFileSync(
      join(dir, 'logs', 'b.json'),
      JSON.stringify(burst('mobile', 1, 600).map((l) => JSON.parse(l))),
    );
    const run = await simulate('--logs', 'logs', '--format', 'json');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout).policies[1]).toMatchObject({ requests: 1512, turned_away: 512 });
  });

  it('stops at input that is not log events, naming the file and line, and prints no report', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), `${burst('web', 0, 1)[0]}\nnot json\n`);
    const run = await simulate('--logs', 'bad.jsonl');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--logs bad.jsonl:2: not JSON: not json');
  });

  it('leaves out events before --since, and refuses a --since that is neither a duration nor a date', async () => {
    const run = await simulate('--logs', 'logs.jsonl', '--since', '2026-11-20T08:00:10Z', '--format', 'json');
    expect(JSON.parse(run.stdout).read).toMatchObject({ requests: 40, skipped: { before_since: 1512 } });
    const bad = await simulate('--logs', 'logs.jsonl', '--since', 'last week');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--since must be a duration back from now (30m, 24h, 7d) or a date');
  });

  it('escapes control characters of names read from logs', async () => {
    writeFileSync(
      join(dir, 'evil.jsonl'),
      burst('web', 0, 1, { client_name: 'Web\u001b[31m app' }).join('\n'),
    );
    const run = await simulate('--logs', 'evil.jsonl');
    expect(run.stdout).toContain('Web\\u001b[31m app (web)');
    expect(run.stdout).not.toContain('\u001b');
  });

  it('reports an empty window when no event is a request', async () => {
    writeFileSync(join(dir, 'none.jsonl'), JSON.stringify({ type: 'sapi', date: '2026-11-20T08:00:00Z' }));
    const run = await simulate('--logs', 'none.jsonl');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Simulated 0 requests of 0 applications.');
    expect(run.stdout).toContain('  no requests of the applications it governs in the window');
  });
});
