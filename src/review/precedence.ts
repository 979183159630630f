/**
 * Which rate limit policy governs an application, by the service's
 * documented precedence: the first level that matches wins —
 *
 * 1. a `client_id:<id>` policy for that application (its own counter);
 * 2. else the policy of its group (`third_party_clients`, `cimd_clients`):
 *    one counter shared by every member of the group;
 * 3. else `default`: each application counted on its own at that limit;
 * 4. else none: only the tenant's own rate limit applies.
 *
 * And the reverse: which applications a policy governs. Pure: the policies
 * come from a configuration (policiesOf), the applications from the command
 * line (ids only) or from the tenant's list (`GET /clients`, with names).
 */
import {
  groupOf,
  type Application,
  type GroupSelector,
  type PolicyEntry,
  type SelectorScope,
} from './policy.js';

/** The level of precedence that matched: a policy of the application's own, its group's, default's, or none. */
export type Level = 'client' | 'group' | 'default' | 'none';

/**
 * Whose counter an application's requests count against: `own` (a
 * `client_id:` policy, or `default`, which counts each application on its
 * own), `shared` (one counter for the whole group), `none` (no policy).
 */
export type Counter = 'own' | 'shared' | 'none';

/** What governs one application. */
export interface ClientExplanation {
  application: Application;
  /** The group its client id puts it in, whether or not a policy names the group. */
  group: GroupSelector | null;
  level: Level;
  /** The winning policy; null at level `none`. */
  policy: PolicyEntry | null;
  counter: Counter;
  /** Broader policies that also name the application but lose to `policy`, most specific first. */
  overridden: PolicyEntry[];
}

/** Indexes made, by the list they index: a plan's review asks about one list once per change. */
const indexes = new WeakMap<readonly PolicyEntry[], Map<string, PolicyEntry>>();

/** The policy of each selector (the first one, should a configuration repeat a selector). */
function bySelector(policies: readonly PolicyEntry[]): Map<string, PolicyEntry> {
  const made = indexes.get(policies);
  if (made) return made;
  const out = new Map<string, PolicyEntry>();
  for (const p of policies) if (!out.has(p.selector)) out.set(p.selector, p);
  indexes.set(policies, out);
  return out;
}

const COUNTER: Record<Level, Counter> = { client: 'own', group: 'shared', default: 'own', none: 'none' };

function explainOne(application: Application, index: Map<string, PolicyEntry>): ClientExplanation {
  const group = groupOf(application.client_id);
  const candidates: [Level, PolicyEntry | undefined][] = [
    ['client', index.get(`client_id:${application.client_id}`)],
    ['group', group ? index.get(group) : undefined],
    ['default', index.get('default')],
  ];
  const matching = candidates.filter((c): c is [Level, PolicyEntry] => c[1] !== undefined);
  const [level, policy] = matching[0] ?? ['none', null];
  return {
    application,
    group,
    level,
    policy,
    counter: COUNTER[level],
    overridden: matching.slice(1).map(([, p]) => p),
  };
}

/**
 * The policy that governs the application `clientId` (explainClients'
 * `policy`), without the rest of the explanation: a plan's review asks this
 * for every policy it creates or removes.
 */
export function governingPolicy(policies: readonly PolicyEntry[], clientId: string): PolicyEntry | null {
  const index = bySelector(policies);
  const group = groupOf(clientId);
  return (
    index.get(`client_id:${clientId}`) ??
    (group ? index.get(group) : undefined) ??
    index.get('default') ??
    null
  );
}

/** For each application, in the order given: the policy that governs it, and how its requests are counted. */
export function explainClients(
  policies: readonly PolicyEntry[],
  applications: readonly Application[],
): ClientExplanation[] {
  const index = bySelector(policies);
  return applications.map((a) => explainOne(a, index));
}

/**
 * How the applications a policy governs are counted: `own` (one
 * application), `shared` (one counter for its group), `per-application`
 * (default: a counter per application at the same limit).
 */
export type ReachCounter = 'own' | 'shared' | 'per-application';

/** Which applications one policy governs. */
export interface PolicyReach {
  policy: PolicyEntry;
  counter: ReachCounter;
  /** Among the applications given, those the policy governs, in the order given. */
  governs: ClientExplanation[];
  /**
   * The more specific policies that take applications out of its reach: for
   * a group, the `client_id:` policies of ids in the group's form; for
   * `default`, every `client_id:` and group policy. None for a `client_id:` policy.
   */
  exceptions: PolicyEntry[];
}

const REACH_COUNTER: Record<SelectorScope['level'], ReachCounter> = {
  client: 'own',
  group: 'shared',
  default: 'per-application',
};

function exceptionsTo(scope: SelectorScope, policies: readonly PolicyEntry[]): PolicyEntry[] {
  switch (scope.level) {
    case 'client':
      return [];
    case 'group':
      return policies.filter((p) => p.scope.level === 'client' && groupOf(p.scope.clientId) === scope.group);
    case 'default':
      return policies.filter((p) => p.scope.level !== 'default');
  }
}

/**
 * The applications `policy` governs among `applications`, and the policies
 * that take others out of its reach. `policies` is the whole configuration
 * (it decides who wins); `policy` is one of them.
 */
export function reachOf(
  policy: PolicyEntry,
  policies: readonly PolicyEntry[],
  applications: readonly Application[],
): PolicyReach {
  const winner = bySelector(policies).get(policy.selector);
  const governs = explainClients(policies, applications).filter(
    (e) => e.policy !== null && e.policy === winner,
  );
  return {
    policy,
    counter: REACH_COUNTER[policy.scope.level],
    governs,
    exceptions: exceptionsTo(policy.scope, policies),
  };
}
