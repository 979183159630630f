import type { CommandIO } from '../io.js';
import { runValidate } from './validate.js';

export interface ValidateFlags {
  var: string[];
  varFile: string[];
  format: 'text' | 'json' | 'github';
}

/** tenantform validate [PATH]: commander adapter for runValidate. */
export function validateAction(path: string, flags: ValidateFlags, _cmd: unknown, io: CommandIO): Promise<number> {
  return runValidate(path, { vars: flags.var, varFiles: flags.varFile, format: flags.format }, io);
}
