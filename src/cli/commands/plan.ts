import { closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import type { CommandIO } from '../io.js';
import { writePlan } from '../plan-output.js';
import { absolute, openStore } from '../context.js';
import { environmentStateFlags, loadDesiredOrReport, resolveInputs } from '../inputs.js';
import { TOOL_VERSION } from '../version.js';
import type { PlanFlags } from '../definitions.js';

/** tenantform plan [PATH]: desired (config) vs recorded (state). Sends no request. */
export async function planAction(
  pathArgs: string[],
  flags: PlanFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const fleet = await import('../fleet.js');
  if (fleet.isFleetRun(flags)) return fleet.runFleet('plan', pathArgs, flags, io);
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  const paths = input.paths;
  const path = paths[paths.length - 1]!;
  const desired = await loadDesiredOrReport(paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  const [{ readStateSnapshot }, plan] = await Promise.all([
    import('../../state/index.js'),
    import('../../plan/index.js'),
  ]);
  const store = await openStore(environmentStateFlags(flags, input), path, io);
  let recorded;
  try {
    recorded = await readStateSnapshot(store);
  } finally {
    await store.close();
  }
  const result = plan.planChanges(desired, recorded);
  io.report?.({
    state: store.description,
    changes: result.changes.filter((c) => c.action !== 'no-op').length,
  });
  await writePlan(result, flags.format, io);

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
