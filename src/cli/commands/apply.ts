import { readFileSync, statSync } from 'node:fs';
import type { Plan } from '../../plan/types.js';
import type { StateDocument, StateStore } from '../../state/types.js';
import type { ApplyResult } from '../../apply/index.js';
import type { WaitKind } from '../../api/index.js';
import { CliError, writeChunks, type CommandIO } from '../io.js';
import { absolute, withLockedState, parseCount, pacingOptions } from '../context.js';
import { createProgress } from '../progress.js';
import { createJsonProgress } from '../apply-json.js';
import { applyExitCode, keepUnrecorded, reportApply } from '../apply-report.js';
import {
  environmentApi,
  environmentCredentials,
  environmentTargetFlags,
  loadDesiredOrReport,
  openInputStore,
  resolveInputs,
  type ConfigInput,
} from '../inputs.js';
import type { ApplyFlags, DestroyFlags } from '../definitions.js';

/** apply's flags as apply and destroy run them: destroy has no --replace and plans the removal of everything. */
export type ApplyRunFlags = Omit<ApplyFlags, 'replace' | 'env' | 'allEnvs' | 'envParallelism'> &
  Partial<Pick<ApplyFlags, 'allEnvs' | 'envParallelism'>> & {
    env?: string | string[];
    replace?: string[];
    destroy?: boolean;
  };
import type { Target } from '../../api/types.js';
import type { DesiredResource } from '../../resources/index.js';
import { describeState, noStateWarning, targetGiven, whereLines } from '../where.js';
import { bindTenant, checkTenant } from '../tenant-binding.js';

/**
 * A saved plan is a JSON object with format_version and changes. A config
 * written in JSON style (YAML allows it) is not one, and neither is a
 * directory or a .yaml/.yml file. Text that starts with { but is not JSON
 * counts as a damaged plan, so that the plan reader reports it.
 */
export function looksLikePlanFile(path: string): boolean {
  try {
    if (!statSync(path).isFile() || /\.ya?ml$/i.test(path)) return false;
    const text = readFileSync(path, 'utf8');
    if (!text.trimStart().startsWith('{')) return false;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return true; // a damaged plan file: let the plan reader say what is wrong
    }
    return typeof data === 'object' && data !== null && 'format_version' in data && 'changes' in data;
  } catch {
    return false;
  }
}

/**
 * The API target from flags and environment, checked even when the plan turns
 * out to need no request: a mistyped --base-url is an error either way.
 * Null when nothing names a target (a plan without requests needs none).
 */
async function resolveGivenTarget(
  t: { domain?: string; baseUrl?: string },
  flags: ApplyRunFlags,
  io: CommandIO,
) {
  if (!targetGiven(t, io.env)) return null;
  const { resolveTarget } = await import('../../api/target.js');
  return resolveTarget({ domain: t.domain, baseUrl: t.baseUrl, audience: flags.audience }, io.env);
}

/**
 * The API client module with the target and credentials resolved. Throws a
 * clear error for a missing target or missing credentials.
 */
async function connectApi(flags: ApplyRunFlags, input: ConfigInput, given: Target | null, io: CommandIO) {
  const api = await import('../../api/index.js');
  const target = given ?? api.resolveTarget({ audience: flags.audience }, io.env);
  const credentials = api.resolveCredentials(
    { tokenFile: flags.tokenFile ? absolute(flags.tokenFile, io) : undefined },
    environmentCredentials(io.env, input),
  );
  return { createApiClient: api.createApiClient, target, credentials };
}

/** The result of an apply that had nothing to send: only blocked changes, skipped. */
function nothingApplied(plan: Plan): ApplyResult {
  const skipped = plan.changes
    .filter((c) => c.action === 'blocked')
    .map((c) => ({ address: c.address, reason: c.reason }));
  return { done: [], failed: [], notAttempted: [], unrecorded: [], stoppedBy: null, skipped };
}

