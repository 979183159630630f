/**
 * In-memory builders for plan tests: desired and recorded resources of every
 * kind, and state documents. Nothing here touches the disk.
 */
import {
  formatAddress,
  identityOf,
  kindOf,
  type Attributes,
  type DesiredResource,
  type KindName,
  type RecordedResource,
  type SourcePosition,
} from '../src/resources/index.js';
import type { StateDocument } from '../src/state/types.js';
import type { Action, Change, Plan, PlanReason } from '../src/plan/types.js';
import { planChanges } from '../src/plan/planner.js';
import { planRefreshed } from '../src/plan/drift.js';
import { liveResource } from '../src/resources/index.js';
import { checkChanges, checkConfig, type Finding } from '../src/review/index.js';

export function policy(
  selector: string,
  configuration: Attributes = { action: 'block', limit: 100 },
): Attributes {
  return {
    resource: 'oauth_authentication_api',
    consumer: 'client',
    consumer_selector: selector,
    configuration,
  };
}

export function permission(userId: string, server: string, name: string): Attributes {
  return { user_id: userId, resource_server_identifier: server, permission_name: name };
}

export function profile(
  subjectTokenType: string,
  fields: Partial<Record<'name' | 'action_id' | 'type', string>> = {},
): Attributes {
  return {
    name: fields.name ?? 'partner tokens',
    subject_token_type: subjectTokenType,
    action_id: fields.action_id ?? 'act_123',
    type: fields.type ?? 'custom_authentication',
  };
}

function named(
  kind: KindName,
  attributes: Attributes,
): { kind: KindName; address: string; identity: string[] } {
  const identity = identityOf(kindOf(kind), attributes);
  return { kind, address: formatAddress(kind, identity), identity };
}

export function desired(kind: KindName, attributes: Attributes, source?: SourcePosition): DesiredResource {
  return { ...named(kind, attributes), attributes, ...(source ? { source } : {}) };
}

export function recorded(
  kind: KindName,
  attributes: Attributes,
  extra: { id?: string | null; adopted?: boolean } = {},
): RecordedResource {
  return {
    ...named(kind, attributes),
    attributes,
    id: extra.id === undefined ? null : extra.id,
    ...(extra.adopted ? { adopted: true } : {}),
  };
}

export function stateDoc(
  resources: RecordedResource[],
  at: { lineage?: string; serial?: number } = {},
): StateDocument {
  return { format_version: 2, lineage: at.lineage ?? 'lineage-1', serial: at.serial ?? 1, resources };
}

/** A deterministic shuffle (seeded LCG), so "any order" tests are repeatable. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A small plan with every action once (and an adopted no-op):
 * delete, create, replace, create, forget, blocked, no-op.
 */
export function everyActionPlan() {
  return { desired: everyActionDesired(), state: everyActionState() };
}

/** Plans that, between them, have every action tenantform has. */
export function everyKindOfPlan(): Plan[] {
  const { desired: want, state } = everyActionPlan();
  const same = policy('default', { action: 'block', limit: 100 });
  const forced = planChanges(
    [desired('rate_limit_policy', same)],
    stateDoc([recorded('rate_limit_policy', same, { id: 'rlp_1' })]),
    { replace: ['rate_limit_policy["oauth_authentication_api","client","default"]'] },
  );
  const live = {
    reads: [{ kind: 'rate_limit_policy' as const, params: {} }],
    resources: [liveResource('rate_limit_policy', policy('default', { action: 'log', limit: 3 }), 'rlp_1')],
  };
  return [
    planChanges(want, state),
    planChanges(want, state, { api: 'full' }),
    forced,
    planChanges([], state, { destroy: true }),
    planRefreshed(want, state, live, { api: 'full' }).plan,
  ];
}

function everyActionDesired(): DesiredResource[] {
  return [
    desired('rate_limit_policy', policy('client_id:abc', { action: 'log', limit: 50 }), {
      file: 't.yaml',
      line: 3,
      col: 5,
    }),
    desired('rate_limit_policy', policy('default', { action: 'block', limit: 500 })),
    desired('rate_limit_policy', policy('third_party_clients')),
    desired('user_permission', permission('auth0|u1', 'https://api', 'read')),
    desired('token_exchange_profile', profile('urn:a', { name: 'new name' })),
  ];
}

function everyActionState(): StateDocument {
  return stateDoc(
    [
      recorded('rate_limit_policy', policy('cimd_clients'), { id: 'rlp_2' }),
      recorded('rate_limit_policy', policy('default', { action: 'block', limit: 100 }), { id: 'rlp_1' }),
      recorded('rate_limit_policy', policy('third_party_clients'), { adopted: true }),
      recorded('user_permission', permission('auth0|u2', 'https://api', 'write')),
      recorded('token_exchange_profile', profile('urn:a'), { id: 'tep_1' }),
    ],
    { lineage: 'L1', serial: 4 },
  );
}

/** The reason a change of `action` gets when a test does not say (changed paths none). */
const DEFAULT_REASONS: Record<Action, PlanReason> = {
  create: { code: 'create' },
  update: { code: 'update', paths: [] },
  delete: { code: 'delete-because-no-config' },
  replace: { code: 'replace-by-request' },
  forget: { code: 'forget-because-cannot-delete' },
  blocked: { code: 'cannot-change', paths: [] },
  'no-op': { code: 'no-op' },
};

/** A plan change of `kind` at `identity` with nothing before or after; `extra` sets the rest. */
export function planChange(
  kind: KindName,
  identity: string[],
  action: Action,
  extra: Partial<Change> = {},
): Change {
  return {
    address: formatAddress(kind, identity),
    kind,
    identity,
    action,
    before: null,
    after: null,
    id: null,
    adopted: false,
    reason: DEFAULT_REASONS[action],
    source: null,
    ...extra,
  };
}

/**
 * A plan (API profile full) with two risky updates and one that is not, and
 * the guardrails' findings made the way plan makes them, plus one about the
 * configuration as a whole: default block 100 → 0 (blocks everything, a
 * large cut, two warnings), third_party_clients log → block (starts
 * enforcing), client_id:web limit 1500 → 1200 (neither).
 */
export function riskyPlan(): Plan {
  const at = (line: number) => ({ file: 'p.yaml', line, col: 5 });
  const want = [
    desired('rate_limit_policy', policy('default', { action: 'block', limit: 0 }), at(2)),
    desired('rate_limit_policy', policy('third_party_clients', { action: 'block', limit: 20 }), at(6)),
    desired('rate_limit_policy', policy('client_id:web', { action: 'block', limit: 1200 }), at(10)),
  ];
  const state = stateDoc([
    recorded('rate_limit_policy', policy('default', { action: 'block', limit: 100 }), { id: 'rlp_1' }),
    recorded('rate_limit_policy', policy('third_party_clients', { action: 'log', limit: 20 }), {
      id: 'rlp_2',
    }),
    recorded('rate_limit_policy', policy('client_id:web', { action: 'block', limit: 1500 }), { id: 'rlp_3' }),
  ]);
  const plan = planChanges(want, state, { api: 'full' });
  const findings = [...checkConfig(want, { rules: {} }), ...checkChanges(plan.changes, { rules: {} })];
  const whole: Finding = {
    rule: 'no-default-policy',
    severity: 'warning',
    address: null,
    source: null,
    params: {},
  };
  return { ...plan, findings: [...findings, whole] };
}
