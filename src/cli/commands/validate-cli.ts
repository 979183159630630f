import type { CommandIO } from '../io.js';
import { parseVarArgs, resolveInputs } from '../inputs.js';
import { noCounts, runValidate, writeValidation } from './validate.js';
import type { ValidateFlags } from '../definitions.js';

/**
 * tenantform validate [PATH...] [--env NAME]: commander adapter for
 * runValidate. A project directory (tenantform.yaml) without --env has every
 * environment checked; text and github output then put "Environment NAME:"
 * before each, and json prints
 * {"valid": bool, "environments": [{"environment", "valid", "files", "counts", "errors"}]}.
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
  if (flags.live) {
    const { runValidateLive } = await import('./validate-live.js');
    return runValidateLive(flags, inputs[0]!, io);
  }
  if (inputs.length === 1) {
    return runValidate(
      inputs[0]!.paths,
      { vars: flags.var, varFiles: inputs[0]!.varFiles, format: flags.format },
      io,
    );
  }
  if (flags.format === 'json') {
    const { loadConfig } = await import('../../config/index.js');
    const vars = parseVarArgs(flags.var);
    const environments = [];
    for (const input of inputs) {
      const result = await loadConfig(input.paths, {
        vars,
        varFiles: input.varFiles,
        env: io.env,
        cwd: io.cwd,
      });
      const valid = result.issues.length === 0;
      environments.push({
        environment: input.env,
        valid,
        files: result.files,
        counts: result.counts,
        errors: result.issues,
      });
    }
    const valid = environments.every((e) => e.valid);
    io.stdout.write(JSON.stringify({ valid, environments }) + '\n');
    return valid ? 0 : 1;
  }
  let code = 0;
  for (const input of inputs) {
    io.stdout.write(`Environment ${input.env}:\n`);
    const c = await runValidate(
      input.paths,
      { vars: flags.var, varFiles: input.varFiles, format: flags.format },
      io,
    );
    code = Math.max(code, c);
  }
  return code;
}
