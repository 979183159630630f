import { closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import { writeChunks, type CommandIO } from '../io.js';
import { absolute, openStore, readStateForPlan, type StateFlags } from '../context.js';
import { loadDesiredOrReport } from './validate.js';
import { resolveInputs } from '../inputs.js';
import { TOOL_VERSION } from '../version.js';

export interface PlanFlags extends StateFlags {
  var: string[];
  varFile: string[];
  env?: string;
  out?: string;
  detailedExitcode?: boolean;
  format: 'text' | 'json' | 'markdown';
}

/** tenantform plan [PATH]: desired (config) vs recorded (state). Sends no request. */
export async function planAction(
  pathArgs: string[],
  flags: PlanFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  const paths = input.paths;
  const path = paths[paths.length - 1]!;
  const desired = await loadDesiredOrReport(paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const plan = await import('../../plan/index.js');
  const store = await openStore(flags, path, io);
  let recorded;
  try {
    recorded = await readStateForPlan(store, io);
  } finally {
    await store.close();
  }
  const result = plan.planChanges(desired, recorded);
  if (flags.format === 'json') io.stdout.write(plan.renderJson(result) + '\n');
  else if (flags.format === 'markdown') io.stdout.write(plan.renderMarkdown(result));
  else
    writeChunks(io.stdout, plan.renderTextChunks(result, { color: plan.shouldUseColor(io.stdout, io.env) }));

  if (flags.out) {
    const out = absolute(flags.out, io);
    const text = plan.serializePlan(result, {
      createdAt: new Date().toISOString(),
      toolVersion: TOOL_VERSION,
      configPaths: paths,
    });
    // The mode given to open applies only to a new file: fchmod an existing one before writing.
    const fd = openSync(out, 'w', 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    if (flags.format === 'text')
      io.stdout.write(
        `\nSaved the plan to ${flags.out}. Apply exactly this plan with: tenantform apply ${flags.out}\n`,
      );
  }
  if (flags.detailedExitcode && plan.hasChanges(result)) return 2;
  return 0;
}
