/**
 * explain --all-clients end to end: the tenant's applications read from
 * `emulator --api full` seeded with clients (paged: more than one page), each
 * explained with its name, and for each policy which of them it governs; in
 * text, Markdown and JSON (schemas/explain.schema.json). Under spec it reads
 * nothing and says why.
 */
import { describe, expect, it } from 'vitest';
import { matchesSchema } from '../src/schemas/index.js';
import { useEmulatorWorkspace } from './helpers/e2e.js';
import { referenceSeed } from './helpers/reference-seed.js';

const POLICIES = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: third_party_clients
    configuration: { action: log, limit: 20 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:web-app
    configuration: { action: block, limit: 0 }
`;

/** 120 applications (two pages of 100): web-app, two third-party ones, and filler. */
const CLIENTS = [
  'web-app',
  'tpa_partner1',
  'tpa_partner2',
  ...Array.from({ length: 117 }, (_, i) => `app-${i}`),
];

const ws = useEmulatorWorkspace(
  { 'policies.yaml': POLICIES },
  { api: 'full', seed: referenceSeed({ clients: CLIENTS }) },
);
const api = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

interface ExplainJson {
  clients: {
    client_id: string;
    name?: string;
    level: string;
    policy: { selector: string } | null;
    counter: string;
  }[];
  policies: { policy: { selector: string }; governs: string[] }[];
}

describe('explain --all-clients', () => {
  it('explains every application of the tenant with its name, and what each policy governs (JSON)', async () => {
    const run = await ws.cli('explain', 'config', '--all-clients', '--format', 'json', ...api());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('Read 120 applications from the tenant in 2 requests.\n');
    const report = JSON.parse(run.stdout) as ExplainJson;
    expect(matchesSchema('explain', report)).toBe(true);
    expect(report.clients.map((c) => c.client_id).sort()).toEqual([...CLIENTS].sort());
    const byId = new Map(report.clients.map((c) => [c.client_id, c]));
    expect(byId.get('web-app')).toMatchObject({
      name: 'Application web-app',
      level: 'client',
      policy: { selector: 'client_id:web-app' },
      counter: 'own',
    });
    expect(byId.get('tpa_partner1')).toMatchObject({ level: 'group', counter: 'shared' });
    expect(byId.get('app-3')).toMatchObject({ level: 'default', counter: 'own' });
    const governs = new Map(report.policies.map((p) => [p.policy.selector, p.governs]));
    expect(governs.get('third_party_clients')).toEqual(['tpa_partner1', 'tpa_partner2']);
    expect(governs.get('default')).toHaveLength(117);
    expect(governs.get('client_id:web-app')).toEqual(['web-app']);
  });

  it('prints the map as text and as Markdown, naming the tenant’s applications', async () => {
    const text = await ws.cli('explain', 'config', '--all-clients', ...api());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Client web-app (Application web-app)\n  policy:  client_id:web-app');
    expect(text.stdout).toContain("  of the tenant's applications: tpa_partner1 and tpa_partner2");
    const markdown = await ws.cli('explain', 'config', '--all-clients', '--format', 'markdown', ...api());
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(
      '| `tpa_partner2` Application tpa\\_partner2 | `third_party_clients` (its group',
    );
  });

  it('refuses under the spec profile, reading nothing', async () => {
    const run = await ws.cli('explain', 'config', '--all-clients', '--base-url', ws.emulator.baseUrl);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'explain --all-clients reads the tenant, and the spec API profile has no read operation',
    );
    expect(ws.emulator.requestCount()).toBe(0);
  });
});
