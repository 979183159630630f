/**
 * The tenant's rate-limit facts, remembered end to end: the first apply to a
 * tenant sends its first request alone (nothing is known of the tenant's
 * bucket); it keeps what the answers taught beside the state
 * (`state.json.rate-limits`, mode 0600, never in the document); the next
 * apply to the same tenant starts with the first round those facts prove
 * (the emulator without a limit: a full bucket, so --parallelism), and a
 * record of another tenant is ignored. --debug says where the first round came from.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultStateFile, useEmulatorWorkspace } from './helpers/e2e.js';

const policies = (n: number) =>
  `rate_limit_policies:\n${Array.from(
    { length: n },
    (_, i) =>
      `  - { resource: oauth_authentication_api, consumer: client, consumer_selector: "client_id:app-${i}", configuration: { action: block, limit: ${100 + i} } }\n`,
  ).join('')}`;

const ws = useEmulatorWorkspace({ 'policies.yaml': policies(2) });
const statePath = () => defaultStateFile(join(ws.dir, 'config'), ws.emulator.baseUrl);
const apply = () =>
  ws.cli(
    'apply',
    'config',
    '--auto-approve',
    '--debug',
    '--parallelism',
    '4',
    '--base-url',
    ws.emulator.baseUrl,
  );
const firstRound = (stderr: string) => stderr.split('\n').find((l) => l.includes('pacing: first round'));

describe('remembered rate-limit facts', () => {
  it('a first apply sends one request alone; the next to the same tenant starts with the round its facts prove', async () => {
    const first = await apply();
    expect(first.code, first.stderr).toBe(0);
    expect(firstRound(first.stderr)).toMatch(
      /first round of 1 request: no rate-limit facts of this tenant are kept/,
    );
    const file = `${statePath()}.rate-limits`;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { tenant: string; groups: { limit: number }[] };
    expect(kept.tenant).toBe(ws.emulator.baseUrl);
    expect(kept.groups.map((g) => g.limit)).toEqual([10_000]);
    // Never in the state document.
    expect(readFileSync(statePath(), 'utf8')).not.toContain('tenantform_rate_limits');

    ws.write('policies.yaml', policies(6));
    const second = await apply();
    expect(second.code, second.stderr).toBe(0);
    expect(firstRound(second.stderr)).toMatch(
      /first round of 4 requests, from the rate-limit facts kept with the state: \d+ of 10000 left .*at most the parallelism, 4/,
    );
  });

  it("ignores another tenant's facts, said in a debug line, and sends the first request alone", async () => {
    expect((await apply()).code).toBe(0);
    const file = `${statePath()}.rate-limits`;
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(ws.emulator.baseUrl, 'https://other.example/api/v2'),
    );
    ws.write('policies.yaml', policies(3));
    const run = await apply();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'pacing: the rate-limit facts kept with the state were ignored: they were learned from another tenant',
    );
    expect(firstRound(run.stderr)).toMatch(/first round of 1 request/);
    // The run's own answers replace them.
    expect(JSON.parse(readFileSync(file, 'utf8')).tenant).toBe(ws.emulator.baseUrl);
  });
});
