import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import type { ExportFlags } from '../definitions.js';
import {
  checkExportTarget,
  runExport,
  type ExportEvent,
  type ExportResult,
  type ExportView,
} from '../../run/export.js';
import { parseExportRequest } from '../read-requests.js';
import { exportLead, filesLines, recordedLines } from '../export-output.js';
import { renderCommonEvent } from '../run-view.js';

/** What export shows on the way: the source's problems on stderr, what it read and wrote on stdout. */
function exportView(dir: string, io: CommandIO): ExportView {
  return {
    event(event: ExportEvent) {
      if (event.kind === 'config-issues') renderCommonEvent(event, io);
      else if (event.kind === 'source-read') io.stdout.write(exportLead(event.source.origin));
      else io.stdout.write(filesLines(dir, event.source, event.files));
    },
    async schemaFiles() {
      const { scaffoldFiles } = await import('./init.js');
      return scaffoldFiles().filter((f) => f.path.startsWith('schemas/'));
    },
  };
}

/** How the export ended, in words; the exit code. */
function writeExported(result: ExportResult, dir: string, io: CommandIO): number {
  if (result.status === 'source-invalid') {
    io.stderr.write('Nothing was written.\n');
    return 1;
  }
  if (result.status === 'written')
    io.stdout.write('Not recorded in any state (--no-state): a plan of these files would create them all.\n');
  else io.stdout.write(recordedLines(dir, result.source, result.state));
  return 0;
}

/**
 * tenantform export DIR: reads the tenant's policies and profiles and the
 * permissions of the users named (or, with --from-terraform or
 * --from-deploy-cli, a peer's files), writes them into DIR as config files
 * and records them in the state (DIR's default state for the target, see
 * state-location.ts, unless --state, --backend or --no-state say otherwise):
 * the flags as a request, run by runExport (src/run/export.ts), and what it
 * did in words (export-output.ts).
 */
export async function exportAction(
  dirArg: string,
  flags: ExportFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  // The directory is looked at before the flags, as it always was.
  await checkExportTarget(dirArg, flags.force ?? false, io);
  const request = parseExportRequest(dirArg, flags, io);
  return writeExported(await runExport(request, runIO(io), exportView(dirArg, io)), dirArg, io);
}
