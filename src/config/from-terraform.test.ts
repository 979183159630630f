import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTerraformState, terraformAddressesToForget } from './from-terraform.js';

const FIXTURE = 'test/fixtures/peers/terraform/terraform.tfstate';
const text = readFileSync(FIXTURE, 'utf8');

/** The fixture with `change` applied to its parsed form. */
function edited(change: (state: { resources: Record<string, unknown>[] } & Record<string, unknown>) => void) {
  const state = JSON.parse(text) as { resources: Record<string, unknown>[] } & Record<string, unknown>;
  change(state);
  return JSON.stringify(state, null, 2);
}

function resource(state: { resources: Record<string, unknown>[] }, type: string, name: string) {
  const found = state.resources.find((r) => r.type === type && r.name === name);
  if (!found) throw new Error(`no ${type}.${name}`);
  return found as { instances: { attributes: Record<string, unknown> }[] } & Record<string, unknown>;
}

describe('readTerraformState', () => {
  it('reads the provider types tenantform manages, with their ids, and skips the rest', () => {
    const read = readTerraformState(text, FIXTURE);
    expect(read.issues).toEqual([]);
    expect(read.resources.map((r) => [r.origin, r.address, r.id])).toEqual([
      [
        'auth0_rate_limit_policy.default',
        'rate_limit_policy["oauth_authentication_api","client","default"]',
        'rlp_tfDefault0001',
      ],
      [
        'auth0_rate_limit_policy.partner_app',
        'rate_limit_policy["oauth_authentication_api","client","client_id:Wq2eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC"]',
        'rlp_tfPartner0002',
      ],
      [
        'auth0_rate_limit_policy.per_app[0]',
        'rate_limit_policy["oauth_authentication_api","client","third_party_clients"]',
        'rlp_tfPerApp0003',
      ],
      [
        'auth0_rate_limit_policy.per_app[1]',
        'rate_limit_policy["oauth_authentication_api","client","cimd_clients"]',
        'rlp_tfPerApp0004',
      ],
      [
        'auth0_token_exchange_profile.partner_sso',
        'token_exchange_profile["urn:partner:sso-token"]',
        'tep_tfPartnerSso',
      ],
      [
        'module.reviewers.auth0_user_permissions.alice',
        'user_permission["auth0|alice","https://api.example.com/","read:reports"]',
        null,
      ],
      [
        'module.reviewers.auth0_user_permissions.alice',
        'user_permission["auth0|alice","https://api.example.com/","write:reports"]',
        null,
      ],
      [
        'auth0_user_permission.bob_read',
        'user_permission["auth0|bob","https://api.example.com/","read:reports"]',
        null,
      ],
    ]);
    expect(read.skipped.map((s) => s.what)).toEqual([
      'data.auth0_tenant.current',
      'auth0_client.partner_app',
      'auth0_client_credentials.partner_app',
      'auth0_rate_limit_policy.secret_redirect',
    ]);
    expect(read.skipped[3]!.why).toContain('redirect_uri');
  });

  it('keeps only the configuration fields the action allows (the provider stores unset ones as 0 and "")', () => {
    const read = readTerraformState(text, FIXTURE);
    const configuration = (origin: string) =>
      read.resources.find((r) => r.origin === origin)!.attributes.configuration;
    expect(configuration('auth0_rate_limit_policy.default')).toEqual({ action: 'block', limit: 100 });
    expect(configuration('auth0_rate_limit_policy.per_app[0]')).toEqual({ action: 'allow' });
    expect(configuration('auth0_rate_limit_policy.per_app[1]')).toEqual({ action: 'log', limit: 0 });
    expect(configuration('auth0_rate_limit_policy.partner_app')).toEqual({
      action: 'redirect',
      limit: 1500,
      redirect_uri: 'https://partner.example.com/slow-down',
    });
  });

  it('never copies a sensitive value', () => {
    const read = readTerraformState(text, FIXTURE);
    expect(JSON.stringify(read)).not.toContain('SECRET');
  });

  it('a sensitive attribute tenantform does not need is left out without skipping the resource', () => {
    const state = edited((s) => {
      const rlp = resource(s, 'auth0_rate_limit_policy', 'default');
      (rlp.instances[0] as Record<string, unknown>).sensitive_attributes = [
        [{ type: 'get_attr', value: 'updated_at' }],
      ];
    });
    const read = readTerraformState(state, 'state.json');
    expect(read.resources.some((r) => r.origin === 'auth0_rate_limit_policy.default')).toBe(true);
  });

  it('merges one permission granted by both permission resources', () => {
    const state = edited((s) => {
      s.resources.push({
        mode: 'managed',
        type: 'auth0_user_permission',
        name: 'alice_read',
        provider: 'provider["registry.terraform.io/auth0/auth0"]',
        instances: [
          {
            schema_version: 0,
            attributes: {
              id: 'auth0|alice::https://api.example.com/::read:reports',
              user_id: 'auth0|alice',
              resource_server_identifier: 'https://api.example.com/',
              permission: 'read:reports',
            },
          },
        ],
      });
    });
    const read = readTerraformState(state, 'state.json');
    expect(read.issues).toEqual([]);
    expect(read.resources.filter((r) => r.kind === 'user_permission')).toHaveLength(3);
  });

  it.each([
    ['not JSON', text.replace('"serial": 42,', '"serial": 42'), /^not JSON: /, 5],
    [
      'another format version',
      edited((s) => (s.version = 3)),
      /this one is 3: run terraform apply -refresh-only with a current Terraform/,
      2,
    ],
    [
      'a policy without consumer',
      edited(
        (s) => delete resource(s, 'auth0_rate_limit_policy', 'default').instances[0]!.attributes.consumer,
      ),
      /^auth0_rate_limit_policy\.default: missing "consumer"$/,
      0,
    ],
    [
      'a profile without action_id',
      edited(
        (s) =>
          delete resource(s, 'auth0_token_exchange_profile', 'partner_sso').instances[0]!.attributes
            .action_id,
      ),
      /^auth0_token_exchange_profile\.partner_sso: missing "action_id"$/,
      0,
    ],
    [
      'a limit the API refuses',
      edited((s) => {
        const block = resource(s, 'auth0_rate_limit_policy', 'default').instances[0]!.attributes
          .configuration as {
          limit: number;
        }[];
        block[0]!.limit = 20000;
      }),
      /^auth0_rate_limit_policy\.default\.configuration\.limit: limit must be at most 10000$/,
      0,
    ],
    [
      'an id of another form',
      edited(
        (s) => (resource(s, 'auth0_rate_limit_policy', 'default').instances[0]!.attributes.id = 'policy-1'),
      ),
      /^auth0_rate_limit_policy\.default: id "policy-1" is not a rate limit policy id/,
      0,
    ],
    [
      'resources not a list',
      edited((s) => ((s as Record<string, unknown>).resources = {})),
      /^"resources" must be a list$/,
      0,
    ],
    [
      'two policies of one identity',
      edited((s) => {
        const copy = structuredClone(resource(s, 'auth0_rate_limit_policy', 'default'));
        copy.name = 'default_again';
        copy.instances[0]!.attributes.id = 'rlp_tfAgain0009';
        s.resources.push(copy);
      }),
      /^auth0_rate_limit_policy\.default_again and auth0_rate_limit_policy\.default are the same rate_limit_policy\[/,
      0,
    ],
  ])('refuses %s, naming where (and returns no resource)', (_what, state, message, line) => {
    const read = readTerraformState(state, 'state.json');
    expect(read.resources).toEqual([]);
    expect(read.issues).toHaveLength(1);
    const issue = read.issues[0]!;
    expect(issue.file).toBe('state.json');
    expect(issue.message).toMatch(message);
    expect(issue.line).toBeGreaterThan(0);
    if (line > 0) expect(issue.line).toBe(line);
  });

  it('points at the line of the missing field', () => {
    const state = edited(
      (s) => delete resource(s, 'auth0_rate_limit_policy', 'default').instances[0]!.attributes.consumer,
    );
    const [issue] = readTerraformState(state, 'state.json').issues;
    const lines = state.split('\n');
    // The instance's attributes object starts on the reported line.
    expect(lines[issue!.line - 1]).toContain('"attributes"');
  });

  it('an instance with only flat attributes (before Terraform 0.12) asks for an upgrade', () => {
    const state = edited((s) => {
      const instance = resource(s, 'auth0_token_exchange_profile', 'partner_sso').instances[0] as Record<
        string,
        unknown
      >;
      instance.attributes_flat = { name: 'Partner SSO' };
      delete instance.attributes;
    });
    const [issue] = readTerraformState(state, 'state.json').issues;
    expect(issue!.message).toContain('flat attributes (a state from before Terraform 0.12)');
  });

  it('skips a deposed object and a resource of a type it does not manage without complaint', () => {
    const state = edited((s) => {
      const rlp = resource(s, 'auth0_rate_limit_policy', 'default');
      (rlp.instances as unknown[]).push({ ...rlp.instances[0], deposed: '00000001' });
      s.resources.push({
        mode: 'managed',
        type: 'auth0_connection',
        name: 'db',
        instances: [{ attributes: {} }],
      });
    });
    const read = readTerraformState(state, 'state.json');
    expect(read.issues).toEqual([]);
    expect(read.skipped.map((s) => s.what)).toContain('auth0_rate_limit_policy.default (deposed 00000001)');
    expect(read.skipped.map((s) => s.what)).toContain('auth0_connection.db');
  });

  it('names a resource whole when every instance was read, else each instance read, keys kept', () => {
    const found = (origin: string) => ({ origin }) as never;
    const addresses = terraformAddressesToForget({
      resources: [
        found('auth0_rate_limit_policy.whole["a"]'),
        found('auth0_rate_limit_policy.whole["b]\\"][\\"c"]'),
        found('module.m["k"].auth0_rate_limit_policy.part[0]'),
        found('module.m["k"].auth0_rate_limit_policy.part[2]'),
        found('auth0_rate_limit_policy.single'),
      ],
      skipped: [
        { what: 'module.m["k"].auth0_rate_limit_policy.part[1]', type: 't', why: 'w' },
        { what: 'auth0_rate_limit_policy.single (deposed 0001)', type: 't', why: 'w' },
      ],
    });
    expect(addresses).toEqual([
      'auth0_rate_limit_policy.whole',
      'module.m["k"].auth0_rate_limit_policy.part[0]',
      'module.m["k"].auth0_rate_limit_policy.part[2]',
      'auth0_rate_limit_policy.single',
    ]);
  });
});
