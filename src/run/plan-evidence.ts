/**
 * The evidence of a plan request that simulates (its `simulate`, a log
 * source): the plan to show, with what each changed policy would have done to
 * the traffic of the tenant's logs (a `simulated` effect in its review), and
 * each `enforce-without-log` warning answered when the logs show the new limit
 * at least twice their peak. runPlan saves (`out`) and returns the plan
 * without them: the evidence is for the reviewer.
 */
import type { Plan } from '../plan/types.js';
import type { DesiredResource } from '../resources/index.js';
import type { Finding, SimulatedEvidence } from '../review/index.js';
import type { PolicyResult } from '../simulate/index.js';
import type { ConfigInput, RunIO } from './requests.js';
import type { TenantReader } from './read-requests.js';

/** The tenant's events read for a plan at most. */
const PLAN_CAP = 1_000_000;

type Window = { from: number | null; to: number | null };

function evidenceOf(r: PolicyResult, window: Window, printable: (text: string) => string): SimulatedEvidence {
  const over = (a: PolicyResult['applications'][number]) => a.turnedAway + a.logged;
  return {
    from: r.requests > 0 ? window.from : null,
    to: r.requests > 0 ? window.to : null,
    requests: r.requests,
    peak: r.peakSecond?.requests ?? 0,
    secondsOver: r.secondsOver,
    turnedAway: r.turnedAway,
    logged: r.logged,
    limited: r.applications
      .filter((a) => over(a) > 0)
      .sort((a, b) => over(b) - over(a))
      .map((a) => printable(a.name ?? a.clientId)),
  };
}

/** The finding with the logs' answer, when the new limit is at least twice their peak. */
function answered(f: Finding, evidence: SimulatedEvidence | undefined): Finding {
  if (f.rule !== 'enforce-without-log' || !evidence || evidence.peak === 0) return f;
  const limit = Number(f.params.limit);
  return limit >= 2 * evidence.peak ? { ...f, params: { ...f.params, observed_peak: evidence.peak } } : f;
}

/** The plan to show: `plan` with the evidence of `source` for each changed policy. */
export async function withEvidence(
  plan: Plan,
  desired: readonly DesiredResource[],
  source: string,
  context: { reader: TenantReader; input: ConfigInput; io: RunIO },
): Promise<Plan> {
  const sim = await import('../simulate/index.js');
  const { policiesOf } = await import('../review/index.js');
  const { readLogs } = await import('./simulate.js');
  const simulation = new sim.Simulation();
  await readLogs('plan', source, simulation, {
    ...context,
    limits: { since: null, cap: PLAN_CAP },
  });
  const report = simulation.report(policiesOf(desired));
  const byAddress = new Map(report.policies.map((r) => [r.policy.address, r]));
  const simulated: Record<string, SimulatedEvidence> = {};
  for (const change of plan.changes) {
    const result =
      change.action === 'no-op' || change.after === null ? undefined : byAddress.get(change.address);
    if (result) simulated[change.address] = evidenceOf(result, report.window, sim.printable);
  }
  const findings = plan.findings?.map((f) => answered(f, f.address ? simulated[f.address] : undefined));
  return { ...plan, simulated, ...(findings ? { findings } : {}) };
}
