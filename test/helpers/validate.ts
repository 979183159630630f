/**
 * validate for tests that check one config in one format: the request a
 * `tenantform validate PATH` would make (no environment, unless guardrail
 * settings are given as one's), run and printed as the command prints it.
 */
import type { CommandIO } from '../../src/cli/io.js';
import { runIO } from '../../src/cli/context.js';
import { writeValidateResult, type ValidateFormat } from '../../src/cli/commands/validate.js';
import type { Environment } from '../../src/config/project.js';
import type { GuardrailSettings } from '../../src/review/index.js';
import type { ConfigInput, ValidateRequest, VarsOrProblem } from '../../src/run/index.js';
import { runValidate } from '../../src/run/validate.js';

export async function validatePrinted(
  path: string | readonly string[],
  opts: {
    vars: VarsOrProblem;
    varFiles: readonly string[];
    format: ValidateFormat;
    guardrails?: GuardrailSettings;
  },
  io: CommandIO,
): Promise<number> {
  const input: ConfigInput = {
    env: null,
    paths: typeof path === 'string' ? [path] : [...path],
    varFiles: [...opts.varFiles],
    ...(opts.guardrails ? { environment: { guardrails: opts.guardrails } as Environment } : {}),
  };
  const request: ValidateRequest = {
    source: { kind: 'inputs', inputs: [input] },
    vars: opts.vars,
    strict: false,
    live: null,
    output: { format: opts.format },
  };
  return writeValidateResult(await runValidate(request, runIO(io)), opts.format, io);
}
