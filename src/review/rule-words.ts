/**
 * The sentence of each finding, written when it is shown (validate, plan,
 * apply) from the finding's rule and params; never stored.
 */
import { scopeOf } from './policy.js';
import type { Finding, RuleCode } from './rules.js';
import { scopeWords } from './words.js';

type Params = Finding['params'];

const str = (p: Params, key: string): string => String(p[key] ?? '');

const MESSAGES: Record<RuleCode, (p: Params) => string> = {
  'token-type-scheme': (p) =>
    `subject_token_type "${str(p, 'value')}" must start with https:// or urn: — the service refuses any other form`,
  'token-type-reserved': (p) =>
    `subject_token_type "${str(p, 'value')}" is in the namespace ${str(p, 'namespace')}, which the service reserves and refuses: use one you own, such as urn:<your-company>:<token-name>`,
  'shared-limit-zero': (p) => {
    const scope = scopeOf(str(p, 'selector'));
    const who = scope ? scopeWords(scope) : str(p, 'selector');
    return `${str(p, 'selector')} has limit 0 with ${str(p, 'action')}: every sign-in of ${who} is refused`;
  },
  'no-default-policy': () =>
    "no rate limit policy for default: an application no policy names (and not in a group that has one) has no limit but the tenant's own; add consumer_selector: default, in log first",
  'redirect-host': (p) =>
    `${str(p, 'selector')} redirects to ${str(p, 'host')}, which is not in guardrails.redirect_hosts (${str(p, 'allowed') || 'empty'})`,
  'enforce-without-log': (p) => {
    const how = `${str(p, 'action')} at ${str(p, 'limit')}/s`;
    const change =
      str(p, 'from') === 'none' ? `starts enforcing (${how})` : `moves from ${str(p, 'from')} to ${how}`;
    const said = `${str(p, 'selector')} ${change} with no log stage recorded first: the docs advise running a new limit in log, and setting it at 2–3× the observed peak`;
    // plan --simulate: the logs read answer it when the limit is at least twice their peak.
    return p.observed_peak === undefined
      ? said
      : `${said}; the logs read answer it: ${str(p, 'limit')}/s is at least twice their peak of ${str(p, 'observed_peak')}/s`;
  },
  'limit-cut': (p) =>
    `${str(p, 'selector')}: limit ${str(p, 'from')} → ${str(p, 'to')}/s, under half the recorded value`,
};

/** The finding's sentence, without its position or code. */
export function findingMessage(finding: Pick<Finding, 'rule' | 'params'>): string {
  return MESSAGES[finding.rule](finding.params);
}
