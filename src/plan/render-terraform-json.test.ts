import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  desired,
  everyActionPlan,
  everyKindOfPlan,
  permission,
  profile,
  recorded,
  stateDoc,
} from '../../test/plan-builders.js';
import { ACTIONS } from './actions.js';
import { deepEqual } from './canonical.js';
import { planChanges } from './planner.js';
import { renderTerraformJson } from './render-terraform-json.js';
import type { Plan } from './types.js';

const schema = JSON.parse(readFileSync('test/fixtures/terraform-plan-json.schema.json', 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

interface ResourceChange {
  address: string;
  type: string;
  name: string;
  index: string;
  change: {
    actions: string[];
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    replace_paths?: string[][];
    after_unknown: Record<string, unknown>;
  };
  action_reason?: string;
  tenantform: { action: string; address: string; reason: string; after: unknown };
}

interface TerraformPlan {
  format_version: string;
  terraform_version: string;
  timestamp: string;
  applyable: boolean;
  complete: boolean;
  prior_state?: {
    values: { root_module: { resources: { address: string; values: Record<string, unknown> }[] } };
  };
  configuration: { provider_config: unknown; root_module: { resources?: { address: string }[] } };
  relevant_attributes?: { resource: string; attribute: (string | number)[] }[];
  resource_changes: ResourceChange[];
  resource_drift?: ResourceChange[];
  planned_values: { root_module: { resources: { address: string; values: Record<string, unknown> }[] } };
  tenantform: Record<string, unknown>;
}

const MADE = { at: '2026-03-04T05:06:07.890Z', toolVersion: '0.1.0' };

function rendered(plan: Plan): TerraformPlan {
  const document: unknown = JSON.parse(renderTerraformJson(plan, MADE));
  const valid = validate(document);
  expect(validate.errors ?? [], 'the output matches the schema written from Terraform’s docs').toEqual([]);
  expect(valid).toBe(true);
  return document as TerraformPlan;
}

/**
 * HashiCorp's terraform-json testdata as Debian installs it (package
 * golang-github-hashicorp-terraform-json-dev, which .ci/run installs): plan.json
 * files the terraform CLI made (terraform 0.12.6, `terraform show -json`).
 * Read where the package puts them, never copied into this repository.
 */
const TERRAFORM_JSON_TESTDATA = '/usr/share/gocode/src/github.com/hashicorp/terraform-json/testdata';

function installedPlans(): string[] {
  if (!existsSync(TERRAFORM_JSON_TESTDATA)) return [];
  return readdirSync(TERRAFORM_JSON_TESTDATA)
    .map((dir) => join(TERRAFORM_JSON_TESTDATA, dir, 'plan.json'))
    .filter((file) => existsSync(file));
}

const INSTALLED = installedPlans();
// Without the package a local run skips these (and says so); CI (CI set) fails instead.
const withPackage = INSTALLED.length === 0 && !process.env.CI ? describe.skip : describe;
if (INSTALLED.length === 0 && !process.env.CI)
  console.warn(
    'skipping the real Terraform plans: apt-get install golang-github-hashicorp-terraform-json-dev',
  );

function expectAccepted(file: string): void {
  const plan: unknown = JSON.parse(readFileSync(file, 'utf8'));
  validate(plan);
  expect(validate.errors ?? [], file).toEqual([]);
}

describe('the schema written from Terraform’s docs', () => {
  it.each(['cli/moved-block.terraform-1.5.3.plan.json', 'cli/has-checks.terraform-1.5.4.plan.json'])(
    'accepts %s, made by the terraform CLI (format 1.2)',
    (file) => expectAccepted(`test/fixtures/terraform/${file}`),
  );

  it('accepts auth0-changes.plan.json, written by hand for the actions no real plan here has (forget, replace)', () => {
    expectAccepted('test/fixtures/terraform/auth0-changes.plan.json');
  });
});

withPackage('the schema and the plans terraform 0.12 made (Debian’s terraform-json testdata)', () => {
  it('finds them installed', () => {
    expect(
      INSTALLED.length,
      `plan.json files under ${TERRAFORM_JSON_TESTDATA}: install golang-github-hashicorp-terraform-json-dev`,
    ).toBeGreaterThanOrEqual(10);
  });

  it.each(INSTALLED.length > 0 ? INSTALLED : ['(none installed)'])('accepts %s', (file) =>
    expectAccepted(file),
  );
});

describe('renderTerraformJson', () => {
  it('writes Terraform’s envelope: terraform_version, timestamp to the second, applyable, complete, errored, configuration', () => {
    const { desired: want, state } = everyActionPlan();
    const doc = rendered(planChanges(want, state));
    expect(Object.keys(doc)).toEqual([
      'format_version',
      'terraform_version',
      'planned_values',
      'resource_changes',
      'prior_state',
      'configuration',
      'timestamp',
      'applyable',
      'complete',
      'errored',
      'tenantform',
    ]);
    expect(doc.terraform_version).toBe('1.7.0+tenantform.0.1.0');
    expect(doc.timestamp).toBe('2026-03-04T05:06:07Z');
    expect(doc.applyable).toBe(true);
    expect(doc.configuration.provider_config).toEqual({
      auth0: { name: 'auth0', full_name: 'registry.terraform.io/auth0/auth0' },
    });
    expect(doc.configuration.root_module.resources?.map((r) => r.address)).toEqual([
      'auth0_rate_limit_policy.rate_limit_policies',
      'auth0_user_permission.user_permissions',
      'auth0_token_exchange_profile.token_exchange_profiles',
    ]);
  });

  it('a plan with nothing to apply, or only blocked changes, is not applyable, and has no prior_state without a state', () => {
    const empty = rendered(planChanges([], null));
    expect(empty.applyable).toBe(false);
    expect(empty.prior_state).toBeUndefined();
    expect(empty.configuration).toEqual({
      provider_config: { auth0: { name: 'auth0', full_name: 'registry.terraform.io/auth0/auth0' } },
      root_module: {},
    });
    const same = profile('urn:a');
    const noop = rendered(
      planChanges(
        [desired('token_exchange_profile', same)],
        stateDoc([recorded('token_exchange_profile', same, { id: 'tep_1' })]),
      ),
    );
    expect(noop.applyable).toBe(false);
  });

  it('prior_state holds every recorded resource with its id, as the state had it before the plan', () => {
    const { desired: want, state } = everyActionPlan();
    const doc = rendered(planChanges(want, state));
    const prior = doc.prior_state!.values.root_module.resources;
    expect(prior.length).toBe(state.resources.length);
    const forgotten = doc.resource_changes.find((rc) => rc.tenantform.action === 'forget')!;
    expect(prior.find((r) => r.address === forgotten.address)?.values).toEqual(forgotten.change.before);
  });

  it('names the attributes changed outside tenantform in relevant_attributes after --refresh', () => {
    const refreshed = rendered(everyKindOfPlan()[4]!);
    expect(refreshed.relevant_attributes).toEqual([
      {
        resource: 'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::default"]',
        attribute: ['configuration'],
      },
    ]);
  });

  it('matches the schema of Terraform’s JSON plan format for every action tenantform has', () => {
    const seen = new Set<string>();
    for (const plan of everyKindOfPlan()) {
      const doc = rendered(plan);
      expect(doc.format_version).toBe('1.2');
      for (const rc of doc.resource_changes) seen.add(rc.tenantform.action);
    }
    expect([...seen].sort()).toEqual([...ACTIONS].sort());
  });

  it.each([
    ['create', ['create']],
    ['update', ['update']],
    ['replace', ['delete', 'create']],
    ['delete', ['delete']],
    ['forget', ['forget']],
    ['blocked', ['no-op']],
    ['no-op', ['no-op']],
  ])('maps %s to %j', (action, actions) => {
    const changes = everyKindOfPlan().flatMap((plan) => rendered(plan).resource_changes);
    const mine = changes.filter((rc) => rc.tenantform.action === action);
    expect(mine.length).toBeGreaterThan(0);
    for (const rc of mine) expect(rc.change.actions).toEqual(actions);
  });

  it('names resources as the provider does, with tenantform’s own fields under "tenantform"', () => {
    const { desired: want, state } = everyActionPlan();
    const doc = rendered(planChanges(want, state));
    const create = doc.resource_changes.find((rc) => rc.tenantform.action === 'create')!;
    expect(create.address).toBe(
      'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::client_id:abc"]',
    );
    expect(create.type).toBe('auth0_rate_limit_policy');
    expect(create.name).toBe('rate_limit_policies');
    expect(create.change.before).toBeNull();
    expect(create.change.after).toEqual({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'client_id:abc',
      configuration: [{ action: 'log', limit: 50, redirect_uri: null }],
    });
    expect(create.change.after_unknown).toEqual({ id: true });
    expect(create.tenantform.address).toBe(
      'rate_limit_policy["oauth_authentication_api","client","client_id:abc"]',
    );
    const forget = doc.resource_changes.find((rc) => rc.tenantform.action === 'forget')!;
    expect(forget.type).toBe('auth0_user_permission');
    expect(forget.change.before).toEqual({
      user_id: 'auth0|u2',
      resource_server_identifier: 'https://api',
      permission: 'write',
    });
    expect(Object.keys(doc.tenantform)).toEqual(['plan_format_version', 'api', 'state', 'summary']);
    const addresses = doc.resource_changes.map((rc) => rc.address);
    expect(new Set(addresses).size).toBe(addresses.length);
  });

  it('a no-op and a blocked change have before equal to after; the change a blocked one wanted stays in tenantform', () => {
    const { desired: want, state } = everyActionPlan();
    const doc = rendered(planChanges(want, state));
    for (const rc of doc.resource_changes.filter((r) => r.change.actions[0] === 'no-op')) {
      expect(deepEqual(rc.change.before, rc.change.after)).toBe(true);
    }
    const blocked = doc.resource_changes.find((rc) => rc.tenantform.action === 'blocked')!;
    expect(blocked.change.before).toMatchObject({ id: 'tep_1', name: 'partner tokens' });
    expect(blocked.tenantform.after).toMatchObject({ name: 'new name' });
  });

  it('says why a replace or a delete was chosen, and which attributes force the replace', () => {
    const plans = everyKindOfPlan();
    const spec = rendered(plans[0]!);
    const replace = spec.resource_changes.find((rc) => rc.tenantform.action === 'replace')!;
    expect(replace.action_reason).toBe('replace_because_cannot_update');
    const full = rendered(
      planChanges(
        [desired('token_exchange_profile', profile('urn:a', { action_id: 'act_9' }))],
        stateDoc([recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_1' })]),
        { api: 'full' },
      ),
    );
    expect(full.resource_changes[0]!.change.replace_paths).toEqual([['action_id']]);
    const forced = rendered(plans[2]!).resource_changes.find(
      (rc) => rc.action_reason === 'replace_by_request',
    );
    expect(forced?.tenantform.address).toContain('default');
    expect(forced?.change.replace_paths).toBeUndefined();
    const deleted = spec.resource_changes.find((rc) => rc.tenantform.action === 'delete')!;
    expect(deleted.action_reason).toBe('delete_because_no_resource_config');
    const forgotten = spec.resource_changes.find((rc) => rc.tenantform.action === 'forget')!;
    expect(forgotten.action_reason).toBe('delete_because_no_resource_config');
    const destroy = rendered(plans[3]!);
    expect(destroy.resource_changes.every((rc) => rc.action_reason === undefined)).toBe(true);
    expect(destroy.tenantform.destroy).toBe(true);
  });

  it('puts drift read from the tenant in resource_drift, and every resource that stays in planned_values', () => {
    const refreshed = rendered(everyKindOfPlan()[4]!);
    expect(refreshed.resource_drift?.map((d) => [d.address, d.change.actions])).toEqual([
      [
        'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::cimd_clients"]',
        ['delete'],
      ],
      [
        'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::default"]',
        ['update'],
      ],
      [
        'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::third_party_clients"]',
        ['delete'],
      ],
    ]);
    const planned = refreshed.planned_values.root_module.resources.map((r) => r.address);
    expect(planned).toContain(
      'auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::default"]',
    );
    expect(planned.some((a) => a.includes('cimd_clients'))).toBe(false);
  });

  it('a permission keeps user, server and name as the provider names them', () => {
    const doc = rendered(
      planChanges([desired('user_permission', permission('auth0|u1', 'https://api', 'read'))], null),
    );
    expect(doc.resource_changes[0]!.address).toBe(
      'auth0_user_permission.user_permissions["auth0|u1::https://api::read"]',
    );
    expect(doc.resource_changes[0]!.change.after_unknown).toEqual({});
  });
});
