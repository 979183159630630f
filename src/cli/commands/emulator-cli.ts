import type { CommandIO } from '../io.js';
import { parseEmulatorSettings } from '../local-requests.js';
import { runEmulator } from './emulator.js';
import type { EmulatorFlags } from '../definitions.js';

/** tenantform emulator: commander adapter for runEmulator. */
export function emulatorAction(flags: EmulatorFlags, _cmd: unknown, io: CommandIO): Promise<number> {
  return runEmulator(parseEmulatorSettings(flags), io);
}
