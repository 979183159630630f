import { readFileSync, statSync } from 'node:fs';
import type { Plan } from '../../plan/types.js';
import type { ApplyResult } from '../../apply/index.js';
import type { WaitKind } from '../../api/index.js';
import { CliError, writeChunks, type CommandIO } from '../io.js';
import { absolute, openStore, withLockedState, parseCount, parseRate } from '../context.js';
import { createProgress } from '../progress.js';
import { keepUnrecorded, reportApply } from '../apply-report.js';
import {
  environmentCredentials,
  environmentStateFlags,
  environmentTargetFlags,
  loadDesiredOrReport,
  resolveInputs,
  type ConfigInput,
} from '../inputs.js';
import type { ApplyFlags } from '../definitions.js';
import type { Target } from '../../api/types.js';
import { describeState, noStateWarning, targetGiven, whereLines } from '../where.js';

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
async function resolveGivenTarget(flags: ApplyFlags, input: ConfigInput, io: CommandIO) {
  const t = environmentTargetFlags(flags, input);
  if (!targetGiven(t, io.env)) return null;
  const { resolveTarget } = await import('../../api/target.js');
  return resolveTarget({ domain: t.domain, baseUrl: t.baseUrl, audience: flags.audience }, io.env);
}

/**
 * The API client module with the target and credentials resolved. Throws a
 * clear error for a missing target or missing credentials.
 */
async function connectApi(flags: ApplyFlags, input: ConfigInput, given: Target | null, io: CommandIO) {
  const api = await import('../../api/index.js');
  const target = given ?? api.resolveTarget({ audience: flags.audience }, io.env);
  const credentials = api.resolveCredentials(
    { tokenFile: flags.tokenFile ? absolute(flags.tokenFile, io) : undefined },
    environmentCredentials(io.env, input),
  );
  return { createApiClient: api.createApiClient, target, credentials };
}

/** tenantform apply [PATH | PLANFILE]. */
export async function applyAction(
  pathArgs: string[],
  flags: ApplyFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const fleet = await import('../fleet.js');
  if (fleet.isFleetRun(flags)) return fleet.runFleet('apply', pathArgs, flags, io);
  const input = resolveInputs(pathArgs, flags.env, flags.varFile, io, 'one')[0]!;
  const paths = input.paths;
  const path = paths[paths.length - 1]!;
  const parallelism = parseCount(flags.parallelism, '--parallelism', 1, 256) ?? 10;
  const permissionBatchSize =
    parseCount(flags.permissionBatchSize, '--permission-batch-size', 1, 1000) ?? 100;
  const maxRps = parseRate(flags.maxRps, '--max-rps');
  const target = await resolveGivenTarget(flags, input, io);
  const planModule = await import('../../plan/index.js');

  const absPath = absolute(path, io);
  let saved: { plan: Plan; configPath: string } | null = null;
  let desired = null;
  if (looksLikePlanFile(absPath)) {
    if (paths.length > 1) throw new CliError('apply takes either config paths or one plan file, not both');
    saved = planModule.readPlanFile(readFileSync(absPath, 'utf8'), path);
  } else {
    desired = await loadDesiredOrReport(paths, { vars: flags.var, varFiles: input.varFiles }, io);
    if (!desired) return 1;
  }

  const store = await openStore(environmentStateFlags(flags, input), saved ? saved.configPath : path, io);
  try {
    return await withLockedState(store, 'apply', { ...flags, io }, async (session) => {
      // Said once the lock is held: a run refused by the lock prints only the holder.
      const state = describeState(store, io);
      io.stdout.write(
        whereLines(state, target ? target.baseUrl : 'not set (needed only if a request must be sent)'),
      );
      let plan: Plan;
      if (saved) {
        // A state never written (serial 0) is the same as no state at plan time.
        planModule.checkPlanIsCurrent(saved.plan, session.doc.serial === 0 ? null : session.doc);
        plan = saved.plan;
      } else {
        plan = planModule.planChanges(desired ?? [], session.doc);
      }
      if (session.doc.serial === 0 && plan.summary.create > 0) io.stdout.write(noStateWarning(state));
      io.report?.({
        state: store.description,
        changes: plan.changes.filter((c) => c.action !== 'no-op').length,
      });
      const color = planModule.shouldUseColor(io.stdout, io.env);
      writeChunks(io.stdout, planModule.renderTextChunks(plan, { color }));
      if (!planModule.hasChanges(plan)) return 0;
      // Refuses blocked changes unless --skip-blocked: before the question, and before any request.
      if (planModule.applicableChanges(plan, { skipBlocked: flags.skipBlocked ?? false }).length === 0) {
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
        if (!(await io.confirm('\nDo you want to make these changes?'))) {
          io.stdout.write('Apply cancelled; nothing was sent.\n');
          return 1;
        }
      }

      const total = plan.changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked').length;
      const progress = createProgress(io.stdout, total);
      const client = api
        ? api.createApiClient({
            target: api.target,
            credentials: api.credentials,
            parallelism,
            maxRps,
            signal: io.signal,
            logger: flags.debug ? (line: string) => io.stderr.write(`[debug] ${line}\n`) : undefined,
            onWait: (ms: number, reason: string, kind: WaitKind) =>
              progress.onEvent({ type: 'wait', waitMs: ms, message: reason, waitKind: kind }),
          })
        : null;
      io.stdout.write('\n');
      let result: ApplyResult;
      try {
        result = await apply.applyPlan(plan, {
          client: client ?? apply.offlineClient,
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
      });
      // The summary comes first, whatever saving the state or releasing the lock says afterwards.
      const rescue = await keepUnrecorded(result, session, store, io);
      const code = reportApply(
        result,
        {
          rescue,
          interrupted:
            io.signal?.aborted === true &&
            (result.notAttempted.length > 0 || result.failed.some((f) => f.code === 'API_ABORTED')),
          progressWasLive: progress.live,
        },
        io,
      );
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
    });
  } finally {
    await store.close();
  }
}
