import { describe, expect, it } from 'vitest';
import { createProgress, STEP_ABOVE } from './progress.js';

function plain() {
  let t = 1_000_000;
  const lines: string[] = [];
  const out = { isTTY: false, write: (s: string) => (lines.push(s), true) };
  const progress = createProgress(out as never, 100, { now: () => t });
  return { progress, lines, advance: (ms: number) => (t += ms) };
}

const wait = (
  ms: number,
  message: string,
  waitKind: 'rate-limit' | 'max-rps' | 'max-rate' | 'server-error' | 'connection',
) => ({ type: 'wait', waitMs: ms, message, waitKind }) as const;

describe('progress without a terminal', () => {
  it('sums rate-limit waits into a line at most every 10 s and one at the end, never one per wait', () => {
    const { progress, lines, advance } = plain();
    for (let i = 0; i < 300; i++) {
      progress.onEvent(wait(100, 'pacing to the tenant rate limit', 'rate-limit'));
      advance(100);
    }
    progress.finish();
    expect(lines).toEqual([
      'rate limit: 1 wait, 0.1s planned; last: pacing to the tenant rate limit\n',
      'rate limit: 100 waits, 10.0s waited, 0.1s planned; last: pacing to the tenant rate limit\n',
      'rate limit: 100 waits, 10.0s waited, 0.1s planned; last: pacing to the tenant rate limit\n',
      'rate limit: 99 waits, 10.0s waited; last: pacing to the tenant rate limit\n',
    ]);
  });

  it('counts as waited only the time that passed: a wait cut short is not reported whole (issue 35, item 12)', () => {
    const { progress, lines, advance } = plain();
    progress.onEvent(wait(20_000_000, "0.01% of the tenant's sustained rate", 'max-rate'));
    advance(3_000);
    progress.finish();
    expect(lines).toEqual([
      "--max-rate: 1 wait, 20000.0s planned; last: 0.01% of the tenant's sustained rate\n",
      "--max-rate: 3.0s waited, 19997.0s planned but not waited; last: 0.01% of the tenant's sustained rate\n",
    ]);
  });

  it('prints no line for waits too short to matter ("waiting 0.0s")', () => {
    const { progress, lines } = plain();
    progress.onEvent(wait(3, 'pacing to the tenant rate limit', 'rate-limit'));
    progress.onEvent(wait(0, 'pacing to the tenant rate limit', 'rate-limit'));
    progress.finish();
    expect(lines).toEqual([]);
  });

  it('calls server errors and connection failures what they are, not the rate limit', () => {
    const { progress, lines, advance } = plain();
    progress.onEvent(wait(700, 'server error 503 Service Unavailable; retrying', 'server-error'));
    progress.onEvent(wait(400, 'connection refused, ECONNREFUSED; retrying', 'connection'));
    progress.onEvent(wait(500, 'at most 2 requests per second', 'max-rps'));
    progress.onEvent(wait(300, "30% of the tenant's sustained rate", 'max-rate'));
    advance(1_000);
    progress.finish();
    expect(lines).toEqual([
      'server errors: 1 wait, 0.7s planned; last: server error 503 Service Unavailable; retrying\n',
      'connection failures: 1 wait, 0.4s planned; last: connection refused, ECONNREFUSED; retrying\n',
      '--max-rps: 1 wait, 0.5s planned; last: at most 2 requests per second\n',
      "--max-rate: 1 wait, 0.3s planned; last: 30% of the tenant's sustained rate\n",
    ]);
    expect(lines.join('')).not.toMatch(/rate limit/);
    expect(lines.join('')).not.toMatch(/\([^)]*\(/); // no nested parentheses
  });
});

describe('progress of a large apply without a terminal', () => {
  function stepped(total: number, verbose = false) {
    let t = 0;
    const lines: string[] = [];
    const out = { isTTY: false, write: (s: string) => (lines.push(s), true) };
    const progress = createProgress(out as never, total, { verbose, now: () => t });
    return { progress, lines, advance: (ms: number) => (t += ms) };
  }
  const done = (i: number) =>
    ({
      type: 'done',
      address: `rate_limit_policy["r","c","s${i}"]`,
      action: 'create',
      outcome: 'created',
    }) as const;

  it('says where it is a tenth at a time instead of a line per operation', () => {
    const { progress, lines, advance } = stepped(300);
    for (let i = 0; i < 300; i++) {
      advance(100);
      progress.onEvent(done(i));
    }
    progress.finish();
    expect(lines).toEqual(Array.from({ length: 10 }, (_, k) => `${(k + 1) * 30}/300 done (10.0/s)\n`));
    expect(progress.failuresListed).toBe(true);
  });

  it('prints one line per operation with verbose, and at STEP_ABOVE operations', () => {
    for (const [total, verbose] of [
      [300, true],
      [STEP_ABOVE, false],
    ] as const) {
      const { progress, lines } = stepped(total, verbose);
      for (let i = 0; i < total; i++) progress.onEvent(done(i));
      expect(lines).toHaveLength(total);
      expect(lines[0]).toBe('rate_limit_policy["r","c","s0"]: created\n');
    }
  });

  it('prints the first ten failures, then leaves the rest to the summary', () => {
    const { progress, lines } = stepped(100);
    for (let i = 0; i < 30; i++)
      progress.onEvent({ type: 'failed', address: `a${i}`, action: 'create', message: 'refused' });
    expect(lines.filter((l) => l.endsWith(': failed: refused\n'))).toHaveLength(10);
    expect(lines).toContain('(more failures: the summary lists them)\n');
    expect(lines).toContain('10/100 done (0.0/s, 10 failed)\n');
    expect(progress.failuresListed).toBe(false);
  });
});
