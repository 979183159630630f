/**
 * simulate --logs tenant end to end: the tenant's log events read from
 * `emulator --api full` seeded with them (GET /logs: a search for where to
 * start, then checkpoint pages of 100), simulated exactly as the same events
 * read from a file; --since, --max-events and the retention the tenant
 * keeps; under spec it reads nothing and says why.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';

const POLICIES = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 20 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:mobile
    configuration: { action: block, limit: 50 }
`;

const T0 = Date.parse('2026-11-20T08:00:00Z');
/** 30 a second for 10 seconds of web, a burst of 120 in one second of mobile; 420 events, newest first. */
const EVENTS = [
  ...Array.from({ length: 300 }, (_, i) => ({
    type: 's',
    client_id: 'web',
    date: new Date(T0 + Math.floor(i / 30) * 1000 + i).toISOString(),
  })),
  ...Array.from({ length: 120 }, (_, i) => ({
    type: 'sertft',
    client_id: 'mobile',
    client_name: 'Mobile app',
    date: new Date(T0 + 60_000 + i).toISOString(),
  })),
].reverse();

const ws = useEmulatorWorkspace({ 'policies.yaml': POLICIES }, { api: 'full', seed: { logs: EVENTS } });
const api = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

interface SimulateJson {
  tenant?: { oldest: string | null; capped: boolean; requests: number };
  read: { events: number; requests: number };
  policies: { selector: string; requests: number; turned_away: number; logged: number }[];
}

describe('simulate --logs tenant', () => {
  it('reads the tenant logs page by page and simulates them as it simulates the same events from a file', async () => {
    const run = await ws.cli('simulate', 'config', '--logs', 'tenant', '--format', 'json', ...api());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const tenant = JSON.parse(run.stdout) as SimulateJson;
    expect(tenant.tenant).toEqual({
      oldest: '2026-11-20T08:00:00.000Z',
      capped: false,
      cap: 1000000,
      requests: 6,
    });
    expect(tenant.read).toMatchObject({ events: 420, requests: 420 });
    expect(tenant.policies.map((p) => [p.selector, p.requests, p.turned_away, p.logged])).toEqual([
      ['default', 300, 0, 100],
      ['client_id:mobile', 120, 70, 0],
    ]);
    writeFileSync(join(ws.dir, 'logs.jsonl'), EVENTS.map((e) => JSON.stringify(e)).join('\n'));
    const file = JSON.parse(
      (await ws.cli('simulate', 'config', '--logs', 'logs.jsonl', '--format', 'json')).stdout,
    );
    expect(file.policies).toEqual(tenant.policies);
  });

  it('starts at --since, stops at --max-events, and says how far back the logs reach', async () => {
    const since = await ws.cli(
      'simulate',
      'config',
      '--logs',
      'tenant',
      '--since',
      '2026-11-20T08:00:30Z',
      ...api(),
    );
    expect(since.code).toBe(0);
    expect(since.stdout).toContain('Simulated 120 requests of 1 application');
    expect(since.stdout).toContain(
      "Tenant: 4 requests; the tenant's logs reached back to 2026-11-20 08:00:00Z.",
    );
    const capped = await ws.cli('simulate', 'config', '--logs', 'tenant', '--max-events', '150', ...api());
    expect(capped.stdout).toContain('Read 150 events from');
    expect(capped.stdout).toContain('stopped at the cap of 150 events (--max-events)');
  });

  it('refuses under the spec profile, which has no read, and sends nothing', async () => {
    const run = await ws.cli('simulate', 'config', '--logs', 'tenant', '--base-url', ws.emulator.baseUrl);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'simulate --logs tenant reads the tenant, and the spec API profile has no read operation',
    );
    expect(ws.emulator.stats().requests).toBe(0);
  });
});
