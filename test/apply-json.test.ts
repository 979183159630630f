import { describe, expect, it } from 'vitest';
import { checkSchema } from '../src/schemas/index.js';
import { PARTNER_PROFILE, useEmulatorWorkspace } from './helpers/e2e.js';

const CONFIG = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: cimd_clients
    configuration: { action: log, limit: 20 }
user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
  - user_id: "auth0|nobody"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
${PARTNER_PROFILE}`;

// auth0|nobody does not exist: its permission fails with 404
const ws = useEmulatorWorkspace({ 'tenant.yaml': CONFIG }, { users: ['auth0|alice'] });
const cli = (...args: string[]) => ws.cli(...args, '--base-url', ws.emulator.baseUrl);

function events(stdout: string): Record<string, unknown>[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('apply --json against the emulator', () => {
  it('prints only schema-valid JSON lines: plan, each operation, summary; statuses from the API', async () => {
    // someone created the default policy by hand: the create answers 409 (adopted)
    await ws.createDefaultPolicy({ action: 'block', limit: 100 });
    const run = await cli('apply', 'config', '--auto-approve', '--json');
    expect(run.code).toBe(1); // the unknown user's permission failed
    const lines = events(run.stdout);
    for (const line of lines) expect(checkSchema('applyEvent', line), JSON.stringify(line)).toEqual([]);
    expect(lines[0]).toMatchObject({ type: 'plan', api: 'spec', partial: false, destroy: false });
    expect((lines[0]!.changes as unknown[]).length).toBe(5);
    expect(lines[lines.length - 1]).toMatchObject({
      type: 'summary',
      complete: false,
      done: 4,
      outcomes: { adopted: 1, created: 2, assigned: 1 },
    });

    const byAddress = (type: string, fragment: string) =>
      lines.find((l) => l.type === type && String(l.address).includes(fragment));
    expect(byAddress('done', '"default"')).toMatchObject({
      outcome: 'adopted',
      status: 409,
      action: 'create',
    });
    expect(byAddress('done', 'cimd_clients')).toMatchObject({ outcome: 'created', status: 201 });
    expect(byAddress('done', 'legacy-token')).toMatchObject({ outcome: 'created', status: 201 });
    expect(byAddress('failed', 'auth0|nobody')).toMatchObject({ status: 404, action: 'create' });
    const started = lines.filter((l) => l.type === 'started').map((l) => l.address);
    const finished = lines.filter((l) => l.type === 'done' || l.type === 'failed').map((l) => l.address);
    expect([...finished].sort()).toEqual([...started].sort());
    for (const l of lines.filter((x) => x.type === 'done')) expect(typeof l.duration_ms).toBe('number');
    expect(run.stderr).toContain('State:'); // the header goes to stderr, stdout is JSON only
  });

  it('destroy --json reports forgets with no status, and --json without --auto-approve is refused', async () => {
    ws.write('tenant.yaml', CONFIG.replace(/ {2}- user_id: "auth0\|nobody"[^]*?(?=token_exchange)/, ''));
    expect((await cli('apply', 'config', '--auto-approve')).code).toBe(0);

    const refused = await cli('destroy', 'config', '--json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--json needs --auto-approve');
    expect(refused.stdout).toBe('');

    const run = await cli('destroy', 'config', '--auto-approve', '--json');
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    for (const line of lines) expect(checkSchema('applyEvent', line), JSON.stringify(line)).toEqual([]);
    expect(lines[0]).toMatchObject({ type: 'plan', destroy: true });
    const forgets = lines.filter((l) => l.type === 'done' && l.outcome === 'forgotten');
    expect(forgets).toHaveLength(2);
    for (const f of forgets) expect(f.status).toBeNull();
    expect(lines.filter((l) => l.type === 'done' && l.outcome === 'deleted')).toHaveLength(2);
    expect(lines[lines.length - 1]).toMatchObject({
      type: 'summary',
      complete: true,
      outcomes: { deleted: 2, forgotten: 2 },
    });

    const again = await cli('destroy', 'config', '--auto-approve', '--json');
    expect(again.code).toBe(0);
    expect(events(again.stdout).map((l) => l.type)).toEqual(['plan', 'summary']);
    expect(events(again.stdout)[1]).toMatchObject({ complete: true, done: 0 });
  });
});
