/**
 * A plan change in words, for the row a reviewer reads first: the
 * resource's short name (its kind's label: the selector, the user and
 * permission, the token type) and the change ("block → log", "limit 1500 →
 * 1200", "new, log 50/s"), and each effect as a sentence. Written when a
 * plan is shown, never stored.
 */
import { KINDS, type Attributes } from '../resources/index.js';
import type { RateLimitPolicyConfiguration } from '../schemas/types.js';
import type { ChangeView } from './check-changes.js';
import type { Effect } from './effects.js';
import { limitOf } from './policy.js';
import { actionShort, actionWords, GROUP_WORDS, scopeWords } from './words.js';

/** The short name of a change's resource, from its kind's declaration. */
export function changeLabel(change: { kind: string; identity: readonly string[] }): string {
  const kind = KINDS.find((k) => k.name === change.kind);
  return kind ? kind.label(change.identity) : change.identity.join(' ');
}

/** A value as a row shows it: a one-word string bare, anything else as JSON. */
function scalar(value: unknown): string {
  return typeof value === 'string' && /^\S+$/.test(value) ? value : (JSON.stringify(value) ?? 'null');
}

/** "name Partner SSO → Partner portal SSO" for each top-level attribute that differs. */
function fieldChanges(before: Attributes, after: Attributes): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => `${k} ${scalar(before[k])} → ${scalar(after[k])}`);
}

/** "block → log", "limit 1500 → 1200", "block 100/s → log 50/s", "redirect_uri a → b". */
function configurationChanges(
  before: RateLimitPolicyConfiguration,
  after: RateLimitPolicyConfiguration,
): string[] {
  const out: string[] = [];
  const [was, now] = [limitOf(before), limitOf(after)];
  if (before.action !== after.action) {
    out.push(
      was === now ? `${before.action} → ${after.action}` : `${actionShort(before)} → ${actionShort(after)}`,
    );
  } else if (was !== now) {
    out.push(`limit ${was} → ${now}`);
  }
  const uri = (c: RateLimitPolicyConfiguration) => ('redirect_uri' in c ? c.redirect_uri : null);
  if (before.action === after.action && uri(before) !== uri(after)) {
    out.push(`redirect_uri ${uri(before)} → ${uri(after)}`);
  }
  return out;
}

function configurationOf(attributes: Attributes | null): RateLimitPolicyConfiguration | null {
  return attributes && typeof attributes.configuration === 'object'
    ? (attributes.configuration as RateLimitPolicyConfiguration)
    : null;
}

/** What changes, in words: "new, block 100/s", "removed (was log 50/s)", "block → log", "name A → B", "unchanged". */
export function changeWords(change: ChangeView): string {
  const before = configurationOf(change.before);
  const after = configurationOf(change.after);
  switch (change.action) {
    case 'create':
      return after ? `new, ${actionShort(after)}` : 'new';
    case 'delete':
      return before ? `removed (was ${actionShort(before)})` : 'removed';
    case 'forget':
      return 'no longer tracked; stays on the tenant';
    case 'no-op':
      return 'unchanged';
    default: {
      if (!change.after) return 'cannot be removed';
      if (!change.before) return 'cannot be created';
      const words =
        before && after
          ? [
              ...configurationChanges(before, after),
              ...fieldChanges(
                { ...change.before, configuration: null },
                { ...change.after, configuration: null },
              ),
            ]
          : fieldChanges(change.before, change.after);
      return words.length > 0 ? words.join(', ') : 'replaced, no change';
    }
  }
}

const TIMES = ['', '', 'twice', 'three times', 'four times', 'five times'];

/** "allows twice as many requests: 1500 → 3000 per second", "allows 20% fewer requests: 1500 → 1200 per second". */
function limitChangeWords(from: number, to: number): string {
  const figures = `${from} → ${to} per second`;
  if (from === 0) return `allows requests again: ${figures}`;
  const ratio = to / from;
  if (to > from && Number.isInteger(ratio)) {
    return `allows ${TIMES[ratio] ?? `${ratio} times`} as many requests: ${figures}`;
  }
  const percent = Math.round(Math.abs(ratio - 1) * 100);
  return `allows ${percent}% ${to > from ? 'more' : 'fewer'} requests: ${figures}`;
}

