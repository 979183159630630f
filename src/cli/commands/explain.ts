/**
 * tenantform explain [PATH...] [--client ID]... [--policy ADDRESS|SELECTOR]... [--format text|markdown|json]
 *
 * Offline, from the configuration alone: for each --client, the rate limit
 * policy that governs it by the documented precedence (its own client_id:
 * policy, else its group's — the group from the id's form — else default),
 * what that policy does and whose counter the requests count against; for
 * each --policy, the applications it governs (the --client ids among them,
 * and in words the group or the rest it names). With neither, every policy.
 * Reads no state, sends no request (but --all-clients's reads). Exit codes: 0; 1 for a config problem or
 * a --policy the configuration does not declare.
 *
 * With --all-clients (API profile full) it reads the tenant's applications
 * (GET /clients, paged, with their names) and explains every one of them,
 * and for every policy which of them it governs: the whole map. The request
 * runs below the command line (runExplain, src/run/explain.ts); this module
 * parses it and renders what it returns.
 */
import type { ExplainFlags } from '../definitions.js';
import { renderExplain } from '../explain-output.js';
import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import { reportIssues } from '../config-issues.js';
import { parseExplainRequest } from '../read-requests.js';
import { client } from '../../resources/index.js';
import { plural } from '../words.js';

/** Runs `tenantform explain`; returns the exit code. */
export async function explainAction(
  paths: string[],
  flags: ExplainFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseExplainRequest(paths, flags, io);
  const { runExplain } = await import('../../run/explain.js');
  const result = await runExplain(request, runIO(io));
  if (result.kind === 'config-issues') {
    reportIssues(result.issues, io);
    return 1;
  }
  // What was read goes on stderr, so that stdout stays the report.
  if (result.read) {
    const { found, requests } = result.read;
    io.stderr.write(
      `Read ${plural(found, client.title)} from the tenant in ${plural(requests, 'request')}.\n`,
    );
  }
  io.stdout.write(renderExplain(result.report, request.output.format, result.applications > 0));
  return 0;
}
