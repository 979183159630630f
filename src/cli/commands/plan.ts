import { closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import { CliError, type CommandIO } from '../io.js';
import { writePlan } from '../plan-output.js';
import { absolute, readStateForPlan, storeLocation } from '../context.js';
import {
  environmentApi,
  environmentStateFlags,
  environmentTargetFlags,
  loadDesiredOrReport,
  openInputStore,
  resolveInputs,
  type ConfigInput,
} from '../inputs.js';
import { TOOL_VERSION } from '../version.js';
import type { PlanFlags } from '../definitions.js';
import { describeState, noStateWarning, targetGiven, whereLines } from '../where.js';
import { checkTenant } from '../tenant-binding.js';

/**
 * The target apply would use: --domain/--base-url, else the environment's in
 * tenantform.yaml, else TENANTFORM_BASE_URL, TENANTFORM_DOMAIN or
 * AUTH0_DOMAIN. `baseUrl` is what a saved plan records so that apply refuses
 * another (null when none is set or it is invalid); `line` is what the plan's
 * Target: line says.
 */
async function plannedTarget(
  input: ConfigInput,
  io: CommandIO,
  given: { domain?: string; baseUrl?: string },
): Promise<{ baseUrl: string | null; line: string }> {
  const t = environmentTargetFlags<{ domain?: string; baseUrl?: string }>(given, input);
  if (!targetGiven(t, io.env)) {
    return {
      baseUrl: null,
      line: 'not set (apply takes --domain or --base-url, or TENANTFORM_DOMAIN or TENANTFORM_BASE_URL)',
    };
  }
  const { resolveTarget } = await import('../../api/target.js');
  try {
    const { baseUrl } = resolveTarget({ domain: t.domain, baseUrl: t.baseUrl }, io.env);
    return { baseUrl, line: baseUrl };
  } catch (err) {
    return { baseUrl: null, line: `invalid: ${err instanceof Error ? err.message : String(err)}` };
  }
}

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
  const live = flags.refresh ? await import('../live.js') : null;
  if (live) {
    live.requireFull(await live.profileOf(flags, input), 'plan --refresh');
    if (flags.out)
      throw new CliError(
        'a saved plan is checked against the stored state, so --refresh cannot be saved with --out: run tenantform refresh first (it records what is live), then plan --out',
      );
  }
  const path = paths[paths.length - 1]!;
  // A destroy plan removes what the state records: the config only locates the state.
  const desired = flags.destroy
    ? []
    : await loadDesiredOrReport(paths, { vars: flags.var, varFiles: input.varFiles }, io);
  if (!desired) return 1;
  // The guardrails' config rules: an error stops here, before the state or the tenant is read.
  const guardrails = await import('../guardrails.js');
  const settings = guardrails.runSettings(input, flags.strict);
  const configWarnings = guardrails.reviewConfig(desired, settings, io);
  if (!configWarnings) return 1;
  const plan = await import('../../plan/index.js');
  const stateFlags = environmentStateFlags(flags, input);
  const store = await openInputStore(flags, input, io);
  let recorded;
  let key: Buffer | null = null;
  try {
    recorded = await readStateForPlan(store, io);
    // A saved plan is sealed with its state's plan key, made here on first need.
    if (flags.out) key = await store.planKey({ create: true });
  } finally {
    await store.close();
  }
  // What the plan is made against comes first, on stderr: stdout stays the
  // plan alone in every format (piped into files, comments and show's output).
  const state = describeState(store, io);
  const where = io.stderr;
  const target = await plannedTarget(input, io, { domain: flags.domain, baseUrl: flags.baseUrl });
  where.write(whereLines(state, target.line));
  checkTenant(recorded, target.baseUrl, flags.reassignTenant, state, 'plan');
  const options = {
    targets: flags.target,
    replace: flags.replace,
    destroy: flags.destroy,
    api: environmentApi(flags.api, input),
  };
  let result;
  if (live) {
    const client = await live.openClient(flags, input, io);
    let read;
    try {
      read = await live.readLive(client, live.listParams(desired, recorded), 10, desired);
    } finally {
      await client.close();
    }
    where.write(`${live.readSummary(read)}\n`);
    if (!(await live.referencesHold(desired, read.references, io, flags.strict))) return 1;
    result = plan.planRefreshed(desired, recorded, read, options).plan;
  } else {
    result = plan.planChanges(desired, recorded, options);
  }
  // The plan rules need the recorded values: an error stops here, before any output or --out.
  const reviewed = guardrails.reviewPlan(result, configWarnings, settings, io);
  if (!reviewed) return 1;
  result = reviewed;
  if (recorded === null && result.summary.create > 0) where.write(noStateWarning(state));
  io.report?.({
    state: store.description,
    changes: result.changes.filter((c) => c.action !== 'no-op').length,
  });
  await writePlan(result, flags.format, io, flags.verbose);

  if (flags.out) {
    const out = absolute(flags.out, io);
    const text = plan.serializePlan(
      result,
      {
        createdAt: new Date().toISOString(),
        toolVersion: TOOL_VERSION,
        configPaths: paths,
        stateLocation: await storeLocation(store, stateFlags, path, io),
        target: target.baseUrl,
      },
      key!,
    );
    // The mode given to open applies only to a new file: fchmod an existing one before writing.
    let fd: number;
    try {
      fd = openSync(out, 'w', 0o600);
    } catch (err) {
      const { ioReason } = await import('../../state/errors.js');
      throw new CliError(`cannot write the plan to ${flags.out}: ${ioReason(err)}`);
    }
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
