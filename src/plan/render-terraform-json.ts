/**
 * A plan in the shape of Terraform's JSON plan representation (`terraform
 * show -json PLANFILE`, format_version 1.2, HashiCorp's "JSON Output Format"),
 * for the tools teams already run on plans (policy checks, cost and summary
 * bots). Resources are named as the Terraform auth0 provider names them (each
 * kind's `peers.terraform[0]`): `type` is the provider's resource type, `name`
 * the kind's config list, the index the identity (`::` between parts, as the
 * provider's import id of a user permission), `before` and `after` the
 * provider's attributes. Everything tenantform knows beyond that is under the
 * key `tenantform` (at the top and in each resource change), never in
 * Terraform's own keys.
 *
 * The envelope is Terraform's (`terraform show -json` of Terraform 1.7 and
 * later): format_version, terraform_version, planned_values,
 * resource_drift, resource_changes, prior_state, configuration,
 * relevant_attributes, timestamp, applyable, complete and errored, in that
 * order. `terraform_version` is the first Terraform release that writes
 * every action used here (1.7.0, for ["forget"]) with tenantform's own
 * version as semver build metadata (`1.7.0+tenantform.0.1.0`): tools that
 * compare versions see the format they know, and a person sees who wrote it.
 *
 * tenantform's actions become Terraform's: create ["create"], update
 * ["update"], replace ["delete","create"] (tenantform deletes first), delete
 * ["delete"], no-op ["no-op"], forget ["forget"] (Terraform 1.7's action for a
 * resource removed from management but left in place); blocked is ["no-op"]
 * with before = after = what stays on the tenant, since apply never makes
 * that change (the change wanted is in `tenantform.after`).
 */
import {
  fixedAttributes,
  kindOf,
  plainName,
  type Attributes,
  type KindModule,
  type KindName,
  type SettingNames,
} from '../resources/index.js';
import { assertNever } from './actions.js';
import { deepEqual } from './canonical.js';
import type { Drift } from './drift.js';
import { changeJson, planToJson } from './render-json.js';
import type { Action, Change, Plan, PlanReason } from './types.js';

/** The version of Terraform's JSON plan format this follows. */
export const TERRAFORM_JSON_FORMAT_VERSION = '1.2';

/** The first Terraform release whose `show -json` writes every action this renderer uses (["forget"]: 1.7). */
export const TERRAFORM_RELEASE = '1.7.0';

/** When and by which tenantform the plan was made: Terraform's `timestamp` and `terraform_version`. */
export interface TerraformJsonMade {
  /** When the plan was made (any form Date parses); written as RFC 3339 to the second, as Terraform does. */
  at: string;
  /** tenantform's version. */
  toolVersion: string;
  /** How the changes' reasons name a setting (src/cli: by its flag); neutral names by default. */
  names?: SettingNames;
}

const PROVIDER = 'registry.terraform.io/auth0/auth0';

/** Terraform's actions for a tenantform action. */
export function terraformActions(action: Action): string[] {
  switch (action) {
    case 'create':
      return ['create'];
    case 'update':
      return ['update'];
    case 'replace':
      return ['delete', 'create'];
    case 'delete':
      return ['delete'];
    case 'forget':
      return ['forget'];
    case 'blocked':
    case 'no-op':
      return ['no-op'];
    default:
      return assertNever(action);
  }
}

/** How a kind is named in Terraform's terms: the provider's type, and a values mapping. */
function terraformNaming(kind: KindName): {
  type: string;
  name: string;
  values: (a: Attributes) => Attributes;
} {
  const module = kindOf(kind);
  const type = module.peers?.terraform[0];
  return {
    type: type?.type ?? `tenantform_${module.name}`,
    name: module.config.key,
    values: type?.write ?? ((attributes) => attributes),
  };
}

/**
 * How Terraform names a resource: `address`
 * (`auth0_rate_limit_policy.rate_limit_policies["oauth_authentication_api::client::default"]`),
 * `mode`, `type`, `name`, `index` and `provider_name`.
 */
