import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../../test/helpers/cli.js';
import { matchesSchema } from '../../schemas/index.js';

const CONFIG = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: third_party_clients
    configuration: { action: log, limit: 50 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:tpa_own
    configuration: { action: block, limit: 0 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:web
    configuration: { action: redirect, limit: 20, redirect_uri: https://status.example/busy }
`;

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'p.yaml'), CONFIG);
});
afterEach(() => cleanup());

const explain = (...args: string[]) => runCli(['explain', 'config', ...args], { cwd: dir });

describe('tenantform explain', () => {
  it('names the governing policy of each client, its action and its counter, with where it is declared', async () => {
    const run = await explain(
      '--client',
      'web',
      '--client',
      'tpa_new',
      '--client',
      'tpa_own',
      '--client',
      'other',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'Client web',
        '  policy:  client_id:web, its own policy (config/p.yaml:14:5)',
        '  action:  redirect above 20/s to https://status.example/busy',
        '  counter: its own counter',
        '  passes over: default',
        '',
        'Client tpa_new, a third-party application (its client id starts tpa_)',
        "  policy:  third_party_clients, its group's policy (config/p.yaml:6:5)",
        '  action:  log above 50/s, never blocks',
        '  counter: one counter shared by all third-party applications',
        '  passes over: default',
        '',
        'Client tpa_own, a third-party application (its client id starts tpa_)',
        '  policy:  client_id:tpa_own, its own policy (config/p.yaml:10:5)',
        '  action:  block every request (limit 0)',
        '  counter: its own counter',
        '  passes over: third_party_clients, default',
        '',
        'Client other',
        '  policy:  default, the default policy (config/p.yaml:2:5)',
        '  action:  block above 100/s',
        '  counter: its own counter (default counts each application apart)',
        '',
      ].join('\n'),
    );
  });

  it('says which of the clients given a policy governs, and which policies take the others away', async () => {
    const run = await explain(
      '--policy',
      'third_party_clients',
      '--client',
      'tpa_new',
      '--client',
      'tpa_own',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        'Policy third_party_clients (config/p.yaml:6:5)',
        '  action:  log above 50/s, never blocks',
        '  governs: all third-party applications (client ids starting tpa_) without a policy of their own, on one shared counter',
        '  except:  client_id:tpa_own',
        '  of the clients given: tpa_new',
      ].join('\n'),
    );
  });

  it('takes a policy address as well as a selector', async () => {
    const run = await explain('--policy', 'rate_limit_policy["oauth_authentication_api","client","default"]');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Policy default (config/p.yaml:2:5)');
    expect(run.stdout).toContain(
      '  except:  the members of third_party_clients, and client_id:tpa_own and client_id:web',
    );
  });

  it('with neither --client nor --policy, explains every policy', async () => {
    const run = await explain();
    expect(run.stdout.match(/^Policy /gm)).toHaveLength(4);
    expect(run.stdout).toContain('governs: client web alone, on its own counter');
  });

  it('refuses a policy the configuration does not declare, naming the closest', async () => {
    const run = await explain('--policy', 'third_party_client');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'no rate limit policy for third_party_client (did you mean third_party_clients?)',
    );
    const other = await explain('--policy', 'token_exchange_profile["urn:x:y"]');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('not a rate limit policy');
  });

  it('reports config problems at file:line:col and exits 1', async () => {
    writeFileSync(join(dir, 'config', 'bad.yaml'), 'rate_limit_policies: 3\n');
    const run = await explain('--client', 'web');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('config/bad.yaml:1:');
    expect(run.stdout).toBe('');
  });

  it('prints JSON that matches schemas/explain.schema.json', async () => {
    const run = await explain(
      '--client',
      'tpa_own',
      '--client',
      'nobody',
      '--policy',
      'default',
      '--format',
      'json',
    );
    const body = JSON.parse(run.stdout) as {
      clients: {
        client_id: string;
        level: string;
        counter: string;
        policy: { blocks_every_request: boolean } | null;
      }[];
      policies: { scope: string; counter: string; governs: string[] }[];
    };
    expect(matchesSchema('explain', body)).toBe(true);
    expect(
      body.clients.map((c) => [c.client_id, c.level, c.counter, c.policy?.blocks_every_request]),
    ).toEqual([
      ['tpa_own', 'client', 'own', true],
      ['nobody', 'default', 'own', false],
    ]);
    expect(body.policies).toEqual([
      expect.objectContaining({ scope: 'default', counter: 'per-application', governs: ['nobody'] }),
    ]);
  });

  it('prints Markdown tables for a pull request', async () => {
    const run = await explain(
      '--client',
      'tpa_new',
      '--policy',
      'third_party_clients',
      '--format',
      'markdown',
    );
    expect(run.stdout).toContain('| Application | Policy | Action | Counter |');
    expect(run.stdout).toContain(
      "| `tpa_new` | `third_party_clients` (its group's policy) | log above 50/s, never blocks | one counter shared by all third-party applications |",
    );
    expect(run.stdout).toContain('| Policy | Action | Governs | Except |');
  });

  it('says so when no policy governs a client', async () => {
    writeFileSync(join(dir, 'config', 'p.yaml'), 'rate_limit_policies: []\n');
    const run = await explain('--client', 'web');
    expect(run.stdout).toContain(
      'policy:  none (no policy names it, its group has none, and there is no default)',
    );
    expect(run.stdout).toContain("counter: no policy: only the tenant's own rate limit applies");
  });
});

describe('explain --client values (issue 35, item 20)', () => {
  it.each([[''], ['   '], ['client_id:']])('refuses %j, naming the flag', async (value) => {
    const run = await explain('--client', value);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: --client (needs a client id|client_id:: no client id)/);
    expect(run.stdout).toBe('');
  });

  it('reads --client client_id:ID, written as the consumer_selector, as the id ID', async () => {
    const run = await explain('--client', 'client_id:web', '--format', 'json');
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      clients: { client_id: string; policy: { selector: string } }[];
    };
    expect(report.clients.map((c) => [c.client_id, c.policy.selector])).toEqual([['web', 'client_id:web']]);
  });
});
