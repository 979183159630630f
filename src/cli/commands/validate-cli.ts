import type { CommandIO } from '../io.js';
import type { ConfigInput } from '../../run/requests.js';
import type { ValidateRequest } from '../../run/read-requests.js';
import { runSettings } from '../guardrails.js';
import { parseValidateRequest } from '../read-requests.js';
import { noCounts, runValidate, validateConfig, validationJson, writeValidation } from './validate.js';
import type { ValidateFlags } from '../definitions.js';

/**
 * tenantform validate [PATH...] [--env NAME] [--strict]: commander adapter
 * for runValidate. A project directory (tenantform.yaml) without --env has
 * every environment checked, each with its own guardrail settings; text and
 * github output then put "Environment NAME:" before each, and json prints
 * {"valid": bool, "environments": [{"environment", "valid", "files", "counts", "errors", "warnings"}]}.
 * With --live (one environment) it also checks the references against the
 * tenant (validate-live.ts).
 */
export async function validateAction(
  paths: string[],
  flags: ValidateFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return runValidateRequest(parseValidateRequest(paths, flags, io), io);
}

/** Runs a validate request: every input validated and printed; the exit code (0 valid, 1 not). */
async function runValidateRequest(request: ValidateRequest, io: CommandIO): Promise<number> {
  const { format } = request.output;
  if (request.source.kind === 'broken-project') {
    // A broken tenantform.yaml is reported like any config file: every problem at file:line:col.
    const issues = request.source.issues;
    return writeValidation({ desired: [], files: [], counts: noCounts(), issues }, format, io);
  }
  const { inputs } = request.source;
  const options = (input: ConfigInput) => ({
    vars: request.vars,
    varFiles: input.varFiles,
    format,
    guardrails: runSettings(input, request.strict),
  });
  if (request.live) {
    const { runValidateLive } = await import('./validate-live.js');
    const live = { reader: request.live, strict: request.strict, format };
    return runValidateLive(live, inputs[0]!, options(inputs[0]!), io);
  }
  if (inputs.length === 1) return runValidate(inputs[0]!.paths, options(inputs[0]!), io);
  if (format === 'json') {
    const environments = [];
    for (const input of inputs) {
      const body = validationJson(await validateConfig(input.paths, options(input), io));
      environments.push({ environment: input.env, ...body });
    }
    const valid = environments.every((e) => e.valid === true);
    io.stdout.write(JSON.stringify({ valid, environments }) + '\n');
    return valid ? 0 : 1;
  }
  let code = 0;
  for (const input of inputs) {
    io.stdout.write(`Environment ${input.env}:\n`);
    code = Math.max(code, await runValidate(input.paths, options(input), io));
  }
  return code;
}
