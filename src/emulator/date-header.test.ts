import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDateStamp } from './date-header.js';

const T0 = 1_700_000_000_000; // on a second

describe('createDateStamp', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("second: keeps the front end's second until a timer at its next boundary fires, however late", () => {
    let front = T0 + 300;
    const stamp = createDateStamp('second', () => front);
    expect(stamp()).toBe(new Date(T0).toUTCString());
    front = T0 + 1500; // the clock moved on, the timer has not fired (a busy event loop)
    expect(stamp()).toBe(new Date(T0).toUTCString());
    vi.advanceTimersByTime(700); // it fires at the next second boundary: 700 ms after T0 + 300
    expect(stamp()).toBe(new Date(T0 + 1000).toUTCString());
  });

  it('exact: the second of each call; absent: none', () => {
    let front = T0 + 300;
    const exact = createDateStamp('exact', () => front);
    expect(exact()).toBe(new Date(T0).toUTCString());
    front = T0 + 1500;
    expect(exact()).toBe(new Date(T0 + 1000).toUTCString());
    expect(createDateStamp('absent', () => front)()).toBeUndefined();
  });
});
