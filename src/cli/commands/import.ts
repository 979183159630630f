import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import type { ImportFlags } from '../definitions.js';
import { runImport, type ImportResult } from '../../run/import.js';
import type { RunEvent } from '../../run/index.js';
import { parseImportRequest } from '../read-requests.js';
import { renderCommonEvent, unexpectedEvent } from '../run-view.js';

/** What import says of the id it recorded, on stdout; the exit code. */
function writeImported(result: ImportResult, io: CommandIO): number {
  if (result.status === 'config-invalid') return 1;
  const { address, id } = result;
  if (result.status === 'unchanged') io.stdout.write(`${address} already has id ${id}; nothing to do.\n`);
  else if (result.status === 'attached') {
    const { unverified } = result;
    io.stdout.write(
      `Imported ${address} with id ${id}. Its settings on the tenant were not verified${unverified ? ` (${unverified})` : ''};\n` +
        'tenantform assumes they match the recorded attributes.\n',
    );
  } else {
    const how =
      result.how === 'read' ? 'read on the tenant by its id' : 'found on the tenant by its identity';
    io.stdout.write(
      `Imported ${address} with id ${id ?? '(none)'}, ${how}; its live settings are recorded.\n`,
    );
  }
  return 0;
}

/**
 * tenantform import: attach a server id to a resource so that it can be
 * deleted or replaced later. The flags as a request, run by runImport
 * (src/run/import.ts: the id attached, read or looked up, and recorded
 * under the state lock), then what it recorded.
 */
export async function importAction(
  first: string,
  second: string | undefined,
  third: string | undefined,
  flags: ImportFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseImportRequest([first, second, third], flags, io);
  const view = {
    event: (event: RunEvent) => {
      if (!renderCommonEvent(event, io)) unexpectedEvent(event);
    },
  };
  return writeImported(await runImport(request, runIO(io), view), io);
}
