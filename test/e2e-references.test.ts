/**
 * References checked against the tenant, end to end against `emulator --api
 * full` over 127.0.0.1 with its default reference data (the examples'
 * applications, Actions and APIs): a typo'd client_id: selector, an action_id
 * that does not exist or is bound to another trigger, a permission its API
 * does not define. Each is an error at file:line:col in validate --live,
 * plan --refresh, apply --refresh and refresh, before any request that
 * writes (and before the state is written); a config without them passes.
 * Under the spec profile nothing is read and validate --live says so once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { otherListedKinds } from './helpers/kind-examples.js';
import { emulatorScopes } from '../src/emulator/index.js';
import { runCli } from './helpers/cli.js';
import { defaultStateFile, useEmulatorWorkspace } from './helpers/e2e.js';

const GOOD = {
  'policies.yaml': `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC
    configuration: { action: block, limit: 1500 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:https://assistant.partner.example/oauth/client.json
    configuration: { action: block, limit: 5 }
`,
  'profiles.yaml': `token_exchange_profiles:
  - name: Partner portal SSO
    subject_token_type: urn:acme:partner-portal:session-token
    action_id: 3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90
    type: custom_authentication
`,
  'permissions.yaml': `user_permissions:
  - user_id: auth0|alice
    permissions:
      - resource_server_identifier: https://api.acme.example/orders
        permission_name: read:orders
`,
};

const ws = useEmulatorWorkspace(GOOD, { api: 'full' });
const api = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];
/**
 * What the state records: nothing, before a write. (A run that reads binds
 * the state to its tenant first, so the file may exist, with no resource.)
 */
function recorded(): unknown[] {
  const file = defaultStateFile(join(ws.dir, 'config'), ws.emulator.baseUrl);
  if (!existsSync(file)) return [];
  const journal = `${file}.journal`;
  if (existsSync(journal)) expect(readFileSync(journal, 'utf8')).toBe('');
  return (JSON.parse(readFileSync(file, 'utf8')) as { resources: unknown[] }).resources;
}

/** The three problems of the issue, each as an edit of one good file, with the error it must give. */
const PROBLEMS = [
  {
    problem: "a typo'd client_id: selector",
    file: 'policies.yaml',
    from: 'client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC',
    to: 'client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9Xc',
    error:
      'config/policies.yaml:2:5: consumer_selector client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9Xc names no application of the tenant; did you mean Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC?',
  },
  {
    problem: 'an action_id that does not exist',
    file: 'profiles.yaml',
    from: '3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90',
    to: '3f6c2a1e-0000-4c7a-9e2f-1a5b6c7d8e90',
    error:
      'config/profiles.yaml:2:5: action_id 3f6c2a1e-0000-4c7a-9e2f-1a5b6c7d8e90 is not a deployed Action bound to the custom-token-exchange trigger on the tenant',
  },
  {
    problem: 'an action_id bound to another trigger',
    file: 'profiles.yaml',
    from: '3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90',
    to: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
    error:
      'config/profiles.yaml:2:5: action_id 9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a is not a deployed Action bound to the custom-token-exchange trigger on the tenant',
  },
  {
    problem: 'a permission its API does not define',
    file: 'permissions.yaml',
    from: 'permission_name: read:orders',
    to: 'permission_name: read:order',
    error:
      'config/permissions.yaml:4:9: permission_name read:order is not a permission of the API https://api.acme.example/orders (Orders API); did you mean read:orders?',
  },
  {
    problem: 'a permission of an API the tenant does not have',
    file: 'permissions.yaml',
    from: 'https://api.acme.example/orders',
    to: 'https://api.acme.example/billing',
    error:
      'config/permissions.yaml:4:9: resource_server_identifier https://api.acme.example/billing names no API (resource server) of the tenant',
  },
] as const;

function breakConfig(p: (typeof PROBLEMS)[number]): void {
  const text = GOOD[p.file];
  expect(text).toContain(p.from);
  ws.write(p.file, text.replace(p.from, p.to));
}

/** The "METHOD /route" of every request the emulator answered (the token endpoint's included). */
const routes = () => Object.keys(ws.emulator.stats().byRoute);
const writes = () => routes().filter((r) => !r.startsWith('GET ') && r !== 'POST /oauth/token');

describe.each(PROBLEMS)('$problem', (p) => {
  it('apply --refresh stops with the error at file:line:col, before any write to the tenant, recording nothing', async () => {
    breakConfig(p);
    const run = await ws.cli('apply', 'config', ...api(), '--refresh', '--auto-approve');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(p.error);
    expect(run.stderr).toContain('1 error.');
    expect(writes()).toEqual([]);
    expect(routes().length).toBeGreaterThan(0);
    expect(recorded()).toEqual([]);
  });

  it.each([
    ['validate --live', ['validate', 'config', '--live']],
    ['plan --refresh', ['plan', 'config', '--refresh']],
    ['refresh', ['refresh', 'config']],
  ])('%s stops with the same error, reading only', async (_command, args) => {
    breakConfig(p);
    const run = await ws.cli(...args, ...api());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(p.error);
    expect(writes()).toEqual([]);
    expect(recorded()).toEqual([]);
  });
});

