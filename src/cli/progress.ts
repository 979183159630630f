import type { ApplyEvent } from '../apply/index.js';
import { adoptedWords, COMPACT_ABOVE } from '../plan/index.js';
import { kindOf, parseAddress } from '../resources/index.js';
import type { OutputStream } from './io.js';

const VERB: Record<string, string> = {
  created: 'created',
  updated: 'updated in place',
  deleted: 'deleted',
  'already-gone': 'already gone (404 on delete)',
  replaced: 'replaced',
  forgotten: 'forgotten (stays on the tenant)',
  assigned: 'assigned',
};

/** The message without its trailing hint (the apply summary shows each hint once). */
export function withoutHint(message: string, hint: string | undefined): string {
  if (!hint || !message.endsWith(hint)) return message;
  return message.slice(0, message.length - hint.length).replace(/[.\s]+$/, '');
}

/** How a finished operation is reported: "created", "already present (adopted; …)". */
function describeOutcome(event: ApplyEvent): string | undefined {
  if (event.outcome === 'adopted' && event.address !== undefined) {
    const words = adoptedWords(kindOf(parseAddress(event.address).kind));
    // A replace sent its delete before the create that answered 409: both happened.
    if (event.action === 'replace') return `deleted, then already present when created again (409; ${words})`;
    return `already present (${words})`;
  }
  if (event.outcome === 'already-gone' && event.action === 'update') {
    return 'already gone (404 on update: deleted outside tenantform; the next plan creates it)';
  }
  return VERB[event.outcome ?? ''] ?? event.outcome;
}

type WaitKind = NonNullable<ApplyEvent['waitKind']>;

const WAIT_LABEL: Record<WaitKind, string> = {
  'rate-limit': 'rate limit',
  'max-rps': '--max-rps',
  'max-rate': '--max-rate',
  'server-error': 'server errors',
  connection: 'connection failures',
};

/** A line about waits at most this often per kind in plain (non-terminal) output. */
const WAIT_LINE_EVERY_MS = 10_000;
/** Waits shorter than this in total are not worth a line. */
const WAIT_WORTH_MS = 100;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/**
 * Time spent in waits that are announced when they start, with their planned
 * length: only what has passed counts as spent, so a wait cut short (the run
 * interrupted) is never reported whole, and one still running is said to be
 * planned.
 */
export class WaitClock {
  private closed = 0;
  private open: { start: number; end: number }[] = [];

  add(start: number, ms: number): void {
    this.open.push({ start, end: start + ms });
  }

  /** Time passed in the waits by `t`. */
  spent(t: number): number {
    this.open = this.open.filter((w) => {
      if (w.end > t) return true;
      this.closed += w.end - w.start;
      return false;
    });
    return this.closed + this.open.reduce((sum, w) => sum + Math.max(0, t - w.start), 0);
  }

  /** Time the waits still running at `t` are planned to take. */
  ahead(t: number): number {
    return this.open.reduce((sum, w) => sum + Math.max(0, w.end - Math.max(t, w.start)), 0);
  }

  /** Forgets what was spent by `t`; the rest of a running wait stays. */
  restart(t: number): void {
    this.open = this.open.filter((w) => w.end > t).map((w) => ({ start: Math.max(t, w.start), end: w.end }));
    this.closed = 0;
  }
}

/** Waits of one kind since its last line. */
interface WaitTally {
  count: number;
  clock: WaitClock;
  reason: string;
  lastLineAt: number;
}

/** A line on the waits of a kind: what was waited, and what is still planned (at the end: not waited); null when nothing to say. */
function waitLine(label: string, tally: WaitTally, at: number, end: boolean): string | null {
  const spent = tally.clock.spent(at);
  const ahead = tally.clock.ahead(at);
  // Nothing new since the last line but the end of waits it announced as planned: nothing to say.
  if (spent + ahead < WAIT_WORTH_MS || (tally.count === 0 && ahead === 0)) return null;
  const parts = [
    ...(tally.count === 0 ? [] : [tally.count === 1 ? '1 wait' : `${tally.count} waits`]),
    ...(spent >= WAIT_WORTH_MS / 2 || ahead === 0 ? [`${seconds(spent)} waited`] : []),
    ...(ahead === 0 ? [] : [`${seconds(ahead)} planned${end ? ' but not waited' : ''}`]),
  ];
  return `${label}: ${parts.join(', ')}; last: ${tally.reason}\n`;
}

/** Above this many changes, plain output tells progress in steps, not one line per operation (as the plan). */
export const STEP_ABOVE = COMPACT_ABOVE;
/** Failures printed one by one in stepped output before the rest are left to the summary. */
const FAILURE_LINES = 10;

export interface ProgressOptions {
  /** One line per finished operation however many there are. */
  verbose?: boolean;
  now?: () => number;
}