/** After a destroy: says plainly which resources were only forgotten and stay on the tenant. */
function destroyNote(result: ApplyResult, io: CommandIO): void {
  const forgotten = result.done.filter((d) => d.outcome === 'forgotten').length;
  if (forgotten === 0) return;
  io.stdout.write(
    `${forgotten} resource${forgotten === 1 ? ' was' : 's were'} forgotten, not deleted (the plan gave the reason for each): ` +
      `${forgotten === 1 ? 'it stays' : 'they stay'} on the tenant. Remove ${forgotten === 1 ? 'it' : 'them'} by hand if needed.\n`,
  );
}

/** tenantform apply [PATH | PLANFILE]. */
export async function applyAction(
  pathArgs: string[],
  flags: ApplyRunFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const fleet = await import('../fleet.js');
  if (flags.json && !flags.autoApprove) {
    throw new CliError('--json needs --auto-approve: the plan is printed as JSON, not shown for a question');
  }
  if (flags.json && fleet.isFleetRun(flags)) {
    throw new CliError('--json applies one environment at a time: give one --env');
  }
  const planArg = pathArgs.find((p) => looksLikePlanFile(absolute(p, io)));
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const permissionBatchSize =
    parseCount(flags.permissionBatchSize, '--permission-batch-size', 1, 1000) ?? 100;
  const pacing = pacingOptions(flags);
  const planModule = await import('../../plan/index.js');

  let input: ConfigInput;
  let store: StateStore;
  let planFor: (doc: StateDocument) => Plan;
  let targetFlags: { domain?: string; baseUrl?: string };
  let desiredList: DesiredResource[] = [];
  const desiredFor = () => desiredList;
  const guardrails = await import('../guardrails.js');
  // Applied to the plan made under the lock: the plan rules' errors stop apply before the question.
  let review: (plan: Plan) => Plan | null;
  if (planArg !== undefined) {
    if (flags.destroy)
      throw new CliError(
        'destroy takes config paths, not a plan file; to apply a saved destroy plan use tenantform apply PLANFILE',
      );
    if ((flags.target?.length ?? 0) > 0 || (flags.replace?.length ?? 0) > 0) {
      throw new CliError(
        'a saved plan is applied exactly as it was made: give --target and --replace to tenantform plan --out instead',
      );
    }
    if (flags.refresh) {
      throw new CliError(
        'a saved plan is applied exactly as it was made: --refresh takes config paths (or run tenantform refresh before plan --out)',
      );
    }
    // Checked in full (seal, paths, flags, state location, target, changes) before any state directory or lock.
    // A refusal, then or under the lock, exits EXIT_PLAN_REFUSED: nothing was sent, planning again is the way on.
    const { openSavedPlan, refusedPlanExit, refusedPlanExitSync } = await import('../saved-plan.js');
    const opened = await refusedPlanExit(() => openSavedPlan(planArg, pathArgs, flags, io));
    ({ store, targetFlags, input } = opened);
    planFor = (doc) => refusedPlanExitSync(() => opened.planFor(doc));
    // The plan was reviewed when it was made; --strict refuses it when that review found warnings.
    review = (plan) => guardrails.strictSavedPlan(plan, flags.strict, io);
  } else {
    if (fleet.isFleetRun(flags)) return fleet.runFleet('apply', pathArgs, flags, io);
    input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
    const paths = input.paths;
    // A destroy plans the removal of everything recorded: the config only locates the state.
    const desired = flags.destroy
      ? []
      : await loadDesiredOrReport(paths, { vars: flags.var, varFiles: input.varFiles }, io);
    if (!desired) return 1;
    // The guardrails' config rules: an error stops here, before the state is locked or anything sent.
    const settings = guardrails.runSettings(input, flags.strict);
    const configWarnings = guardrails.reviewConfig(desired, settings, io);
    if (!configWarnings) return 1;
    review = (plan) => guardrails.reviewPlan(plan, configWarnings, settings, io);
    desiredList = desired;
    store = await openInputStore(flags, input, io);
    planFor = (doc) =>
      planModule.planChanges(desired, doc, {
        targets: flags.target,
        replace: flags.replace,
        destroy: flags.destroy,
        api: environmentApi(flags.api, input),
      });
    targetFlags = environmentTargetFlags(flags, input);
  }
  const live = await import('../live.js');
  if (flags.refresh) live.requireFull(await live.profileOf(flags, input), 'apply --refresh');
  // Checked even when the plan turns out to need no request: a mistyped --base-url is an error either way.
  let target: Target | null;
  try {
    target = await resolveGivenTarget(targetFlags, flags, io);
  } catch (err) {
    await store.close();
    throw err;
  }

  try {
    return await withLockedState(store, 'apply', { ...flags, io }, async (session) => {
      let early: Awaited<ReturnType<typeof live.openClient>> | null = null;
      try {
        // Said once the lock is held: a run refused by the lock prints only the holder.
        const state = describeState(store, io);
        // With --json, stdout carries JSON lines only: the header goes to stderr.
        const info = flags.json ? io.stderr : io.stdout;
        info.write(
          whereLines(state, target ? target.baseUrl : 'not set (needed only if a request must be sent)'),
        );
        checkTenant(session.doc, target?.baseUrl ?? null, flags.reassignTenant, state, 'apply');
        // --refresh: the tenant is read first (under the lock), the state brought
        // up to date with it (journaled), and the plan made against that.
        let waitSink: (ms: number, reason: string, kind: WaitKind) => void = () => {};
        let drift: Plan['drift'];
        if (flags.refresh) {
          if (target) await bindTenant(session, target.baseUrl);
          early = await live.openClient(flags, input, io, {
            parallelism,
            onWait: (ms, reason) => waitSink(ms, reason, 'rate-limit'),
          });
          // The same client sends the apply's requests afterwards: one pacer for reads and writes.
          const read = await live.readLive(
            early,
            live.listParams(desiredFor(), session.doc),
            parallelism,
            desiredFor(),
          );
          // A reference the tenant lacks stops the run before anything is recorded or sent.
          if (!(await live.referencesHold(desiredFor(), read.references, io, flags.strict))) return 1;
          const refreshed = planModule.refreshState(session.doc, read, desiredFor());
          for (const entry of refreshed.entries) await session.record(entry);
          drift = refreshed.drift;
          info.write(`${live.readSummary(read)}\n`);
        }
        const made: Plan = drift ? { ...planFor(session.doc), drift } : planFor(session.doc);
        const plan = review(made);
        if (!plan) {
          if (early) await session.commit();
          return 1;
        }
        if (session.doc.serial === 0 && plan.summary.create > 0) info.write(noStateWarning(state));
        io.report?.({
          state: store.description,
          changes: plan.changes.filter((c) => c.action !== 'no-op').length,
        });
        const json = flags.json ? createJsonProgress(io.stdout) : null;
        if (!json) {
          const color = planModule.shouldUseColor(io.stdout, io.env);
          writeChunks(io.stdout, planModule.renderTextChunks(plan, { color, verbose: flags.verbose }));
        }
        // Refuses blocked changes unless --skip-blocked: before the question, and before any request.
        const applicable = planModule.hasChanges(plan)
          ? planModule.applicableChanges(plan, { skipBlocked: flags.skipBlocked ?? false })
          : [];
        if (json) json.plan(plan, applicable);
        // An apply to a confirmed target binds the state to that tenant (once), with or without requests.
        const bind = async () => {
          if (target) await bindTenant(session, target.baseUrl);
        };
        if (applicable.length === 0) {
          await bind();
          if (early) await session.commit();
          if (json) json.summary(nothingApplied(plan), early?.stats());
          else if (planModule.hasChanges(plan))
            io.stdout.write('\nOnly blocked changes remain; nothing to apply.\n');
          return 0;
        }
        const apply = await import('../../apply/index.js');
        const needsApi = apply.countRequests(plan, { permissionBatchSize }) > 0;
        // Target and credentials are resolved before the question, so that a
        // mistake in them never comes after a "yes"; a plan that needs no request needs neither.
        const api = needsApi ? await connectApi(flags, input, target, io) : null;
        if (api) io.report?.({ target: api.target.baseUrl });
        if (!flags.autoApprove) {
          if (!io.confirm) {
            throw new CliError(
              'refusing to apply without confirmation: not on a terminal. Review the plan, then re-run with --auto-approve.',
            );
          }
          const question = plan.destroy
            ? '\nDo you really want to destroy everything listed above? Deleted policies are gone; forgotten resources stay on the tenant.'
            : '\nDo you want to make these changes?';
          if (!(await io.confirm(question))) {
            if (early) await session.commit();
            io.stdout.write('Apply cancelled; nothing was sent.\n');
            return 1;
          }
        }

        const total = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
        const progress = json ?? createProgress(io.stdout, total, { verbose: flags.verbose });
        if (early) {
          waitSink = (ms: number, reason: string, kind: WaitKind) =>
            progress.onEvent({ type: 'wait', waitMs: ms, message: reason, waitKind: kind });
        }
        // Bound before the first request: a run killed after it leaves a state that names its tenant.
        await bind();
        const client = early
          ? early
          : api
            ? api.createApiClient({
                target: api.target,
                credentials: api.credentials,
                parallelism,
                ...pacing,
                signal: io.signal,
                logger: flags.debug ? (line: string) => io.stderr.write(`[debug] ${line}\n`) : undefined,
                onWait: (ms: number, reason: string, kind: WaitKind) =>
                  progress.onEvent({ type: 'wait', waitMs: ms, message: reason, waitKind: kind }),
              })
            : null;
        if (!json) io.stdout.write('\n');
        let result: ApplyResult;
        try {
          result = await apply.applyPlan(plan, {
            // Under the full profile a 409 on create is looked up on the tenant (id and live settings).
            client: client
              ? plan.api === 'full'
                ? await live.readingClient(client)
                : client
              : apply.offlineClient,
            recorder: session,
            parallelism,
            permissionBatchSize,
            skipBlocked: flags.skipBlocked,
            onEvent: progress.onEvent,
            signal: io.signal,
          });
        } finally {
          progress.finish();
          await client?.close();
        }
        const stats = client?.stats();
        io.report?.({
          done: result.done.length,
          failed: result.failed.length + result.unrecorded.length,
          notAttempted: result.notAttempted.length,
          requests: stats?.requests ?? 0,
          status429: stats?.status429 ?? 0,
          retried429: stats?.retried429 ?? 0,
        });
        // The summary comes first, whatever saving the state or releasing the lock says afterwards.
        const rescue = await keepUnrecorded(result, session, store, io);
        const interrupted =
          io.signal?.aborted === true &&
          (result.notAttempted.length > 0 || result.failed.some((f) => f.code === 'API_ABORTED'));
        let code: number;
        if (json) {
          json.summary(result, stats);
          code = applyExitCode(result, interrupted, io);
        } else {
          code = reportApply(
            result,
            {
              rescue,
              interrupted,
              failuresListed: progress.failuresListed,
              status429: stats?.status429 ?? 0,
              retried429: stats?.retried429 ?? 0,
            },
            io,
          );
          if (plan.destroy) destroyNote(result, io);
        }
        try {
          await session.commit();
        } catch (err) {
          io.stderr.write(
            `Error: ${err instanceof Error ? err.message : String(err)}\n` +
              'Every operation recorded so far is in the journal of the state; the next plan or apply replays it.\n',
          );
          return code === 0 ? 1 : code;
        }
        return code;
      } finally {
        await early?.close();
      }
    });
  } finally {
    await store.close();
  }
}

/** tenantform destroy [PATH]: plan the removal of everything the state records, then apply it. */
export async function destroyAction(
  pathArgs: string[],
  flags: DestroyFlags,
  cmd: unknown,
  io: CommandIO,
): Promise<number> {
  return applyAction(pathArgs, { ...flags, destroy: true }, cmd, io);
}
