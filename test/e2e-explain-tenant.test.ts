/**
 * explain --all-clients end to end: the tenant's applications read from
 * `emulator --api full` seeded with clients (paged: more than one page), each
 * explained with its name, and for each policy which of them it governs; in
 * text, Markdown and JSON (schemas/explain.schema.json). Under spec it reads
 * nothing and says why. And every level of the precedence, against the
 * emulator command itself (`emulator --api full --seed FILE`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEmulator } from '../src/cli/commands/emulator.js';
import type { CommandIO } from '../src/cli/io.js';
import { matchesSchema } from '../src/schemas/index.js';
import { runCli, tempDir } from './helpers/cli.js';
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

/** Starts `tenantform emulator --api full --seed FILE --json` in-process; its base URL, token and stop. */
async function seededEmulator(dir: string, seed: string) {
  writeFileSync(join(dir, 'seed.yaml'), seed);
  const controller = new AbortController();
  let banner = '';
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => (ready = resolve));
  const io: CommandIO = {
    stdout: {
      write: (text: string) => {
        banner += text;
        if (banner.includes('\n')) ready();
      },
    },
    stderr: { write: () => true },
    env: {},
    cwd: dir,
    signal: controller.signal,
  };
  const running = runEmulator({ host: '127.0.0.1', port: 0, json: true, api: 'full', seed: 'seed.yaml' }, io);
  await Promise.race([started, running]);
  const info = JSON.parse(banner.split('\n')[0]!) as { base_url: string; token: string };
  return {
    ...info,
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

const SEED = `clients:
  - { client_id: web-app, name: Web shop, app_type: spa, is_first_party: true }
  - { client_id: tpa_partner1, name: Partner One, app_type: regular_web, is_first_party: false }
  - { client_id: batch-job, name: Nightly batch, app_type: non_interactive, is_first_party: true }
`;

const policy = (selector: string, configuration: string) => `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: ${configuration}
`;

describe('explain --all-clients against emulator --api full --seed FILE', () => {
  const CIMD = 'https://agent.example/oauth/client.json';

  it.each([
    [
      'every level: the application, its group (third-party, CIMD), default',
      [
        policy('default', '{ action: log, limit: 100 }'),
        policy('third_party_clients', '{ action: block, limit: 20 }'),
        policy('cimd_clients', '{ action: block, limit: 5 }'),
        policy('client_id:web-app', '{ action: block, limit: 1500 }'),
      ],
      {
        'web-app': ['Web shop', 'client', 'client_id:web-app', 'own'],
        tpa_partner1: ['Partner One', 'group', 'third_party_clients', 'shared'],
        [CIMD]: [undefined, 'group', 'cimd_clients', 'shared'],
        'batch-job': ['Nightly batch', 'default', 'default', 'own'],
      },
    ],
    [
      'a group member without a group policy falls to default; without default, none',
      [
        policy('client_id:web-app', '{ action: log, limit: 10 }'),
        policy('cimd_clients', '{ action: log, limit: 5 }'),
      ],
      {
        'web-app': ['Web shop', 'client', 'client_id:web-app', 'own'],
        tpa_partner1: ['Partner One', 'none', null, 'none'],
        [CIMD]: [undefined, 'group', 'cimd_clients', 'shared'],
        'batch-job': ['Nightly batch', 'none', null, 'none'],
      },
    ],
  ] as const)('%s', async (_case, policies, want) => {
    const { dir, cleanup } = tempDir();
    const emulator = await seededEmulator(dir, SEED);
    try {
      mkdirSync(join(dir, 'config'));
      writeFileSync(join(dir, 'config', 'p.yaml'), `rate_limit_policies:\n${policies.join('')}`);
      const run = await runCli(
        ['explain', 'config', '--all-clients', '--client', CIMD, '--format', 'json', '--api', 'full'],
        { cwd: dir, env: { TENANTFORM_BASE_URL: emulator.base_url, TENANTFORM_TOKEN: emulator.token } },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe('Read 3 applications from the tenant in 1 request.\n');
      const report = JSON.parse(run.stdout) as ExplainJson;
      expect(matchesSchema('explain', report)).toBe(true);
      const got = Object.fromEntries(
        report.clients.map((c) => [c.client_id, [c.name, c.level, c.policy?.selector ?? null, c.counter]]),
      );
      expect(got).toEqual(want);
    } finally {
      await emulator.stop();
      cleanup();
    }
  });
});