/** What plain (non-terminal) output says for finished and failed operations. */
function plainLines(out: OutputStream, total: number, options: ProgressOptions, started: number) {
  const stepped = options.verbose !== true && total > STEP_ABOVE;
  const step = Math.ceil(total / 10);
  const now = options.now ?? Date.now;
  let finished = 0;
  let failures = 0;
  const counts = { done: 0, failed: 0 };
  return {
    /** False once a failure went unprinted (stepped output prints the first few). */
    get failuresListed(): boolean {
      return failures <= FAILURE_LINES || !stepped;
    },
    done(event: ApplyEvent, n: number): void {
      counts.done += n;
      if (!stepped) {
        const what = n > 1 ? `${event.address} and ${n - 1} more` : event.address;
        out.write(`${what}: ${describeOutcome(event)}\n`);
      }
      this.advance(n);
    },
    failed(event: ApplyEvent, n: number): void {
      counts.failed += n;
      failures += 1;
      if (!stepped || failures <= FAILURE_LINES) {
        out.write(`${event.address}: failed: ${withoutHint(event.message ?? '', event.hint)}\n`);
      } else if (failures === FAILURE_LINES + 1) {
        out.write(`(more failures: the summary lists them)\n`);
      }
      this.advance(n);
    },
    /** In stepped output, a line each time another tenth of the operations is finished. */
    advance(n: number): void {
      const before = finished;
      finished += n;
      if (!stepped || (Math.floor(before / step) === Math.floor(finished / step) && finished < total)) return;
      const secs = Math.max((now() - started) / 1000, 0.001);
      const failed = counts.failed > 0 ? `, ${counts.failed} failed` : '';
      out.write(`${finished}/${total} done (${(counts.done / secs).toFixed(1)}/s${failed})\n`);
    },
  };
}

/**
 * Apply progress: on a terminal a live line (done/total, rate, time waited
 * for the rate limit) that the final report replaces; elsewhere one plain line
 * per finished operation, which reads well in CI logs, or above STEP_ABOVE
 * operations (unless verbose) a line per tenth done, failures printed as they
 * happen up to ten. Waits are summed per kind: plain output gets one line per
 * kind at most every 10 s (the first one at once), and a last one at the end
 * for what was not yet told.
 */
export function createProgress(out: OutputStream, total: number, options: ProgressOptions = {}) {
  const now = options.now ?? Date.now;
  const started = now();
  let done = 0;
  let failed = 0;
  const rateWaits = new WaitClock();
  const live = out.isTTY === true;
  const plain = plainLines(out, total, options, started);
  let lastDraw = 0;
  const tallies = new Map<WaitKind, WaitTally>();

  const draw = (force = false) => {
    if (!live) return;
    const t = now();
    if (!force && t - lastDraw < 100) return;
    lastDraw = t;
    const secs = Math.max((t - started) / 1000, 0.001);
    const rate = (done / secs).toFixed(1);
    const waited = rateWaits.spent(t);
    const wait = waited >= WAIT_WORTH_MS ? `, waited ${seconds(waited)} for the rate limit` : '';
    const others = [...tallies]
      .filter(([kind, tally]) => kind !== 'rate-limit' && tally.count > 0)
      .map(([kind, tally]) => `, ${tally.count} retries after ${WAIT_LABEL[kind]}`)
      .join('');
    out.write(
      `\r\x1b[2K${done + failed}/${total} done (${rate}/s${failed ? `, ${failed} failed` : ''}${wait}${others})`,
    );
  };

  const tell = (kind: WaitKind, tally: WaitTally, at: number, end = false): void => {
    const line = waitLine(WAIT_LABEL[kind], tally, at, end);
    if (line === null) return;
    out.write(line);
    tally.count = 0;
    tally.clock.restart(at);
    tally.lastLineAt = at;
  };

  const onWait = (kind: WaitKind, ms: number, reason: string): void => {
    const start = now();
    if (kind === 'rate-limit') rateWaits.add(start, ms);
    const tally = tallies.get(kind) ?? { count: 0, clock: new WaitClock(), reason, lastLineAt: -Infinity };
    tallies.set(kind, tally);
    tally.count += 1;
    tally.clock.add(start, ms);
    tally.reason = reason;
    if (!live && start - tally.lastLineAt >= WAIT_LINE_EVERY_MS) tell(kind, tally, start);
  };

  return {
    /** True when progress is a live line (a terminal). */
    live,
    /** True when every failure was printed as it happened (the summary then names fewer). */
    get failuresListed(): boolean {
      return !live && plain.failuresListed;
    },
    onEvent(event: ApplyEvent): void {
      const n = event.count ?? 1;
      if (event.type === 'done') {
        done += n;
        if (!live) plain.done(event, n);
      } else if (event.type === 'failed') {
        failed += n;
        if (!live) plain.failed(event, n);
      } else if (event.type === 'wait') {
        onWait(event.waitKind ?? 'rate-limit', event.waitMs ?? 0, event.message ?? '');
      }
      draw();
    },
    finish(): void {
      if (live) {
        draw(true);
        out.write('\n');
        return;
      }
      const t = now();
      for (const [kind, tally] of tallies) tell(kind, tally, t, true);
    },
  };
}
