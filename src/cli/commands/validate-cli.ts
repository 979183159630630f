import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import { runValidate } from '../../run/validate.js';
import { parseValidateRequest } from '../read-requests.js';
import { writeValidateResult } from './validate.js';
import type { ValidateFlags } from '../definitions.js';

/**
 * tenantform validate [PATH...] [--env NAME] [--strict]: the flags as a
 * request, run by runValidate (src/run/validate.ts), and what it found
 * printed (validate.ts). A project directory (tenantform.yaml) without --env
 * has every environment checked, each with its own guardrail settings. With
 * --live (one environment) it also checks the references against the tenant.
 */
export async function validateAction(
  paths: string[],
  flags: ValidateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const request = parseValidateRequest(paths, flags, io);
  return writeValidateResult(await runValidate(request, runIO(io)), request.output.format, io);
}
