/**
 * Step 1 of an apply run, before the lock: the saved plan or the config
 * (with its rules), the state store and the target, everything checked that
 * can be checked without the lock. A saved plan's refusal is a RunError
 * PLAN_REFUSED (nothing was locked, recorded or sent: plan again).
 */
import type { Plan } from '../plan/types.js';
import type { DesiredResource } from '../resources/index.js';
import type { StateDocument, StateStore } from '../state/types.js';
import type { StateSession } from '../state/index.js';
import { bindTenant } from './tenant-binding.js';
import { ApiConnection } from './connection.js';
import { RunError } from './errors.js';
import type { ApplyRequest, ConfigInput, RunIO } from './requests.js';
import { loadReviewed, reviewPlan, strictSavedPlan } from './review.js';
import { openSavedPlan, refusal } from './saved-plan.js';
import { openInputStore, targetGiven } from './state-store.js';
import type { RunView } from './view.js';

/** What an apply needs once its inputs are read, before the lock. */
export interface ApplyRun {
  request: ApplyRequest;
  io: RunIO;
  view: RunView;
  input: ConfigInput;
  store: StateStore;
  /** The plan against the locked state's document. */
  planFor(doc: StateDocument): Plan;
  /** What the config asks for (none for a saved plan or a destroy): a refresh compares it too. */
  desired: readonly DesiredResource[];
  /** The guardrails' review of the plan made under the lock: null when an error stops apply (told) before the question. */
  review(plan: Plan): Plan | null;
  /** The one API client, made when first needed. */
  connection: ApiConnection;
}

/**
 * An apply to a confirmed target binds the state to that tenant (once): when
 * it has nothing to send, at once; else when the tenant first answers, before
 * anything it answered is recorded.
 */
export async function bindTarget(run: ApplyRun, session: StateSession): Promise<void> {
  const target = run.connection.given;
  if (target) await bindTenant(session, target.baseUrl);
}

type Inputs = Pick<ApplyRun, 'input' | 'store' | 'planFor' | 'desired' | 'review'>;

/** Runs `fn` (checking a saved plan under the lock), its PlanError a refusal of the plan. */
function refusing<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw refusal(err);
  }
}

/** Runs `fn` (reading a saved plan), its PlanError a refusal of the plan. */
async function refusingAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw refusal(err);
  }
}

/** A saved plan's store and planFor, after every check it needs (saved-plan.ts). */
async function preparePlanFile(
  request: ApplyRequest,
  file: string,
  io: RunIO,
  view: RunView,
): Promise<Inputs> {
  const input = request.source.input;
  // Checked in full (seal, paths, flags, state location, target, changes) before any state directory or lock.
  const opened = await refusingAsync(() => openSavedPlan(file, { ...request, input }, io));
  const planFor = (doc: StateDocument) => refusing(() => opened.planFor(doc));
  // The plan was reviewed when it was made; strict refuses it when that review found warnings.
  const review = (plan: Plan) => strictSavedPlan(plan, request.strict, view);
  return { input, store: opened.store, planFor, desired: [], review };
}

/** The config's store and planFor; null when the config has problems (told). */
async function prepareConfig(
  request: ApplyRequest,
  vars: Record<string, string> | null,
  io: RunIO,
  view: RunView,
): Promise<Inputs | null> {
  const input = request.source.input;
  // The guardrails' config rules: an error stops here, before the state is locked or anything sent.
  const loaded = await loadReviewed(input, vars, request.strict, io, view);
  if (!loaded) return null;
  const { desired, settings, configWarnings } = loaded;
  const review = (plan: Plan) => reviewPlan(plan, configWarnings, settings, view);
  const { planChanges } = await import('../plan/index.js');
  const store = await openInputStore(request.state, request.connection.named, input, io);
  const { targets, replace, destroy } = request.selection;
  const options = { targets: [...targets], replace: [...replace], destroy, api: request.api ?? 'spec' };
  const planFor = (doc: StateDocument) => planChanges(desired, doc, options);
  return { input, store, planFor, desired, review };
}

/**
 * The API target the request and the environment name, checked even when the
 * plan turns out to need no request: a mistyped target is an error either
 * way. Null when nothing names a target (a plan without requests needs none).
 */
async function resolveGivenTarget(request: ApplyRequest, io: RunIO) {
  const { target: t, audience } = request.connection;
  if (!targetGiven(t, io.env)) return null;
  const { resolveTarget } = await import('../api/target.js');
  return resolveTarget({ domain: t.domain, baseUrl: t.baseUrl, audience }, io.env);
}

/**
 * Step 1, prepare: the saved plan or the config, the state store and the
 * target. Null when the config has problems (told).
 */
export async function prepareApply(
  request: ApplyRequest,
  io: RunIO,
  view: RunView,
): Promise<ApplyRun | null> {
  const { source } = request;
  const inputs =
    source.kind === 'plan-file'
      ? await preparePlanFile(request, source.file, io, view)
      : await prepareConfig(request, source.vars, io, view);
  if (!inputs) return null;
  try {
    if (request.refresh && (request.api ?? 'spec') !== 'full') {
      throw new RunError(
        { code: 'READ_NEEDS_FULL', read: 'apply-refresh' },
        'a refresh reads the tenant, and the spec API profile has no read operation',
      );
    }
    const given = await resolveGivenTarget(request, io);
    const { parallelism } = request;
    const connection = new ApiConnection({
      request: request.connection,
      input: inputs.input,
      given,
      io,
      parallelism,
      store: inputs.store,
    });
    return { request, io, view, ...inputs, connection };
  } catch (err) {
    await inputs.store.close();
    throw err;
  }
}