describe('a config whose references all exist', () => {
  it('validates live, then applies with --refresh', async () => {
    const validated = await ws.cli('validate', 'config', '--live', ...api());
    expect(validated.stderr).toBe('');
    expect(validated.stdout).toContain(
      "References checked against the tenant's applications, actions and APIs in 3 requests: the 1 application, 1 action and 1 API the config names exist.",
    );
    expect(validated.code).toBe(0);
    const applied = await ws.cli('apply', 'config', ...api(), '--refresh', '--auto-approve');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const others = otherListedKinds('rate_limit_policy', 'token_exchange_profile');
    expect(applied.stdout).toContain(
      `Read ${3 + others} lists from the tenant, and its applications, actions and APIs to check the config's references, in ${6 + others} requests.`,
    );
    expect(ws.emulator.snapshot().tokenExchangeProfiles).toHaveLength(1);
  });

  it('reads each list once, whatever the number of references to it', async () => {
    const users = Array.from(
      { length: 40 },
      (_, i) => `  - user_id: auth0|user${i}
    permissions:
      - { resource_server_identifier: https://api.acme.example/orders, permission_name: read:orders }
      - { resource_server_identifier: https://api.acme.example/orders, permission_name: write:orders }
`,
    );
    ws.write('permissions.yaml', `user_permissions:\n${users.join('')}`);
    const run = await ws.cli('validate', 'config', '--live', ...api());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(ws.emulator.stats().byRoute).toEqual({
      'GET /api/v2/clients': 1,
      'GET /api/v2/actions/actions': 1,
      'GET /api/v2/resource-servers': 1,
    });
  });
});

describe('under the spec profile', () => {
  it('validate --live validates, reads nothing and says once that references were not checked', async () => {
    breakConfig(PROBLEMS[0]);
    breakConfig(PROBLEMS[3]);
    const run = await ws.cli('validate', 'config', '--live', '--base-url', ws.emulator.baseUrl);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/References not checked/g)).toHaveLength(1);
    expect(run.stdout).toContain('the spec API profile has no read operation');
    expect(routes()).toEqual([]);
  });
});

/**
 * A token without the read scope of a list (the tenant answers 403 to its
 * list): that list's references are not checked, said once per list as a
 * warning naming the scope, and the run goes on; with --strict it is an
 * error before any write.
 */
describe('a token that lacks read:clients', () => {
  const cli = (...args: string[]) => {
    const scopes = emulatorScopes('full').filter((s) => s !== 'read:clients');
    const token = ws.emulator.issueToken({ scopes });
    return runCli([...args, ...api()], { cwd: ws.dir, env: { TENANTFORM_TOKEN: token } });
  };
  const WARNING =
    "warning: references not checked: the token lacks read:clients (403 listing the tenant's applications); the config's references to 1 application are unchecked\n1 warning.\n";
  const ERROR =
    "references not checked: the token lacks read:clients (403 listing the tenant's applications); the config's references to 1 application are unchecked\n";
  /** The client list was asked for once, and refused. */
  const refusedOnce = () => expect(ws.emulator.stats().byRoute['GET /api/v2/clients']).toBe(1);

  it('validate --live warns once, checks the other lists, and passes', async () => {
    // A typo the refused list would have caught goes through; the other lists still catch theirs.
    breakConfig(PROBLEMS[0]);
    const run = await cli('validate', 'config', '--live');
    expect(run.stderr).toBe(WARNING);
    expect(run.stdout).toContain(
      "References checked against the tenant's actions and APIs in 3 requests: the 1 action and 1 API the config names exist.",
    );
    expect(run.code).toBe(0);
    refusedOnce();
    breakConfig(PROBLEMS[1]);
    const broken = await cli('validate', 'config', '--live');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(PROBLEMS[1].error);
  });

  it('validate --live says it in JSON too, and --strict makes it an error', async () => {
    const json = await cli('validate', 'config', '--live', '--format', 'json');
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as { valid: boolean; warnings: { code: string; message: string }[] };
    expect(body.warnings).toEqual([
      expect.objectContaining({ code: 'REFERENCES_NOT_CHECKED', message: ERROR.trim() }),
    ]);
    const strict = await cli('validate', 'config', '--live', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(ERROR + '1 error.\n');
    expect(strict.stderr).not.toContain('warning:');
  });

  it('plan --refresh warns and plans; with --strict it stops, printing no plan', async () => {
    const plan = await cli('plan', 'config', '--refresh');
    expect(plan.stderr).toContain(WARNING);
    expect(plan.stdout).toContain('Plan: 5 to create');
    expect(plan.code).toBe(0);
    const strict = await cli('plan', 'config', '--refresh', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(ERROR + '1 error.\n');
    expect(strict.stdout).toBe('');
  });

  it('apply --refresh --strict stops before any write; without --strict it warns and applies', async () => {
    const strict = await cli('apply', 'config', '--refresh', '--auto-approve', '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(ERROR + '1 error.\n');
    expect(writes()).toEqual([]);
    expect(recorded()).toEqual([]);
    const applied = await cli('apply', 'config', '--refresh', '--auto-approve');
    expect(applied.stderr).toBe(WARNING);
    expect(applied.code).toBe(0);
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(3);
  });

  it('refresh warns and refreshes', async () => {
    const run = await cli('refresh', 'config');
    expect(run.stderr).toBe(WARNING);
    expect(run.code).toBe(0);
    refusedOnce();
  });

  it('a token that lacks every read scope of the lists: one warning per list', async () => {
    const scopes = emulatorScopes('full').filter(
      (s) => !['read:clients', 'read:actions', 'read:resource_servers'].includes(s),
    );
    const token = ws.emulator.issueToken({ scopes });
    const run = await runCli(['validate', 'config', '--live', ...api()], {
      cwd: ws.dir,
      env: { TENANTFORM_TOKEN: token },
    });
    expect(run.code).toBe(0);
    expect(run.stderr.match(/^warning: references not checked: the token lacks (\S+) /gm)).toEqual([
      'warning: references not checked: the token lacks read:clients ',
      'warning: references not checked: the token lacks read:actions ',
      'warning: references not checked: the token lacks read:resource_servers ',
    ]);
    expect(run.stdout).toContain('References not checked against the tenant');
  });
});
