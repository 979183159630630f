import { describe, expect, it } from 'vitest';
import { createProgress } from './progress.js';

function plain() {
  let t = 1_000_000;
  const lines: string[] = [];
  const out = { isTTY: false, write: (s: string) => (lines.push(s), true) };
  const progress = createProgress(out as never, 100, () => t);
  return { progress, lines, advance: (ms: number) => (t += ms) };
}

const wait = (ms: number, message: string, waitKind: 'rate-limit' | 'server-error' | 'connection') =>
  ({ type: 'wait', waitMs: ms, message, waitKind }) as const;

describe('progress without a terminal', () => {
  it('sums rate-limit waits into a line at most every 10 s and one at the end, never one per wait', () => {
    const { progress, lines, advance } = plain();
    for (let i = 0; i < 300; i++) {
      progress.onEvent(wait(100, 'pacing to the tenant rate limit', 'rate-limit'));
      advance(100);
    }
    progress.finish();
    expect(lines).toEqual([
      'rate limit: 1 wait, 0.1s in all; last: pacing to the tenant rate limit\n',
      'rate limit: 100 waits, 10.0s in all; last: pacing to the tenant rate limit\n',
      'rate limit: 100 waits, 10.0s in all; last: pacing to the tenant rate limit\n',
      'rate limit: 99 waits, 9.9s in all; last: pacing to the tenant rate limit\n',
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
    const { progress, lines } = plain();
    progress.onEvent(wait(700, 'server error 503 Service Unavailable; retrying', 'server-error'));
    progress.onEvent(wait(400, 'connection refused, ECONNREFUSED; retrying', 'connection'));
    progress.finish();
    expect(lines).toEqual([
      'server errors: 1 wait, 0.7s in all; last: server error 503 Service Unavailable; retrying\n',
      'connection failures: 1 wait, 0.4s in all; last: connection refused, ECONNREFUSED; retrying\n',
    ]);
    expect(lines.join('')).not.toMatch(/rate limit/);
    expect(lines.join('')).not.toMatch(/\([^)]*\(/); // no nested parentheses
  });
});
