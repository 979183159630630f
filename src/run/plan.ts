/**
 * A plan request run: the config and its rules, the state read (no lock, no
 * write), the tenant read when the request refreshes, the plan made and
 * reviewed, shown (with the evidence of the logs when the request
 * simulates), and saved sealed when the request names a file. Sends no
 * request but reads.
 */
import { closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import type { TenantRead } from '../api/index.js';
import type { Plan, PlanFileMeta } from '../plan/index.js';
import type { DesiredResource, KnownNames } from '../resources/index.js';
import type { StateDocument } from '../state/index.js';
import { RunError } from './errors.js';
import { keepNames, storedNames, withNames } from './known-names.js';
import { readStateWithRescue } from './locked-state.js';
import type { PlanRequest, RunIO } from './requests.js';
import { loadReviewed, reviewPlan } from './review.js';
import { absolute, environmentTarget, openInputStore, storeLocation, targetGiven } from './state-store.js';
import { checkTenant, describeStore } from './tenant-binding.js';
import { listParams, readLive, referencesHold } from './tenant-read.js';
import type { RunView, WhereTarget } from './view.js';

/** How a plan ended: made (shown, and saved when asked), or stopped (told). */
export type PlanResult = { status: 'planned'; plan: Plan; hasChanges: boolean } | { status: 'stopped' };

/** When and by which version a saved plan is made. */
export interface PlanMaker {
  toolVersion: string;
  now?: () => Date;
}

/**
 * The target apply would use: the request's, else the environment's, else
 * the process environment's. `baseUrl` is what a saved plan records so that
 * apply refuses another (null when none is set or it is invalid).
 */
async function plannedTarget(
  request: PlanRequest,
  io: RunIO,
): Promise<{ baseUrl: string | null; where: WhereTarget }> {
  const t = environmentTarget(request.connection.named, request.input);
  if (!targetGiven(t, io.env)) return { baseUrl: null, where: { kind: 'unset' } };
  const { resolveTarget } = await import('../api/target.js');
  try {
    const { baseUrl } = resolveTarget({ domain: t.domain, baseUrl: t.baseUrl }, io.env);
    return { baseUrl, where: { kind: 'set', baseUrl } };
  } catch (error) {
    return { baseUrl: null, where: { kind: 'invalid', error } };
  }
}

/** The state the plan is made against, the names kept with it, and the plan key that seals a saved plan. */
async function readState(request: PlanRequest, io: RunIO) {
  const store = await openInputStore(request.state, request.connection.named, request.input, io);
  try {
    const recorded = await readStateWithRescue(store, io);
    const key = request.out ? await store.planKey({ create: true }) : null;
    return { store, recorded, key, names: await storedNames(store, io) };
  } finally {
    await store.close();
  }
}

/**
 * The tenant read (the lists of what the config and the state name, and what
 * the config refers to), the names it gave kept; null when a reference the
 * config makes is not on the tenant (told).
 */
async function readTenant(
  request: PlanRequest,
  desired: readonly DesiredResource[],
  recorded: StateDocument | null,
  io: RunIO,
  view: RunView,
): Promise<{ read: TenantRead; names: KnownNames } | null> {
  const { openClient } = await import('./connection.js');
  const client = await openClient(request.connection, request.input, io);
  let read;
  try {
    read = await readLive(client, listParams(desired, recorded), 10, desired);
  } finally {
    await client.close();
  }
  view.event({ kind: 'tenant-read', read });
  if (!(await referencesHold(desired, read.references, request.strict, view))) return null;
  const store = await openInputStore(request.state, request.connection.named, request.input, io);
  try {
    return { read, names: await keepNames(store, read.references, io) };
  } finally {
    await store.close();
  }
}

/**
 * Writes the plan, with where it was made, sealed with the state's plan key
 * (`key`), to a file only its owner may read (mode 0600, also for a file
 * that exists).
 */
async function savePlan(
  plan: Plan,
  origin: Omit<PlanFileMeta, 'createdAt' | 'toolVersion'>,
  key: Buffer,
  file: string,
  made: PlanMaker,
  io: RunIO,
): Promise<void> {
  const { serializePlan } = await import('../plan/index.js');
  const createdAt = (made.now?.() ?? new Date()).toISOString();
  const meta = { createdAt, toolVersion: made.toolVersion, ...origin };
  const text = serializePlan(plan, meta, key, ...(io.settingNames ? [io.settingNames] : []));
  // The mode given to open applies only to a new file: fchmod an existing one before writing.
  let fd: number;
  try {
    fd = openSync(absolute(file, io), 'w', 0o600);
  } catch (err) {
    const { ioReason } = await import('../state/errors.js');
    const reason = ioReason(err);
    throw new RunError(
      { code: 'PLAN_UNWRITABLE', file, reason },
      `cannot write the plan to ${file}: ${reason}`,
    );
  }
  try {
    fchmodSync(fd, 0o600);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** The plan made against `recorded` (and the read, when there is one), with the names known. */
async function makePlan(
  request: PlanRequest,
  desired: readonly DesiredResource[],
  recorded: StateDocument | null,
  read: TenantRead | undefined,
  names: KnownNames | null,
): Promise<Plan> {
  const plan = await import('../plan/index.js');
  const { targets, replace, destroy } = request.selection;
  const options = { targets: [...targets], replace: [...replace], destroy, api: request.api };
  // Names are display only: added once the plan is made, from this read or kept from the last ones.
  return withNames(
    read
      ? plan.planRefreshed(desired, recorded, read, options).plan
      : plan.planChanges(desired, recorded, options),
    names,
  );
}

/** The plan to show: with the simulation's evidence when the request simulates (plan-evidence.ts). */
async function shownPlan(
  request: PlanRequest,
  plan: Plan,
  desired: readonly DesiredResource[],
  io: RunIO,
): Promise<Plan> {
  if (!request.simulate) return plan;
  const { withEvidence } = await import('./plan-evidence.js');
  const reader = { connection: request.connection, api: request.api };
  return withEvidence(plan, desired, request.simulate, { reader, input: request.input, io });
}

/** Runs a plan request: the plan shown (view.showPlan), saved when the request names a file. */
export async function runPlan(
  request: PlanRequest,
  io: RunIO,
  view: RunView,
  maker: PlanMaker,
): Promise<PlanResult> {
  const loaded = await loadReviewed(request.input, request.vars, request.strict, io, view);
  if (!loaded) return { status: 'stopped' };
  const { desired, settings, configWarnings } = loaded;
  const { store, recorded, key, names: kept } = await readState(request, io);
  const state = describeStore(store, io.cwd);
  const target = await plannedTarget(request, io);
  view.event({ kind: 'where', state, target: target.where });
  checkTenant(recorded, target.baseUrl, request.connection.reassignTenant, state, 'plan');
  const tenant = request.refresh ? await readTenant(request, desired, recorded, io, view) : undefined;
  if (tenant === null) return { status: 'stopped' };
  const made = await makePlan(request, desired, recorded, tenant?.read, tenant ? tenant.names : kept);
  // The plan rules need the recorded values: an error stops here, before any output or saved plan.
  const plan = reviewPlan(made, configWarnings, settings, view);
  if (!plan) return { status: 'stopped' };
  if (recorded === null && plan.summary.create > 0) view.event({ kind: 'no-state', state });
  const changes = plan.changes.filter((c) => c.action !== 'no-op').length;
  view.event({ kind: 'figures', figures: { state: store.description, changes } });
  await view.showPlan({ plan: await shownPlan(request, plan, desired, io), desired, applicable: [] });
  if (request.out) {
    const paths = request.input.paths;
    const stateLocation = await storeLocation(store, request.state, paths[paths.length - 1]!, io);
    const origin = { configPaths: paths, stateLocation, target: target.baseUrl };
    await savePlan(plan, origin, key!, request.out, maker, io);
    view.event({ kind: 'plan-saved', file: request.out });
  }
  const { hasChanges } = await import('../plan/index.js');
  return { status: 'planned', plan, hasChanges: hasChanges(plan) };
}
