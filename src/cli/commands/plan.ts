import { closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import type { Plan, PlanFileMeta } from '../../plan/index.js';
import type { DesiredResource, ReferenceRead } from '../../resources/index.js';
import type { StateDocument } from '../../state/index.js';
import { CliError, type CommandIO } from '../io.js';
import { writePlan } from '../plan-output.js';
import { absolute, readStateForPlan, runIO } from '../context.js';
import { loadDesiredOrReport } from '../inputs.js';
import type { ConfigInput, PlanRequest, TargetRequest } from '../../run/requests.js';
import { environmentTarget, openInputStore, storeLocation, targetGiven } from '../../run/state-store.js';
import { TOOL_VERSION } from '../version.js';
import { flagOf } from '../run-words.js';
import type { PlanFlags } from '../definitions.js';
import { describeState, noStateWarning, whereLines } from '../where.js';
import { checkTenant } from '../tenant-binding.js';
import { parsePlanRequest } from '../requests.js';

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
  given: TargetRequest,
): Promise<{ baseUrl: string | null; line: string }> {
  const t = environmentTarget(given, input);
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
    const { messageOf } = await import('../run-words.js');
    return { baseUrl: null, line: `invalid: ${messageOf(err)}` };
  }
}

/**
 * plan --out FILE: the plan, with where it was made, sealed with the state's
 * plan key (`key`) and written to a file only its owner may read (mode 0600,
 * also for a file that exists).
 */
