import { describe, expect, it } from 'vitest';
import { PacerRoutes } from './pacer-routes.js';

const T0 = 1_700_000_000_000;

function fixture(maxRps?: number, first?: { opening: number; openingRoutes: string[] }) {
  let t = T0;
  const sleeps: number[] = [];
  const routes = new PacerRoutes({
    ...first,
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    random: () => 0,
    maxDelayMs: 30_000,
    onWait: () => {},
    ...(maxRps !== undefined ? { maxRps } : {}),
  });
  const rate = (limit: number, remaining: number) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.floor(t / 1000) + 1),
  });
  return { routes, sleeps, rate, advance: (ms: number) => (t += ms) };
}

/** Which of `promises` have resolved once the microtask queue has drained. */
async function granted(promises: Promise<unknown>[]): Promise<boolean[]> {
  const done = promises.map(() => false);
  promises.forEach((p, i) => void p.then(() => (done[i] = true)));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('PacerRoutes, first round', () => {
  it('sends the remembered first round for the routes it was proven for', async () => {
    const f = fixture(undefined, { opening: 3, openingRoutes: ['createPolicy'] });
    const waiting = Array.from({ length: 4 }, () => f.routes.acquire('createPolicy'));
    expect(await granted(waiting)).toEqual([true, true, true, false]);
  });

  it('sends a request of another route alone: its bucket may be one the facts say nothing of', async () => {
    const f = fixture(undefined, { opening: 3, openingRoutes: ['createPolicy'] });
    const waiting = [f.routes.acquire('createPolicy'), f.routes.acquire('assignPermissions')];
    waiting.push(f.routes.acquire('createPolicy'));
    expect(await granted(waiting)).toEqual([true, false, false]);
  });

  it("gives each bucket's facts with the routes that drew on it", async () => {
    const f = fixture();
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 6));
    f.routes.release(await f.routes.acquire('createProfile'), f.rate(10, 5));
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(20, 19));
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(20, 18));
    const facts = f.routes.facts();
    expect(facts.map((g) => [g.routes, g.limit, g.remaining])).toEqual([
      [['createPolicy', 'createProfile'], 10, 5],
      [['assignPermissions'], 20, 18],
    ]);
  });
});

describe('PacerRoutes', () => {
  it('starts every route on one pacer: one bucket spent by two routes holds both', async () => {
    const f = fixture();
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 1));
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(10, 0));
    await f.routes.acquire('assignPermissions');
    // The other route's requests spent it too: nothing more until the Reset, 1 s away.
    expect(f.sleeps.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(f.routes.splitRoutes).toEqual([]);
  });

  it('splits a route off once its answers show another Limit: each then spends its own bucket', async () => {
    const f = fixture();
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 1));
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(5, 4)); // a bucket of 5: another
    expect(f.routes.splitRoutes).toEqual(['assignPermissions']);
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 0)); // the tenant's bucket: spent
    const waited = f.sleeps.length;
    await f.routes.acquire('assignPermissions'); // not held by the spent tenant bucket
    expect(f.sleeps).toHaveLength(waited);
    await f.routes.acquire('createPolicy'); // held until its Reset
    expect(f.sleeps.length).toBeGreaterThan(waited);
  });

  it("splits a route off in a window when it shows as many left as another route's answer before it", async () => {
    const f = fixture();
    // Learn a window: a burst of 3 spent, its probe shows no refill before the Reset.
    for (const left of [2, 1]) f.routes.release(await f.routes.acquire('createPolicy'), f.rate(3, left));
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(3, 0));
    f.advance(1000);
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(3, 2));
    f.advance(1);
    // The same Limit, the same Reset, and 2 left after one more request: not the same bucket.
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(3, 2));
    expect(f.routes.splitRoutes).toEqual(['assignPermissions']);
  });

  it('keeps one requests-per-second ceiling for all routes, split or not', async () => {
    const f = fixture(2);
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 9));
    f.routes.release(await f.routes.acquire('assignPermissions'), f.rate(5, 4)); // split off
    f.routes.release(await f.routes.acquire('assignPermissions'), {});
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(10, 8));
    expect(f.sleeps).toEqual([500, 500, 500]); // 2/s across both pacers
  });

  it('moves requests queued on the shared pacer to the new one when their route is split: no burst on the other bucket', async () => {
    const f = fixture();
    f.routes.release(await f.routes.acquire('createPolicy'), f.rate(6, 0)); // spent: next at the Reset
    const first = f.routes.acquire('assignPermissions'); // the shared pacer's opener
    const queued = [1, 2, 3].map(() => f.routes.acquire('assignPermissions'));
    f.routes.release(await first, f.rate(4, 3)); // another bucket (4): split off
    // One request opens the new bucket alone; the queued ones wait for its answer.
    const done: boolean[] = [false, false, false];
    queued.forEach((p, i) => void p.then(() => (done[i] = true)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done.filter(Boolean)).toHaveLength(1);
  });
});
