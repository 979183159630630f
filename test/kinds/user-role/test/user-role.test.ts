/**
 * User roles, end to end against the emulator: validate → plan → apply (one
 * request per role, each given an id) → state → a second plan with nothing to
 * do → a removal by id → export into a fresh directory that validates and
 * plans to "No changes"; `import` by id. Nothing registers the kind: it is in
 * KINDS and EMULATOR_KINDS because its files are where a shipped kind's are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';
import { LATER_KINDS_ZERO } from './helpers/kind-examples.js';

const roles = (pairs: [string, string][]) =>
  `user_roles:\n${pairs.map(([user, role]) => `  - user_id: "${user}"\n    role_id: ${role}\n`).join('')}`;

const PERMISSION = `user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
`;

const ALL: [string, string][] = [
  ['auth0|alice', 'rol_admin'],
  ['auth0|alice', 'rol_viewer'],
  ['auth0|bob', 'rol_viewer'],
];

const ws = useEmulatorWorkspace(
  { 'roles.yaml': roles(ALL), 'permissions.yaml': PERMISSION },
  { api: 'full', users: ['auth0|alice', 'auth0|bob'] },
);

const target = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

describe('user roles, a kind added as its files', () => {
  it('are validated, planned, applied with ids, recorded, removed and exported', async () => {
    const valid = await ws.cli('validate', 'config');
    expect(valid.stdout).toMatch(
      new RegExp(
        `^Valid: 2 files, 0 rate limit policies, 1 user permission \\(1 user\\), 0 token exchange profiles${LATER_KINDS_ZERO}, 3 user roles\\.\\n$`,
      ),
    );

    const plan = await ws.cli('plan', 'config', ...target());
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      '+ user role auth0|alice rol_admin: new\n      user_role["auth0|alice","rol_admin"]',
    );
    expect(plan.stdout).toContain('Plan: 4 to create');

    const apply = await ws.cli('apply', 'config', '--auto-approve', ...target());
    expect(apply.code, apply.stderr).toBe(0);
    expect(ws.emulator.stats().byRoute['POST /api/v2/users/{id}/roles']).toBe(3);
    const held = (ws.emulator.snapshot() as unknown as { userRoles: { id: string; role_id: string }[] })
      .userRoles;
    expect(held.map((r) => r.role_id)).toEqual(['rol_admin', 'rol_viewer', 'rol_viewer']);

    const shown = await ws.cli('state', 'show', 'user_role["auth0|bob","rol_viewer"]', 'config');
    expect(shown.code, shown.stderr).toBe(0);
    const bobs = /ura_[A-Za-z0-9]{16}/.exec(shown.stdout)?.[0];
    expect(held.map((r) => r.id)).toContain(bobs);

    const again = await ws.cli('plan', 'config', '--refresh', ...target());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');

    ws.write('roles.yaml', roles(ALL.slice(0, 2)));
    const removal = await ws.cli('apply', 'config', '--auto-approve', ...target());
    expect(removal.code, removal.stderr).toBe(0);
    expect(removal.stdout).toContain(
      '- user role auth0|bob rol_viewer: removed\n      user_role["auth0|bob","rol_viewer"]',
    );
    expect(ws.emulator.stats().byRoute['DELETE /api/v2/user-roles/{id}']).toBe(1);
    expect(
      (ws.emulator.snapshot() as unknown as { userRoles: { id: string }[] }).userRoles.map((r) => r.id),
    ).not.toContain(bobs);

    const exported = await ws.cli(
      'export',
      'out',
      '--user',
      'auth0|alice',
      '--user',
      'auth0|bob',
      ...target(),
    );
    expect(exported.code, exported.stderr).toBe(0);
    const file = join(ws.dir, 'out', 'user-roles.yaml');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('role_id: rol_viewer');
    const check = await ws.cli('validate', 'out');
    expect(check.stdout).toMatch(/, 2 user roles\.\n$/);
    const settled = await ws.cli('plan', 'out', ...target());
    expect(settled.stdout).toContain('No changes.');
  });

  it('are imported by id, and a wrong id is refused naming the shape of one', async () => {
    ws.write('roles.yaml', roles(ALL));
    const res = await fetch(`${ws.emulator.baseUrl}/users/${encodeURIComponent('auth0|bob')}/roles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role_id: 'rol_viewer' }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const args = ['import', 'user_role', 'auth0|bob/rol_viewer'];
    const wrong = await ws.cli(...args, 'rlp_1', '--config', 'config', ...target());
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('"rlp_1" does not look like a user_role id (expected ura_ followed by 16');
    const imported = await ws.cli(...args, id, '--config', 'config', ...target());
    expect(imported.code, imported.stderr).toBe(0);
    const shown = await ws.cli('state', 'show', 'user_role["auth0|bob","rol_viewer"]', 'config');
    expect(shown.stdout).toContain(id);
    const plan = await ws.cli('plan', 'config', ...target());
    expect(plan.stdout).toContain('+ user role auth0|alice rol_admin: new');
    expect(plan.stdout).not.toContain('user role auth0|bob rol_viewer: new');
    const help = await ws.cli('import', '--help');
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/\(rlp_…, tep_…, (\S+ )*ura_…\)/);
  });

  it('report a mistake in their config at file:line:col, with the allowed keys', async () => {
    ws.write('roles.yaml', 'user_roles:\n  - user_id: "auth0|alice"\n    role: rol_admin\n');
    const result = await ws.cli('validate', 'config');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'config/roles.yaml:3:5: unknown property "role" in a user role; allowed: user_id, role_id',
    );
  });
});