async function savePlan(
  result: Plan,
  origin: Omit<PlanFileMeta, 'createdAt' | 'toolVersion'>,
  key: Buffer,
  request: Pick<PlanRequest, 'out' | 'output'>,
  io: CommandIO,
): Promise<void> {
  const { serializePlan } = await import('../../plan/index.js');
  const file = request.out!;
  const meta = { createdAt: new Date().toISOString(), toolVersion: TOOL_VERSION, ...origin };
  const text = serializePlan(result, meta, key, flagOf);
  // The mode given to open applies only to a new file: fchmod an existing one before writing.
  let fd: number;
  try {
    fd = openSync(absolute(file, io), 'w', 0o600);
  } catch (err) {
    const { ioReason } = await import('../../state/errors.js');
    throw new CliError(`cannot write the plan to ${file}: ${ioReason(err)}`);
  }
  try {
    fchmodSync(fd, 0o600);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
  if (request.output.format === 'text')
    io.stdout.write(`\nSaved the plan to ${file}. Apply exactly this plan with: tenantform apply ${file}\n`);
}

/**
 * The state the plan is made against, the names kept with it, and with --out
 * the state's plan key (made here on first need) that seals it.
 */
async function readState(request: PlanRequest, io: CommandIO) {
  const store = await openInputStore(request.state, request.connection.named, request.input, runIO(io));
  try {
    const recorded = await readStateForPlan(store, io);
    const key = request.out ? await store.planKey({ create: true }) : null;
    const { storedNames } = await import('../known-names.js');
    return { store, recorded, key, names: await storedNames(store, io) };
  } finally {
    await store.close();
  }
}

/**
 * plan --refresh: the tenant read (the lists of what the config and the
 * state name, and what the config refers to), said on stderr; null when a
 * reference the config makes is not on the tenant (said).
 */
async function readTenant(
  request: PlanRequest,
  desired: readonly DesiredResource[],
  recorded: StateDocument | null,
  io: CommandIO,
) {
  const live = await import('../tenant-read.js');
  const { openClient } = await import('../../run/connection.js');
  const client = await openClient(request.connection, request.input, runIO(io));
  let read;
  try {
    read = await live.readLive(client, live.listParams(desired, recorded), 10, desired);
  } finally {
    await client.close();
  }
  io.stderr.write(`${live.readSummary(read)}\n`);
  return (await live.referencesHold(desired, read.references, io, request.strict)) ? read : null;
}

/** The names the read gave, put over those kept with the state, and kept again (the store opened for it). */
async function keepReadNames(request: PlanRequest, read: { references: ReferenceRead }, io: CommandIO) {
  const store = await openInputStore(request.state, request.connection.named, request.input, runIO(io));
  try {
    return await (await import('../known-names.js')).keepNames(store, read.references, io);
  } finally {
    await store.close();
  }
}

/** tenantform plan [PATH]: desired (config) vs recorded (state). Sends no request. */
export async function planAction(
  pathArgs: string[],
  flags: PlanFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const { requireFull } = await import('../tenant-read.js');
  return runPlan(parsePlanRequest(pathArgs, flags, io, requireFull), io);
}

/** The config and the guardrails' config rules: the desired resources and the warnings; null when stopped (said). */
async function loadReviewed(request: PlanRequest, io: CommandIO) {
  const { input, vars } = request;
  const desired =
    vars === null ? [] : await loadDesiredOrReport(input.paths, { vars, varFiles: input.varFiles }, io);
  if (!desired) return null;
  // The guardrails' config rules: an error stops here, before the state or the tenant is read.
  const guardrails = await import('../guardrails.js');
  const settings = guardrails.runSettings(input, request.strict);
  const configWarnings = guardrails.reviewConfig(desired, settings, io);
  return configWarnings ? { desired, guardrails, settings, configWarnings } : null;
}

/** Runs a plan request: the plan shown, saved with --out; the exit code. */
async function runPlan(request: PlanRequest, io: CommandIO): Promise<number> {
  const { input } = request;
  const paths = input.paths;
  const path = paths[paths.length - 1]!;
  const loaded = await loadReviewed(request, io);
  if (!loaded) return 1;
  const { desired, guardrails, settings, configWarnings } = loaded;
  const plan = await import('../../plan/index.js');
  const { store, recorded, key, names: kept } = await readState(request, io);
  // What the plan is made against comes first, on stderr: stdout stays the
  // plan alone in every format (piped into files, comments and show's output).
  const state = describeState(store, io);
  const where = io.stderr;
  const target = await plannedTarget(input, io, request.connection.named);
  where.write(whereLines(state, target.line));
  checkTenant(recorded, target.baseUrl, request.connection.reassignTenant, state, 'plan');
  const { targets, replace, destroy } = request.selection;
  const options = { targets: [...targets], replace: [...replace], destroy, api: request.api };
  const read = request.refresh ? await readTenant(request, desired, recorded, io) : undefined;
  if (read === null) return 1;
  // Names are display only: added once the plan is made, from this read or kept from the last ones.
  const names = read ? await keepReadNames(request, read, io) : kept;
  const made = await (
    await import('../known-names.js')
  ).withNames(
    read
      ? plan.planRefreshed(desired, recorded, read, options).plan
      : plan.planChanges(desired, recorded, options),
    names,
  );
  // The plan rules need the recorded values: an error stops here, before any output or --out.
  const result = guardrails.reviewPlan(made, configWarnings, settings, io);
  if (!result) return 1;
  if (recorded === null && result.summary.create > 0) where.write(noStateWarning(state));
  io.report?.({
    state: store.description,
    changes: result.changes.filter((c) => c.action !== 'no-op').length,
  });
  const reader = { connection: request.connection, api: request.api };
  const shown = request.simulate
    ? await (
        await import('../simulate-plan.js')
      ).withEvidence(result, desired, request.simulate, { reader, input, io })
    : result;
  await writePlan(shown, request.output.format, io, request.output.verbose);

  if (request.out) {
    const stateLocation = await storeLocation(store, request.state, path, runIO(io));
    const origin = { configPaths: paths, stateLocation, target: target.baseUrl };
    await savePlan(result, origin, key!, request, io);
  }
  if (request.detailedExitcode && plan.hasChanges(result)) return 2;
  return 0;
}