function addressFields(kind: KindName, identity: readonly string[]) {
  const naming = terraformNaming(kind);
  const index = identity.join('::');
  return {
    address: `${naming.type}.${naming.name}[${JSON.stringify(index)}]`,
    mode: 'managed',
    type: naming.type,
    name: naming.name,
    index,
    provider_name: PROVIDER,
  };
}

/** The provider's values for recorded or desired attributes, with the id when it is known. */
function valuesOf(kind: KindName, attributes: Attributes | null, id: string | null): Attributes | null {
  if (attributes === null) return null;
  const values = terraformNaming(kind).values(attributes);
  return id === null ? values : { id, ...values };
}

/**
 * Why the actions were chosen, in Terraform's reason codes; undefined when
 * there is nothing to say. A forget, like a delete, is chosen because the
 * resource left the configuration (Terraform says the same of a resource
 * that a `removed` block forgets).
 */
function actionReason(reason: PlanReason): string | undefined {
  switch (reason.code) {
    case 'replace-by-request':
      return 'replace_by_request';
    case 'replace-because-cannot-update':
    case 'replace-because-fixed':
      return 'replace_because_cannot_update';
    case 'delete-because-no-config':
    case 'forget-because-cannot-delete':
      return 'delete_because_no_resource_config';
    default:
      return undefined;
  }
}

/** The attributes that force a replace, from the reason's changed paths: Terraform's replace_paths. */
function replacePaths(kind: KindModule, reason: PlanReason): string[] {
  if (reason.code !== 'replace-because-cannot-update' && reason.code !== 'replace-because-fixed') return [];
  return fixedAttributes(kind, [...new Set(reason.paths.map((p) => p.split('.')[0]!))]);
}

/** The `change` object: actions, before and after, and what Terraform says beside them. */
function changeObject(change: Change): Record<string, unknown> {
  const kind = kindOf(change.kind);
  let before = valuesOf(change.kind, change.before, change.id);
  let after = valuesOf(change.kind, change.after, change.action === 'update' ? change.id : null);
  if (change.action === 'delete' || change.action === 'forget') after = null;
  if (change.action === 'no-op') after = before;
  if (change.action === 'blocked') {
    before ??= valuesOf(change.kind, change.after, null);
    after = before;
  }
  const object: Record<string, unknown> = {
    actions: terraformActions(change.action),
    before,
    after,
    // The server id is known only once the create is answered.
    after_unknown: after !== null && kind.id !== null && after.id === undefined ? { id: true } : {},
    before_sensitive: before === null ? false : {},
    after_sensitive: after === null ? false : {},
  };
  const paths = replacePaths(kind, change.reason);
  if (paths.length > 0) object.replace_paths = paths.map((p) => [p]);
  return object;
}

function resourceChange(change: Change, names: SettingNames): Record<string, unknown> {
  const reason = actionReason(change.reason);
  return {
    ...addressFields(change.kind, change.identity),
    change: changeObject(change),
    ...(reason ? { action_reason: reason } : {}),
    tenantform: changeJson(change, names),
  };
}

/** What tenantform found changed outside it (plan --refresh), as Terraform's resource_drift. */
function resourceDrift(drift: readonly Drift[]): Record<string, unknown>[] {
  return drift
    .filter((d) => d.drift !== 'unmanaged')
    .map((d) => {
      const before = valuesOf(d.kind, d.recorded, d.id);
      const after = d.drift === 'deleted' ? null : valuesOf(d.kind, d.live, d.id);
      return {
        ...addressFields(d.kind, d.identity),
        change: {
          actions: d.drift === 'deleted' ? ['delete'] : ['update'],
          before,
          after,
          after_unknown: {},
          before_sensitive: before === null ? false : {},
          after_sensitive: after === null ? false : {},
        },
      };
    });
}

/** The resources as they will be once the plan is applied (Terraform's planned_values). */
function plannedValues(plan: Plan): Record<string, unknown> {
  const resources = plan.changes
    .map((change) => ({ change, values: changeObject(change).after as Attributes | null }))
    .filter(({ values }) => values !== null)
    .map(({ change, values }) => ({
      ...addressFields(change.kind, change.identity),
      schema_version: 0,
      values,
      sensitive_values: {},
    }));
  return { root_module: { resources } };
}

