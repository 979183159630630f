import type { ApplyEvent, ApplyResult } from '../apply/index.js';
import type { ApiStats } from '../api/types.js';
import type { Plan } from '../plan/types.js';
import type { OutputStream } from './io.js';

/**
 * `apply --json`: one JSON object per line (schemas/apply-event.schema.json)
 * built from the executor's progress events, never from the text output: a
 * plan line, started/done/failed per operation, waits for the rate limit, and
 * a summary. `now` is a monotonic clock in milliseconds (injected in tests).
 */
export function createJsonProgress(out: OutputStream, now: () => number = () => performance.now()) {
  const startedAt = new Map<string, number>();
  const line = (event: Record<string, unknown>) => out.write(JSON.stringify(event) + '\n');
  const since = (address: string | undefined): number => {
    const start = address === undefined ? undefined : startedAt.get(address);
    return start === undefined ? 0 : Math.max(0, Math.round((now() - start) * 10) / 10);
  };

  return {
    /** Never a live terminal line: every event is its own line. */
    live: false,
    /** Every failure is a line of its own. */
    failuresListed: true,

    plan(plan: Plan, applicable: readonly { address: string; action: string }[]): void {
      line({
        type: 'plan',
        api: plan.api,
        summary: plan.summary,
        changes: applicable.map((c) => ({ address: c.address, action: c.action })),
        partial: plan.targets !== undefined,
        destroy: plan.destroy === true,
      });
    },

    onEvent(event: ApplyEvent): void {
      const resources = event.count ?? 1;
      if (event.type === 'start') {
        if (event.address !== undefined) startedAt.set(event.address, now());
        line({ type: 'started', address: event.address, action: event.action, resources });
      } else if (event.type === 'done') {
        line({
          type: 'done',
          address: event.address,
          action: event.action,
          outcome: event.outcome,
          status: event.status ?? null,
          duration_ms: since(event.address),
          resources,
        });
      } else if (event.type === 'failed') {
        line({
          type: 'failed',
          address: event.address,
          action: event.action,
          status: event.status ?? null,
          code: event.code ?? null,
          message: event.message ?? '',
          duration_ms: since(event.address),
          resources,
        });
      } else if (event.type === 'wait') {
        line({ type: 'wait', wait_ms: event.waitMs ?? 0, reason: event.message ?? '' });
      }
    },

    finish(): void {},

    /** `stats`: the API client's figures; absent when no request was needed. */
    summary(result: ApplyResult, stats?: Pick<ApiStats, 'requests' | 'status429' | 'retried429'>): void {
      const outcomes: Record<string, number> = {};
      for (const d of result.done) outcomes[d.outcome] = (outcomes[d.outcome] ?? 0) + 1;
      line({
        type: 'summary',
        complete: result.failed.length === 0 && result.notAttempted.length === 0,
        outcomes,
        done: result.done.length,
        failed: result.failed.map((f) => ({
          address: f.address,
          action: f.action,
          code: f.code ?? null,
          message: f.message,
        })),
        not_attempted: result.notAttempted.map((n) => n.address),
        skipped: result.skipped.map((s) => s.address),
        requests: stats?.requests ?? 0,
        answered_429: stats?.status429 ?? 0,
        retried_429: stats?.retried429 ?? 0,
      });
    },
  };
}
