/**
 * tenantform explain [PATH...] [--client ID]... [--policy ADDRESS|SELECTOR]... [--format text|markdown|json]
 *
 * Offline, from the configuration alone: for each --client, the rate limit
 * policy that governs it by the documented precedence (its own client_id:
 * policy, else its group's — the group from the id's form — else default),
 * what that policy does and whose counter the requests count against; for
 * each --policy, the applications it governs (the --client ids among them,
 * and in words the group or the rest it names). With neither, every policy.
 * Reads no state, sends no request. Exit codes: 0; 1 for a config problem or
 * a --policy the configuration does not declare.
 */
import { closestMatch } from '../../plan/index.js';
import { parseAddress, rateLimitPolicy } from '../../resources/index.js';
import {
  explainClients,
  policiesOf,
  reachOf,
  type Application,
  type PolicyEntry,
} from '../../review/index.js';
import type { ExplainFlags } from '../definitions.js';
import { renderExplain, type ExplainReport } from '../explain-output.js';
import { loadDesiredOrReport, resolveInputs } from '../inputs.js';
import { CliError, type CommandIO } from '../io.js';

/** The policy a --policy value names: an address of a rate limit policy, or a consumer_selector. */
export function findPolicy(text: string, policies: readonly PolicyEntry[]): PolicyEntry {
  let selector = text;
  if (text.includes('[')) {
    const parsed = parseAddress(text);
    if (parsed.kind !== rateLimitPolicy.name) {
      throw new CliError(`--policy ${text}: not a ${rateLimitPolicy.title.one}`);
    }
    selector = parsed.identity[rateLimitPolicy.identityFields.indexOf('consumer_selector')]!;
  }
  const found = policies.find((p) => p.selector === selector);
  if (found) return found;
  const best = closestMatch(
    selector,
    policies.map((p) => p.selector),
  );
  const hint = best ? ` (did you mean ${best}?)` : policies.length === 0 ? ' (it declares none)' : '';
  throw new CliError(
    `--policy ${text}: the configuration declares no rate limit policy for ${selector}${hint}`,
  );
}

/**
 * The report for the policies and the applications given. A client_id:
 * policy always knows its own application, so its reach names it.
 */
export function explainReport(
  policies: readonly PolicyEntry[],
  applications: readonly Application[],
  asked: readonly PolicyEntry[],
): ExplainReport {
  const reaches = asked.map((policy) => {
    const own = policy.scope.level === 'client' ? policy.scope.clientId : null;
    const known =
      own !== null && !applications.some((a) => a.client_id === own)
        ? [...applications, { client_id: own }]
        : applications;
    return reachOf(policy, policies, known);
  });
  return { clients: explainClients(policies, applications), policies: reaches };
}

/** Runs `tenantform explain`; returns the exit code. */
export async function explainAction(
  paths: string[],
  flags: ExplainFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const input = resolveInputs(paths, flags.env, flags.varFile, io, 'one')[0]!;
  const desired = await loadDesiredOrReport(input.paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const policies = policiesOf(desired);
  const applications: Application[] = [...new Set(flags.client)].map((client_id) => ({ client_id }));
  const asked =
    flags.policy.length > 0
      ? flags.policy.map((text) => findPolicy(text, policies))
      : flags.client.length > 0
        ? []
        : policies;
  const report = explainReport(policies, applications, asked);
  io.stdout.write(renderExplain(report, flags.format, applications.length > 0));
  return 0;
}
