/**
 * The guardrails: named rules over a configuration (stage `config`: what
 * `validate` checks) and over a plan's changes (stage `plan`: what needs the
 * recorded values too), each with a stable code, a default severity, and a
 * finding per problem as data (the sentence is written by rule-words.ts when
 * it is shown). A repository sets a rule's severity or turns it off in
 * tenantform.yaml (GuardrailSettings); --strict makes every warning an error.
 */
import type { SourcePosition } from '../resources/index.js';

export type Severity = 'error' | 'warning';

/** What tenantform.yaml may set a rule to. */
export type RuleSetting = Severity | 'off';

export const RULE_SETTINGS: readonly RuleSetting[] = ['error', 'warning', 'off'];

/** `config`: checked on the configuration alone (validate, plan, apply); `plan`: on changes against the state (plan, apply). */
export type Stage = 'config' | 'plan';

export interface Rule {
  code: string;
  severity: Severity;
  stage: Stage;
  /** What the rule catches, in one line (docs, --help). */
  summary: string;
}

/** Every rule, in the order docs and output list them. */
export const RULES = [
  {
    code: 'token-type-scheme',
    severity: 'error',
    stage: 'config',
    summary:
      "a token exchange profile's subject_token_type does not start with https:// or urn: (the service refuses it)",
  },
  {
    code: 'token-type-reserved',
    severity: 'error',
    stage: 'config',
    summary:
      'a subject_token_type in a namespace the service reserves: http(s)://auth0.com, http(s)://okta.com, urn:ietf, urn:auth0, urn:okta (the service refuses it)',
  },
  {
    code: 'shared-limit-zero',
    severity: 'warning',
    stage: 'config',
    summary:
      'limit 0 with block or redirect on default or a group: every sign-in of many applications is refused',
  },
  {
    code: 'no-default-policy',
    severity: 'warning',
    stage: 'config',
    summary:
      "rate limit policies but none for default: an application no policy names has no limit but the tenant's",
  },
  {
    code: 'redirect-host',
    severity: 'warning',
    stage: 'config',
    summary:
      'a redirect_uri whose host is not in guardrails.redirect_hosts (only when tenantform.yaml declares that list)',
  },
  {
    code: 'enforce-without-log',
    severity: 'warning',
    stage: 'plan',
    summary:
      'a policy created enforcing (block, redirect), or moved to enforcing, without a log stage recorded first (the docs advise log first)',
  },
  {
    code: 'limit-cut',
    severity: 'warning',
    stage: 'plan',
    summary: "a policy's limit lowered to under half its recorded value",
  },
] as const satisfies readonly Rule[];

export type RuleCode = (typeof RULES)[number]['code'];

export const RULE_CODES: readonly RuleCode[] = RULES.map((r) => r.code);

export function isRuleCode(text: string): text is RuleCode {
  return (RULE_CODES as readonly string[]).includes(text);
}

export function ruleOf(code: RuleCode): (typeof RULES)[number] {
  return RULES.find((r) => r.code === code)!;
}

/** One problem a rule found: data; rule-words.ts writes its sentence. */
export interface Finding {
  rule: RuleCode;
  severity: Severity;
  /** The resource it concerns, or null when it concerns the configuration as a whole. */
  address: string | null;
  /** Where to look: the resource's declaration (or the first policy's, for the whole configuration). */
  source: SourcePosition | null;
  /** The values the sentence is written from; which ones depends on the rule. */
  params: Readonly<Record<string, string | number>>;
}

/** What a repository decides about the rules (tenantform.yaml `guardrails`, the environment's over the project's). */
export interface GuardrailSettings {
  /** A severity, or off, per rule code; a rule not named keeps its default. */
  rules: Readonly<Partial<Record<RuleCode, RuleSetting>>>;
  /** Hosts a redirect_uri may name (`*.example.com`: any host below example.com); absent: not checked. */
  redirectHosts?: readonly string[];
  /** --strict: every warning is an error. */
  strict?: boolean;
}

export const DEFAULT_SETTINGS: GuardrailSettings = { rules: {} };

/** What a rule counts as under these settings: its default, the repository's choice, and --strict on top. */
export function severityOf(code: RuleCode, settings: GuardrailSettings): RuleSetting {
  const chosen = settings.rules[code] ?? ruleOf(code).severity;
  return settings.strict && chosen === 'warning' ? 'error' : chosen;
}

/** Findings of the rules that are not off, at the severity the settings give them. */
export function settle(found: readonly Omit<Finding, 'severity'>[], settings: GuardrailSettings): Finding[] {
  const out: Finding[] = [];
  for (const f of found) {
    const severity = severityOf(f.rule, settings);
    if (severity !== 'off') out.push({ ...f, severity });
  }
  return out;
}
