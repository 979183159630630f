/**
 * tenantform fmt [PATH...] [--check] [--diff]
 *
 * Rewrites config files into the canonical layout (src/config/format.ts).
 * PATH defaults to "."; a directory means every *.yaml / *.yml below it, as
 * for validate, of which only tenantform config is formatted (by its
 * top-level keys, see isConfigText): the others (docker-compose.yml, a
 * Kubernetes manifest) are left alone, and named on stderr. Prints the files
 * it changed (or, with --check, would change).
 *
 * Exit codes: 0 nothing to change (or changes written); 3 with --check when a
 * file would change (Terraform's convention, for CI); 1 a file cannot be read
 * or parsed (nothing is written then).
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { formatFiles, type ConfigIssue } from '../../config/index.js';
import { configKeysAt } from '../../schemas/index.js';
import type { FmtRequest } from '../../run/local-requests.js';
import type { CommandIO } from '../io.js';
import type { FmtFlags } from '../definitions.js';
import { parseFmtRequest } from '../local-requests.js';

/** The exit code of `fmt --check` when a file would change. */
export const FMT_CHECK_FAILED = 3;

function issueLine(issue: ConfigIssue): string {
  return issue.line > 0
    ? `${issue.file}:${issue.line}:${issue.col}: ${issue.message}`
    : `${issue.file}: ${issue.message}`;
}

function endLine(text: string): string {
  return text.endsWith('\n') ? text : text + '\n';
}

/** Says which YAML files fmt left alone because they are another tool's (at most ten named). */
function skippedLine(skipped: readonly string[]): string {
  const named =
    skipped.slice(0, 10).join(', ') + (skipped.length > 10 ? ` and ${skipped.length - 10} more` : '');
  const keys = configKeysAt([]).filter((k) => !k.startsWith('$'));
  return (
    `Skipped ${skipped.length} YAML file${skipped.length === 1 ? '' : 's'} that ${skipped.length === 1 ? 'is' : 'are'} not tenantform config ` +
    `(no ${keys.join(', ')} at the top level): ${named}\n`
  );
}

export async function fmtAction(
  pathArgs: string[],
  flags: FmtFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runFmt(parseFmtRequest(pathArgs, flags), io);
}

/** Runs a fmt request: the files formatted (written unless --check), named on stdout; the exit code. */
async function runFmt(request: FmtRequest, io: CommandIO): Promise<number> {
  const { changed, skipped, issues } = await formatFiles(request.paths, io.cwd, !request.check);
  if (skipped.length > 0) io.stderr.write(skippedLine(skipped));
  if (issues.length > 0) {
    for (const issue of issues) io.stderr.write(issueLine(issue) + '\n');
    io.stderr.write(`fmt changed nothing: ${issues.length} problem${issues.length === 1 ? '' : 's'}.\n`);
    return 1;
  }
  for (const file of changed) {
    io.stdout.write(file.shown + '\n');
    if (request.diff)
      io.stdout.write(
        endLine(
          createTwoFilesPatch(file.shown, file.shown, file.before, file.after, '', '', {
            context: 3,
            headerOptions: FILE_HEADERS_ONLY,
          }),
        ),
      );
  }
  if (request.check && changed.length > 0) {
    io.stderr.write(
      `${changed.length} file${changed.length === 1 ? ' is' : 's are'} not formatted; run tenantform fmt ${request.paths.join(' ')} to fix.\n`,
    );
    return FMT_CHECK_FAILED;
  }
  return 0;
}
