import { describe, expect, it } from 'vitest';
import { cachingTokenSource, refreshMarginMs, staticTokenSource, type FetchedToken } from './auth.js';

function fixture(lifetimeSec = 3600) {
  let t = 1_000_000;
  let n = 0;
  const releases: (() => void)[] = [];
  const source = cachingTokenSource(
    () =>
      new Promise<FetchedToken>((resolve) => {
        n += 1;
        const token = `tok-${n}`;
        releases.push(() => resolve({ accessToken: token, expiresInSec: lifetimeSec }));
      }),
    () => t,
  );
  const flush = async () => {
    while (releases.length > 0) releases.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { source, flush, advance: (ms: number) => (t += ms) };
}

describe('cachingTokenSource', () => {
  it('shares one token request among concurrent callers', async () => {
    const f = fixture();
    const all = Promise.all([f.source.get(), f.source.get(), f.source.get()]);
    await f.flush();
    expect(await all).toEqual(['tok-1', 'tok-1', 'tok-1']);
    expect(f.source.fetches).toBe(1);
  });

  it('reuses the token until shortly before it expires, then fetches a new one', async () => {
    const f = fixture(3600);
    const first = f.source.get();
    await f.flush();
    expect(await first).toBe('tok-1');
    f.advance(3600_000 - refreshMarginMs(3600) - 1);
    expect(await f.source.get()).toBe('tok-1');
    f.advance(1);
    const second = f.source.get();
    await f.flush();
    expect(await second).toBe('tok-2');
    expect(f.source.fetches).toBe(2);
  });

  it('drops a refused token once, even when several callers report it', async () => {
    const f = fixture();
    const first = f.source.get();
    await f.flush();
    const token = await first;
    expect(f.source.invalidate(token)).toBe(true);
    const again = Promise.all([f.source.get(), f.source.get()]);
    expect(f.source.invalidate(token)).toBe(true);
    await f.flush();
    expect(await again).toEqual(['tok-2', 'tok-2']);
    expect(f.source.fetches).toBe(2);
  });

  it.each([
    [86_400, 60_000],
    [3600, 60_000],
    [300, 30_000],
    [30, 3000],
  ])('refreshes a %i s token %i ms before expiry', (lifetime, margin) => {
    expect(refreshMarginMs(lifetime)).toBe(margin);
  });
});

describe('staticTokenSource', () => {
  it('returns the token as given and cannot refresh it', async () => {
    const s = staticTokenSource('given');
    expect(await s.get()).toBe('given');
    expect(s.invalidate('given')).toBe(false);
  });
});
