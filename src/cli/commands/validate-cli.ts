import type { CommandIO } from '../io.js';
import { resolveInputs, type ConfigInput } from '../inputs.js';
import { runSettings } from '../guardrails.js';
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
  let inputs;
  try {
    // --live reads one tenant: one environment.
    inputs = resolveInputs(paths, flags.env, flags.varFile, io, flags.live ? 'one' : 'all');
  } catch (err) {
    const { ProjectError } = await import('../../config/project.js');
    if (!(err instanceof ProjectError)) throw err;
    // A broken tenantform.yaml is reported like any config file: every problem at file:line:col.
    return writeValidation(
      { desired: [], files: [], counts: noCounts(), issues: err.issues },
      flags.format,
      io,
    );
  }
  const options = (input: ConfigInput) => ({
    vars: flags.var,
    varFiles: input.varFiles,
    format: flags.format,
    guardrails: runSettings(input, flags.strict),
  });
  if (flags.live) {
    const { runValidateLive } = await import('./validate-live.js');
    return runValidateLive(flags, inputs[0]!, options(inputs[0]!), io);
  }
  if (inputs.length === 1) return runValidate(inputs[0]!.paths, options(inputs[0]!), io);
  if (flags.format === 'json') {
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
