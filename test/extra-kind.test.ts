/**
 * A fourth kind, declared by this test alone: user roles
 * (test/kinds/user-role: the declaration, the emulator module and the API
 * schemas; test/helpers/extra-kind.ts registers them). The whole path runs
 * with it against the emulator, with no edit anywhere else: validate → plan
 * → apply (one request per user, batched) → state → a second plan with
 * nothing to do → a removal (API profile full) → export into a fresh
 * directory that validates and plans to "No changes".
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EMULATOR_KINDS } from '../src/emulator/index.js';
import { registerExtraKind } from './helpers/extra-kind.js';
import { useEmulatorWorkspace } from './helpers/e2e.js';
import { LATER_KINDS_ZERO } from './helpers/kind-examples.js';
import { userRoles } from './kinds/user-role/emulator.js';
import { userRole } from './kinds/user-role/user-role.js';

registerExtraKind(userRole, fileURLToPath(new URL('./kinds/user-role/schemas/', import.meta.url)));

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
  { api: 'full', users: ['auth0|alice', 'auth0|bob'], kinds: [...EMULATOR_KINDS, userRoles] },
);

const target = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

describe('a kind declared by a test alone', () => {
  it('is validated, planned, applied, recorded, removed and exported like the shipped ones', async () => {
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
    // Batched per user by the descriptor's batchKey: one POST for alice's two roles, one for bob's.
    expect(ws.emulator.stats().byRoute['POST /api/v2/users/{id}/roles']).toBe(2);
    expect(ws.emulator.snapshot()).toMatchObject({
      userRoles: { 'auth0|alice': ['rol_admin', 'rol_viewer'], 'auth0|bob': ['rol_viewer'] },
    });

    const listed = await ws.cli('state', 'list', 'config');
    expect(listed.stdout).toContain('user_role["auth0|bob","rol_viewer"]');
    const again = await ws.cli('plan', 'config', '--refresh', ...target());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');

    ws.write('roles.yaml', roles(ALL.slice(0, 2)));
    const removal = await ws.cli('apply', 'config', '--auto-approve', ...target());
    expect(removal.code, removal.stderr).toBe(0);
    expect(removal.stdout).toContain(
      '- user role auth0|bob rol_viewer: removed\n      user_role["auth0|bob","rol_viewer"]',
    );
    expect(ws.emulator.snapshot()).toMatchObject({
      userRoles: { 'auth0|alice': ['rol_admin', 'rol_viewer'] },
    });

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
    expect(exported.stdout).toMatch(
      new RegExp(
        `Exported 0 rate limit policies, 0 token exchange profiles${LATER_KINDS_ZERO}, 1 permission and 2 user roles of 2 users to out:`,
      ),
    );
    const file = join(ws.dir, 'out', 'user-roles.yaml');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('role_id: rol_viewer');
    const check = await ws.cli('validate', 'out');
    expect(check.stdout).toMatch(
      new RegExp(
        `1 user permission \\(1 user\\), 0 token exchange profiles${LATER_KINDS_ZERO}, 2 user roles\\.\\n$`,
      ),
    );
    const settled = await ws.cli('plan', 'out', ...target());
    expect(settled.stdout).toContain('No changes.');
  });

  it('is named in Terraform-shaped plans, and a sealed plan of it applies', async () => {
    const json = await ws.cli('plan', 'config', '--format', 'terraform-json', ...target());
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as { resource_changes: { address: string; type: string }[] };
    expect(plan.resource_changes).toContainEqual(
      expect.objectContaining({
        type: 'tenantform_user_role',
        address: 'tenantform_user_role.user_roles["auth0|bob::rol_viewer"]',
      }),
    );

    const saved = await ws.cli('plan', 'config', '--out', 'roles.tfplan', ...target());
    expect(saved.code, saved.stderr).toBe(0);
    // Applied to the state it was made from, named (ws.dir's default state is not config's).
    const recorded = JSON.parse(readFileSync(join(ws.dir, 'roles.tfplan'), 'utf8')) as {
      state_location: { path: string };
    };
    const state = ['--state', recorded.state_location.path];
    const apply = await ws.cli('apply', 'roles.tfplan', '--auto-approve', ...target(), ...state);
    expect(apply.code, apply.stderr).toBe(0);
    expect(ws.emulator.snapshot()).toMatchObject({
      userRoles: { 'auth0|alice': ['rol_admin', 'rol_viewer'], 'auth0|bob': ['rol_viewer'] },
    });
  });

  it('reports a mistake in its config at file:line:col, with the allowed keys', async () => {
    ws.write('roles.yaml', 'user_roles:\n  - user_id: "auth0|alice"\n    role: rol_admin\n');
    const result = await ws.cli('validate', 'config');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'config/roles.yaml:3:5: unknown property "role" in a user role; allowed: user_id, role_id',
    );
  });
});
