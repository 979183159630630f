/** A bad option value of the emulator; the message names the option. */
export class EmulatorOptionError extends Error {
  readonly code = 'EMULATOR_OPTION';
}
