import type { ApplyEvent } from '../apply/index.js';
import { adoptedWords } from '../plan/index.js';
import { kindOf, parseAddress } from '../resources/index.js';
import type { OutputStream } from './io.js';

const VERB: Record<string, string> = {
  created: 'created',
  deleted: 'deleted',
  'already-gone': 'already gone (404 on delete)',
  replaced: 'replaced',
  forgotten: 'forgotten (stays on the tenant)',
  assigned: 'assigned',
};

/** How a finished operation is reported: "created", "already present (adopted; …)". */
function describeOutcome(event: ApplyEvent): string | undefined {
  if (event.outcome === 'adopted' && event.address !== undefined) {
    return `already present (${adoptedWords(kindOf(parseAddress(event.address).kind))})`;
  }
  return VERB[event.outcome ?? ''] ?? event.outcome;
}

/**
 * Apply progress: on a terminal a live line (done/total, rate, waits for the
 * rate limit) that the final report replaces; elsewhere one plain line per
 * finished operation, which reads well in CI logs.
 */
export function createProgress(out: OutputStream, total: number, now: () => number = Date.now) {
  const started = now();
  let done = 0;
  let failed = 0;
  let waitingMs = 0;
  const live = out.isTTY === true;
  let lastDraw = 0;

  const draw = (force = false) => {
    if (!live) return;
    const t = now();
    if (!force && t - lastDraw < 100) return;
    lastDraw = t;
    const secs = Math.max((t - started) / 1000, 0.001);
    const rate = (done / secs).toFixed(1);
    const wait = waitingMs > 0 ? `, waited ${(waitingMs / 1000).toFixed(1)}s for the rate limit` : '';
    out.write(
      `\r\x1b[2K${done + failed}/${total} done (${rate}/s${failed ? `, ${failed} failed` : ''}${wait})`,
    );
  };

  return {
    onEvent(event: ApplyEvent): void {
      const n = event.count ?? 1;
      if (event.type === 'done') {
        done += n;
        if (!live) {
          const what = n > 1 ? `${event.address} and ${n - 1} more` : event.address;
          out.write(`${what}: ${describeOutcome(event)}\n`);
        }
      } else if (event.type === 'failed') {
        failed += n;
        if (!live) out.write(`${event.address}: failed: ${event.message}\n`);
      } else if (event.type === 'wait') {
        waitingMs += event.waitMs ?? 0;
        if (!live)
          out.write(
            `waiting ${((event.waitMs ?? 0) / 1000).toFixed(1)}s for the rate limit (${event.message ?? ''})\n`,
          );
      }
      draw();
    },
    finish(): void {
      if (live) {
        draw(true);
        out.write('\n');
      }
    },
  };
}
