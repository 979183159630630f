/**
 * `tenantform explain` output: which policy governs each application asked
 * about, and which applications each policy governs, as text, Markdown (a
 * pull-request comment) or JSON (schemas/explain.schema.json). The words come
 * from src/review/words.ts; the decisions from src/review/precedence.ts.
 */
import { codeCell, escapeCell } from '../plan/index.js';
import {
  blocksEverything,
  isEnforcing,
  type ClientExplanation,
  type PolicyEntry,
  type PolicyReach,
} from '../review/index.js';
import type { ExplainReport } from '../run/explain.js';
import { actionWords, counterWords, GROUP_WORDS, LEVEL_WORDS, scopeWords } from '../review/words.js';
import { listed } from './words.js';
import { printable } from '../resources/index.js';

export type { ExplainReport };

/** Whose applications the reverse lists: "the clients given", or the tenant's. */
function whose(report: ExplainReport, short: boolean): string {
  if (report.from === 'tenant') return short ? "the tenant's" : "the tenant's applications";
  return short ? 'those given' : 'the clients given';
}

export type ExplainFormat = 'text' | 'markdown' | 'json';

function where(policy: PolicyEntry): string {
  const s = policy.source;
  return s && s.line > 0 ? `${s.file}:${s.line}:${s.col}` : (s?.file ?? '');
}

function clientTitle(e: ClientExplanation): string {
  const name = e.application.name ? ` (${printable(e.application.name)})` : '';
  const group = e.group ? `, a ${GROUP_WORDS[e.group].member} (${GROUP_WORDS[e.group].idForm})` : '';
  return `${printable(e.application.client_id)}${name}${group}`;
}

function clientText(e: ClientExplanation): string[] {
  const lines = [`Client ${clientTitle(e)}`];
  if (!e.policy) {
    lines.push('  policy:  none (no policy names it, its group has none, and there is no default)');
  } else {
    const at = where(e.policy);
    lines.push(`  policy:  ${e.policy.selector}, ${LEVEL_WORDS[e.level]}${at ? ` (${at})` : ''}`);
    lines.push(`  action:  ${actionWords(e.policy.configuration)}`);
  }
  lines.push(`  counter: ${counterWords(e.counter, e.level, e.group)}`);
  if (e.overridden.length > 0) lines.push(`  passes over: ${e.overridden.map((p) => p.selector).join(', ')}`);
  return lines;
}

/** "all third-party applications (client id starting tpa_) without a policy of their own, on one shared counter". */
function governsWords(reach: PolicyReach): string {
  const scope = reach.policy.scope;
  switch (scope.level) {
    case 'client':
      return `${scopeWords(scope)} alone, on its own counter`;
    case 'group':
      return `${scopeWords(scope)} (${GROUP_WORDS[scope.group].idsForm}) without a policy of their own, on one shared counter`;
    case 'default':
      return `${scopeWords(scope)}, each on its own counter`;
  }
}

/** At most this many client_id: exceptions are named; the rest are counted. */
const NAMED_EXCEPTIONS = 3;

/**
 * "the members of third_party_clients, and client_id:a, client_id:b and 4
 * more applications with a policy of their own".
 */
export function exceptionWords(exceptions: readonly PolicyEntry[]): string {
  const groups = exceptions.filter((p) => p.scope.level === 'group').map((p) => p.selector);
  const clients = exceptions.filter((p) => p.scope.level === 'client').map((p) => p.selector);
  const parts: string[] = [];
  if (groups.length > 0) parts.push(`the members of ${listed(groups)}`);
  if (clients.length > NAMED_EXCEPTIONS) {
    const more = clients.length - NAMED_EXCEPTIONS;
    parts.push(
      `${clients.slice(0, NAMED_EXCEPTIONS).join(', ')} and ${more} more application${more === 1 ? '' : 's'} with a policy of their own`,
    );
  } else if (clients.length > 0) {
    parts.push(listed(clients));
  }
  return parts.join(', and ');
}

function reachText(reach: PolicyReach, asked: boolean, of: string): string[] {
  const at = where(reach.policy);
  const lines = [
    `Policy ${reach.policy.selector}${at ? ` (${at})` : ''}`,
    `  action:  ${actionWords(reach.policy.configuration)}`,
    `  governs: ${governsWords(reach)}`,
  ];
  if (reach.exceptions.length > 0) lines.push(`  except:  ${exceptionWords(reach.exceptions)}`);
  if (asked && reach.policy.scope.level !== 'client') {
    const ids = reach.governs.map((e) => e.application.client_id);
    lines.push(`  of ${of}: ${ids.length > 0 ? listed(ids) : 'none'}`);
  }
  return lines;
}

