/**
 * plan --simulate: each changed policy's review says what it would have
 * done to the traffic of the logs read, the enforce-without-log warning is
 * answered when the logs show the new limit at least twice their peak, and
 * the plan saved with --out holds none of it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchesSchema } from '../src/schemas/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const policies = (mobileLimit: number) => `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 20 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:mobile
    configuration: { action: block, limit: ${mobileLimit} }
`;

const T0 = Date.parse('2026-11-20T08:00:00Z');
const burst = (client: string, second: number, n: number, name?: string) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      type: 'sertft',
      client_id: client,
      ...(name ? { client_name: name } : {}),
      date: new Date(T0 + second * 1000 + i).toISOString(),
    }),
  );

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
  const lines = [
    ...burst('mobile', 0, 912, 'Mobile app'),
    ...burst('mobile', 1, 600),
    ...burst('web', 5, 10),
  ];
  writeFileSync(join(dir, 'logs.jsonl'), lines.join('\n'));
});
afterEach(() => cleanup());

const plan = (...args: string[]) =>
  runCli(['plan', 'config', '--state', 'state.json', ...args], { cwd: dir });

describe('plan --simulate', () => {
  it("adds to each changed policy's review what it would have done to the traffic read", async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(500));
    const run = await plan('--simulate', 'logs.jsonl');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'effect: would have turned away 512 requests of Mobile app in 2 seconds in the logs read (2026-11-20 08:00Z to 2026-11-20 08:00Z); peak 912/s',
    );
    expect(run.stdout).toContain(
      'effect: never over its limit in the logs read (2026-11-20 08:00Z to 2026-11-20 08:00Z): 10 requests, peak 10/s',
    );
    expect(run.stdout).toContain('setting it at 2–3× the observed peak [enforce-without-log]');
    const json = await plan('--simulate', 'logs.jsonl', '--format', 'json');
    const doc = JSON.parse(json.stdout);
    expect(matchesSchema('plan', doc)).toBe(true);
    const mobile = doc.changes.find((c: { address: string }) => c.address.includes('client_id:mobile'));
    expect(mobile.review.effects).toContainEqual({
      code: 'simulated',
      from: '2026-11-20T08:00:00.000Z',
      to: '2026-11-20T08:00:05.000Z',
      requests: 1512,
      peak: 912,
      seconds_over: 2,
      turned_away: 512,
      logged: 0,
    });
  });

  it('answers the enforce-without-log warning when the new limit is at least twice the peak read', async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(1824));
    const run = await plan('--simulate', 'logs.jsonl');
    expect(run.stdout).toContain(
      'setting it at 2–3× the observed peak; the logs read answer it: 1824/s is at least twice their peak of 912/s [enforce-without-log]',
    );
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(1823));
    expect((await plan('--simulate', 'logs.jsonl')).stdout).not.toContain('the logs read answer it');
  });

  it('saves the plan without the evidence, and prints nothing of it without --simulate', async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(500));
    const bare = await plan();
    expect(bare.stdout).not.toContain('would have');
    expect((await plan('--simulate', 'logs.jsonl', '--out', 'release.tfplan')).code).toBe(0);
    const shown = await runCli(['show', 'release.tfplan'], { cwd: dir });
    expect(shown.stdout).not.toContain('would have');
  });

  it('stops at a log file that is not log events, naming it and the line, before printing the plan', async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(500));
    writeFileSync(join(dir, 'bad.jsonl'), '{"type": "s"}\n{oops\n');
    const run = await plan('--simulate', 'bad.jsonl');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('--simulate bad.jsonl:2: not JSON: {oops');
  });

  it('reads the tenant only under the full profile, and says so before anything is read', async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), policies(500));
    const run = await plan('--simulate', 'tenant', '--base-url', 'http://127.0.0.1:9/api/v2');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'plan --simulate tenant reads the tenant, and the spec API profile has no read operation',
    );
  });
});