/** An effect as a sentence: "blocks every sign-in of client X", "from log to enforcing (block at 20/s)", … */
export function effectWords(effect: Effect): string {
  switch (effect.code) {
    case 'blocks-every-request':
      return `blocks every sign-in of ${scopeWords(effect.scope)}`;
    case 'starts-enforcing': {
      const at = `${effect.action} at ${effect.limit}/s`;
      if (effect.from === 'none') return `enforcing from the start (${at}), with no log stage first`;
      return `from ${effect.from} to enforcing (${at})`;
    }
    case 'stops-enforcing':
      return effect.to === 'log'
        ? 'stops turning requests away: logs only'
        : 'stops turning requests away: no limit';
    case 'limit-cut':
      return `cuts the limit to under half (${effect.from} → ${effect.to}/s)`;
    case 'limit-change':
      return limitChangeWords(effect.from, effect.to);
    case 'counter':
      return effect.scope.level === 'group'
        ? `shared by all ${GROUP_WORDS[effect.scope.group].members}: one counter`
        : 'each application without a policy of its own is counted apart';
    // The row names the policy: a client's own says no subject, a group's or default's "its applications".
    case 'falls-back': {
      const one = effect.scope.level === 'client';
      if (!effect.to) {
        return `${one ? 'is' : 'its applications are'} no longer limited but by the tenant's own rate limit`;
      }
      return `${one ? 'falls' : 'its applications fall'} back to ${effect.to.selector}: ${actionWords(effect.to.configuration)}`;
    }
    case 'takes-over': {
      const one = effect.scope.level === 'client';
      if (!effect.from)
        return `${one ? 'is' : 'its applications are'} limited by a policy for the first time`;
      return `${one ? 'leaves' : 'its applications leave'} ${effect.from.selector} (${actionShort(effect.from.configuration)})`;
    }
  }
}

/** The name of a reference item (list, key) when one is known, escaped for output. */
export type NameOf = (list: string, key: string) => string | undefined;

/** What a permission change does: "grants read:reports on Reports API to auth0|bob". */
function permissionDoes(change: ChangeView, nameOf: NameOf): string[] {
  const a = change.after ?? change.before;
  if (!a) return [];
  const server = String(a.resource_server_identifier);
  const on = `${String(a.permission_name)} on ${nameOf('resource_server', server) ?? server}`;
  const user = String(a.user_id);
  switch (change.action) {
    case 'create':
      return [`grants ${on} to ${user}`];
    case 'delete':
      return [`takes ${on} from ${user}`];
    default:
      return [];
  }
}

/** What a profile change does: "exchanges urn:x tokens through Partner token exchange", "renames it". */
function profileDoes(change: ChangeView, nameOf: NameOf): string[] {
  const a = change.after ?? change.before;
  if (!a) return [];
  const action = (id: unknown) => nameOf('action', String(id)) ?? `Action ${String(id)}`;
  switch (change.action) {
    case 'create':
      return [`exchanges ${String(a.subject_token_type)} tokens through ${action(a.action_id)}`];
    case 'delete':
      return [`stops exchanging ${String(a.subject_token_type)} tokens`];
    case 'blocked':
      return ['nothing: no operation can make this change'];
    case 'update':
    case 'replace': {
      const b = change.before ?? {};
      const out: string[] = [];
      if (b.action_id !== a.action_id)
        out.push(`runs ${action(a.action_id)} instead of ${action(b.action_id)}`);
      if (b.name !== a.name) out.push('renames it');
      if (b.type !== a.type) out.push(`makes it a ${String(a.type)} profile`);
      return out;
    }
    default:
      return [];
  }
}

/**
 * What a change of a kind without effects (effects.ts) does, in words, so
 * that every change says it: a permission granted or kept, a profile's
 * Action, name or type. Empty for a rate limit policy (its effects say it),
 * and for a forget (its words say it: it stays on the tenant).
 */
export function changeDoes(change: ChangeView, nameOf: NameOf = () => undefined): string[] {
  if (change.action === 'no-op') return [];
  if (change.kind === 'user_permission') return permissionDoes(change, nameOf);
  if (change.kind === 'token_exchange_profile') return profileDoes(change, nameOf);
  return [];
}
