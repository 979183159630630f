import { describe, expect, it } from 'vitest';
import { RefillModel, type AcceptedAnswer } from './refill-model.js';
import { TenantClock } from './tenant-clock.js';

const S = 1_700_000_000_000;

/** An answer served at our time `at` (clocks agree), 1 ms each way. */
function answer(at: number, remaining: number, resetMs: number, limit = 10): AcceptedAnswer {
  return { sentAt: at - 1, recvAt: at + 1, dateMs: Math.floor(at / 1000) * 1000, limit, remaining, resetMs };
}

function model(): RefillModel {
  const clock = new TenantClock();
  const m = new RefillModel(clock);
  const observe = m.observe.bind(m);
  m.observe = (a) => {
    clock.observe(a);
    observe(a);
  };
  return m;
}

describe('RefillModel', () => {
  it('stays unknown while answers of one window lose tokens and name one Reset', () => {
    const m = model();
    m.observe(answer(S + 100, 9, S + 1000));
    m.observe(answer(S + 200, 8, S + 1000));
    m.observe(answer(S + 300, 5, S + 1000)); // another client took two
    expect(m.kind).toBe('unknown');
  });

  it('takes a refill inside a window for a continuous bucket: an answer naming the same Reset that shows as many left as before', () => {
    const m = model();
    m.observe(answer(S + 100, 9, S + 1000));
    m.observe(answer(S + 200, 8, S + 1000));
    m.observe(answer(S + 300, 8, S + 1000)); // named S + 1000: made before it, whatever the clocks
    expect(m.kind).toBe('continuous');
  });

  it('takes Resets that move on faster than any clock for a continuous bucket (full later as it drains)', () => {
    const m = model();
    m.observe(answer(S + 100, 9, S + 1000));
    m.observe(answer(S + 200, 8, S + 2000)); // a window whose clock runs 0.8 s ahead of ours could say so…
    expect(m.kind).toBe('unknown');
    m.observe(answer(S + 300, 7, S + 3000)); // …but not pass S + 2000 by our S + 301 as well
    expect(m.kind).toBe('continuous');
  });

  it('does not take a Date for the tenant clock: a later Reset 200 ms after a Date second proves nothing', () => {
    const m = model();
    m.observe(answer(S + 100, 9, S + 1000));
    m.observe(answer(S + 200, 8, S + 1000));
    m.observe(answer(S + 300, 7, S + 2000)); // Date S; a front end a second behind the limiter would say so
    expect(m.kind).toBe('unknown');
  });

  it('does not compare answers whose requests overlapped (their order is unknown)', () => {
    const m = model();
    const a = answer(S + 100, 7, S + 1000);
    m.observe({ ...a, recvAt: S + 300 });
    m.observe({ ...answer(S + 200, 8, S + 1000), sentAt: S + 150 }); // sent before the other arrived
    expect(m.kind).toBe('unknown');
  });

  it('learns a window: its length from two Resets, its step from what the turn added', () => {
    const m = model();
    m.observe(answer(S + 100, 3, S + 1000));
    m.observe(answer(S + 1005, 4, S + 2000)); // 2 added (3 → 5, less this one)
    expect([m.windowMs, m.step, m.stepCapped]).toEqual([1000, 2, false]);
    m.observe(answer(S + 2005, 9, S + 3000)); // full: the step may be larger
    expect([m.step, m.stepCapped]).toEqual([6, true]);
  });

  it('takes a probe that shows no refill before the Reset for a window', () => {
    const m = model();
    const before = answer(S + 100, 1, S + 1000);
    m.observe(before);
    const probe = answer(S + 400, 0, S + 1000);
    m.observe(probe);
    m.probeAnswered(probe, before);
    expect(m.kind).toBe('window');
  });

  it('learns nothing from a probe that may have been served after the Reset (it names a later one)', () => {
    const m = model();
    const before = answer(S + 100, 1, S + 1000);
    m.observe(before);
    const probe = answer(S + 990, 0, S + 2000);
    m.probeAnswered(probe, before);
    expect(m.kind).toBe('unknown');
  });
});
