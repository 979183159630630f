/**
 * The `guardrails` entry of tenantform.yaml, at the top (for every
 * environment) or in an environment (over the top one):
 *
 *   guardrails:
 *     rules:                       # a rule's code → error | warning | off
 *       no-default-policy: off
 *       limit-cut: error
 *     redirect_hosts:              # hosts a redirect_uri may name; *.example.com: any host below
 *       - status.acme.example
 *       - "*.acme.example"
 *
 * Every problem is reported at its line and column, a mistyped rule code
 * with the closest one.
 */
import type { Node } from 'yaml';
import { YAML } from './yaml-lib.js';
import {
  isRuleCode,
  RULE_CODES,
  RULE_SETTINGS,
  type GuardrailSettings,
  type RuleCode,
  type RuleSetting,
} from '../review/index.js';
import { entries, stringValue, type EntryContext } from './project-nodes.js';

const KEYS = ['rules', 'redirect_hosts'];
const HOST =
  /^(?:\*\.)?(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** "did you mean X? " for the rule code sharing the longest start (4 characters at least) with `text`. */
function closestRule(text: string): string {
  const shared = (code: string): number => {
    let same = 0;
    while (same < code.length && same < text.length && code[same] === text[same]) same++;
    return same;
  };
  const best = [...RULE_CODES].sort((a, b) => shared(b) - shared(a))[0]!;
  return shared(best) >= 4 ? `did you mean ${best}? ` : '';
}

function checkRules(node: Node | null, where: string, ctx: EntryContext): GuardrailSettings['rules'] {
  if (!YAML.isMap(node)) {
    ctx.at(node, `${where} must map rule codes to error, warning or off`);
    return {};
  }
  const out: Partial<Record<RuleCode, RuleSetting>> = {};
  for (const [code, keyNode, value] of entries(node)) {
    if (!isRuleCode(code)) {
      ctx.at(
        keyNode,
        `${where}: unknown rule "${code}" (${closestRule(code)}the rules are: ${RULE_CODES.join(', ')})`,
      );
      continue;
    }
    const setting = stringValue(value);
    if (setting === null || !(RULE_SETTINGS as readonly string[]).includes(setting)) {
      ctx.at(value ?? keyNode, `${where}.${code} must be error, warning or off`);
      continue;
    }
    out[code] = setting as RuleSetting;
  }
  return out;
}

function checkHosts(node: Node | null, where: string, ctx: EntryContext): string[] | undefined {
  if (!YAML.isSeq(node)) {
    ctx.at(node, `${where} must be a list of host names, such as status.example.com or "*.example.com"`);
    return undefined;
  }
  const hosts: string[] = [];
  for (const item of node.items) {
    const host = stringValue(item as Node);
    if (host === null || !HOST.test(host)) {
      ctx.at(
        item as Node,
        `${where} entries must be host names (no scheme, port or path), such as status.example.com or "*.example.com"`,
      );
      continue;
    }
    hosts.push(host);
  }
  return hosts;
}

/** The settings a `guardrails` node declares (only what it names); undefined, with issues, when it is no mapping. */
export function checkGuardrails(
  node: Node | null,
  where: string,
  ctx: EntryContext,
): GuardrailSettings | undefined {
  if (!YAML.isMap(node)) {
    ctx.at(node, `${where} must be a mapping with rules and/or redirect_hosts`);
    return undefined;
  }
  const settings: { rules: GuardrailSettings['rules']; redirectHosts?: string[] } = { rules: {} };
  for (const [key, keyNode, value] of entries(node)) {
    if (key === 'rules') settings.rules = checkRules(value, `${where}.rules`, ctx);
    else if (key === 'redirect_hosts') {
      const hosts = checkHosts(value, `${where}.redirect_hosts`, ctx);
      if (hosts) settings.redirectHosts = hosts;
    } else ctx.at(keyNode, `${where} has unknown key "${key}" (allowed: ${KEYS.join(', ')})`);
  }
  return settings;
}

/** An environment's settings over the project's: its rules win one by one, its redirect_hosts replace the project's. */
export function mergeGuardrails(
  project: GuardrailSettings | undefined,
  environment: GuardrailSettings | undefined,
): GuardrailSettings | undefined {
  if (!project) return environment;
  if (!environment) return project;
  const redirectHosts = environment.redirectHosts ?? project.redirectHosts;
  return { rules: { ...project.rules, ...environment.rules }, ...(redirectHosts ? { redirectHosts } : {}) };
}