/** The report as text for a terminal; `asked`: client ids were given (the reverse lists which of them a policy governs). */
export function renderExplainText(report: ExplainReport, asked: boolean): string {
  const sections = [
    ...report.clients.map((e) => clientText(e).join('\n')),
    ...report.policies.map((r) => reachText(r, asked, whose(report, false)).join('\n')),
  ];
  if (sections.length === 0)
    return "The configuration declares no rate limit policy: no application is limited beyond the tenant's own rate limit.\n";
  return sections.join('\n\n') + '\n';
}

function clientRow(e: ClientExplanation): string {
  const name = e.application.name ? ` ${escapeCell(e.application.name)}` : '';
  const policy = e.policy ? `${codeCell(e.policy.selector)} (${escapeCell(LEVEL_WORDS[e.level])})` : 'none';
  const action = e.policy ? escapeCell(actionWords(e.policy.configuration)) : '';
  return `| ${codeCell(e.application.client_id)}${name} | ${policy} | ${action} | ${escapeCell(counterWords(e.counter, e.level, e.group))} |`;
}

function reachRow(reach: PolicyReach, asked: boolean, of: string): string {
  const except = escapeCell(exceptionWords(reach.exceptions));
  const given =
    asked && reach.policy.scope.level !== 'client'
      ? `; of ${of}: ${reach.governs.map((e) => codeCell(e.application.client_id)).join(', ') || 'none'}`
      : '';
  return `| ${codeCell(reach.policy.selector)} | ${escapeCell(actionWords(reach.policy.configuration))} | ${escapeCell(governsWords(reach))}${given} | ${except} |`;
}

/** The report as GitHub-flavoured Markdown: a table of applications, a table of policies. */
export function renderExplainMarkdown(report: ExplainReport, asked: boolean): string {
  const out = ['### tenantform explain', ''];
  if (report.clients.length > 0) {
    out.push('| Application | Policy | Action | Counter |', '| --- | --- | --- | --- |');
    out.push(...report.clients.map(clientRow), '');
  }
  if (report.policies.length > 0) {
    out.push('| Policy | Action | Governs | Except |', '| --- | --- | --- | --- |');
    out.push(...report.policies.map((r) => reachRow(r, asked, whose(report, true))), '');
  }
  if (report.clients.length === 0 && report.policies.length === 0) {
    out.push('The configuration declares no rate limit policy.', '');
  }
  return out.join('\n');
}

function policyJson(policy: PolicyEntry): Record<string, unknown> {
  const s = policy.source;
  return {
    selector: policy.selector,
    address: policy.address,
    source: s ? { file: s.file, line: s.line, col: s.col } : null,
    configuration: policy.configuration,
    enforcing: isEnforcing(policy.configuration),
    blocks_every_request: blocksEverything(policy.configuration),
  };
}

function clientJson(e: ClientExplanation): Record<string, unknown> {
  const { client_id, name, app_type, is_first_party } = e.application;
  return {
    client_id,
    ...(name !== undefined ? { name } : {}),
    ...(app_type !== undefined ? { app_type } : {}),
    ...(is_first_party !== undefined ? { is_first_party } : {}),
    group: e.group,
    level: e.level,
    policy: e.policy ? policyJson(e.policy) : null,
    counter: e.counter,
    overridden: e.overridden.map((p) => p.selector),
  };
}

function reachJson(reach: PolicyReach): Record<string, unknown> {
  const scope = reach.policy.scope;
  return {
    policy: policyJson(reach.policy),
    scope: scope.level,
    ...(scope.level === 'group' ? { group: scope.group } : {}),
    counter: reach.counter,
    governs: reach.governs.map((e) => e.application.client_id),
    exceptions: reach.exceptions.map((p) => p.selector),
  };
}

/** The report as JSON (schemas/explain.schema.json), two-space indented. */
export function renderExplainJson(report: ExplainReport): string {
  return JSON.stringify(
    { clients: report.clients.map(clientJson), policies: report.policies.map(reachJson) },
    null,
    2,
  );
}

/** The report in the chosen format, ending with a newline. */
export function renderExplain(report: ExplainReport, format: ExplainFormat, asked: boolean): string {
  if (format === 'json') return renderExplainJson(report) + '\n';
  if (format === 'markdown') return renderExplainMarkdown(report, asked);
  return renderExplainText(report, asked);
}
