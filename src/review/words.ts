/**
 * The words a person reads about policies: what a configuration does, who a
 * selector names, how requests are counted. Written when output is rendered
 * (explain, plans), from the data of policy.ts and precedence.ts; never stored.
 */
import type { RateLimitPolicyConfiguration } from '../schemas/types.js';
import { limitOf, type GroupSelector, type SelectorScope } from './policy.js';
import type { Counter, Level } from './precedence.js';

/** A group's members in words, and the client id form that makes an application one. */
export const GROUP_WORDS: Record<
  GroupSelector,
  { member: string; members: string; idForm: string; idsForm: string }
> = {
  third_party_clients: {
    member: 'third-party application',
    members: 'third-party applications',
    idForm: 'its client id starts tpa_',
    idsForm: 'client ids starting tpa_',
  },
  cimd_clients: {
    member: 'CIMD client',
    members: 'CIMD clients',
    idForm: 'its client id is an https:// URI',
    idsForm: 'client ids that are https:// URIs',
  },
};

/**
 * What a configuration does over its limit: "block above 100/s", "block every
 * request (limit 0)", "log above 50/s, never blocks", "allow, no limit".
 */
export function actionWords(configuration: RateLimitPolicyConfiguration): string {
  const limit = limitOf(configuration);
  switch (configuration.action) {
    case 'allow':
      return 'allow, no limit';
    case 'log':
      return limit === 0 ? 'log every request, never blocks' : `log above ${limit}/s, never blocks`;
    case 'block':
      return limit === 0 ? 'block every request (limit 0)' : `block above ${limit}/s`;
    case 'redirect': {
      const to = 'redirect_uri' in configuration ? ` to ${configuration.redirect_uri}` : '';
      return limit === 0 ? `redirect every request${to} (limit 0)` : `redirect above ${limit}/s${to}`;
    }
  }
}

/** A short form for table cells: "block 100/s", "block 0/s", "log 50/s", "allow". */
export function actionShort(configuration: RateLimitPolicyConfiguration): string {
  const limit = limitOf(configuration);
  return limit === null ? configuration.action : `${configuration.action} ${limit}/s`;
}

/** Who a selector names: "client X", "all third-party applications", "every application without a policy of its own". */
export function scopeWords(scope: SelectorScope): string {
  switch (scope.level) {
    case 'client':
      return `client ${scope.clientId}`;
    case 'group':
      return `all ${GROUP_WORDS[scope.group].members}`;
    case 'default':
      return 'every application no other policy names';
  }
}

/** How the requests of an application governed at `level` are counted. */
export function counterWords(counter: Counter, level: Level, group: GroupSelector | null): string {
  if (counter === 'none') return "no policy: only the tenant's own rate limit applies";
  if (counter === 'shared' && group) return `one counter shared by all ${GROUP_WORDS[group].members}`;
  return level === 'default' ? 'its own counter (default counts each application apart)' : 'its own counter';
}

/** Which level matched, as a reader asks it: "its own policy", "its group's policy", "the default policy". */
export const LEVEL_WORDS: Record<Level, string> = {
  client: 'its own policy',
  group: "its group's policy",
  default: 'the default policy',
  none: 'no policy',
};