/** The state the plan was made from (Terraform's prior_state): every resource recorded before it. */
function priorState(plan: Plan, version: string): Record<string, unknown> | undefined {
  const resources = plan.changes
    .filter((change) => change.before !== null && change.action !== 'create')
    .map((change) => ({
      ...addressFields(change.kind, change.identity),
      schema_version: 0,
      values: valuesOf(change.kind, change.before, change.id),
      sensitive_values: {},
    }));
  if (resources.length === 0) return undefined;
  return { format_version: '1.0', terraform_version: version, values: { root_module: { resources } } };
}

/**
 * The configuration as far as it maps (Terraform's configuration): the
 * provider, and one resource block per kind the plan has desired resources
 * of, each a `for_each` over the config's list (Terraform's expressions of
 * the values are left out: they are YAML here, not HCL).
 */
function configuration(plan: Plan): Record<string, unknown> {
  const kinds = [...new Set(plan.changes.filter((c) => c.after !== null).map((c) => c.kind))];
  const resources = kinds.map((kind) => {
    const naming = terraformNaming(kind);
    return {
      address: `${naming.type}.${naming.name}`,
      mode: 'managed',
      type: naming.type,
      name: naming.name,
      provider_config_key: 'auth0',
      schema_version: 0,
    };
  });
  return {
    provider_config: { auth0: { name: 'auth0', full_name: PROVIDER } },
    root_module: resources.length > 0 ? { resources } : {},
  };
}

/** The attributes changed outside tenantform that the plan's changes answer (Terraform's relevant_attributes). */
function relevantAttributes(drift: readonly Drift[] | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const d of drift ?? []) {
    if (d.drift !== 'changed' || d.recorded === null || d.live === null) continue;
    const naming = terraformNaming(d.kind);
    const before = naming.values(d.recorded);
    const after = naming.values(d.live);
    const { address } = addressFields(d.kind, d.identity);
    for (const key of Object.keys(after)
      .filter((k) => !deepEqual(before[k], after[k]))
      .sort()) {
      out.push({ resource: address, attribute: [key] });
    }
  }
  return out;
}

/** RFC 3339 to the second, in UTC, as Terraform writes its timestamp. */
function rfc3339(at: string): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The plan as Terraform's JSON plan representation (pretty, no trailing newline). */
export function renderTerraformJson(plan: Plan, made: TerraformJsonMade): string {
  const names = made.names ?? plainName;
  const native = planToJson(plan, undefined, names);
  const version = `${TERRAFORM_RELEASE}+tenantform.${made.toolVersion}`;
  const prior = priorState(plan, version);
  const relevant = relevantAttributes(plan.drift);
  const document = {
    format_version: TERRAFORM_JSON_FORMAT_VERSION,
    terraform_version: version,
    planned_values: plannedValues(plan),
    ...(plan.drift ? { resource_drift: resourceDrift(plan.drift) } : {}),
    resource_changes: plan.changes.map((change) => resourceChange(change, names)),
    ...(prior ? { prior_state: prior } : {}),
    configuration: configuration(plan),
    ...(relevant.length > 0 ? { relevant_attributes: relevant } : {}),
    timestamp: rfc3339(made.at),
    // As Terraform: a plan with nothing to apply is not applyable (a blocked change is never applied).
    applyable: plan.changes.some((c) => c.action !== 'no-op' && c.action !== 'blocked'),
    complete: plan.targets === undefined,
    errored: false,
    tenantform: {
      plan_format_version: native.format_version,
      api: native.api,
      state: native.state,
      ...(native.targets ? { targets: native.targets } : {}),
      ...(native.destroy ? { destroy: true } : {}),
      summary: native.summary,
      ...(native.drift ? { drift: native.drift } : {}),
    },
  };
  return JSON.stringify(document, null, 2);
}
