/**
 * The emulator's default limiter is the service's documented model (burst,
 * whole steps at the top of each window of the tenant's clock, Reset = the
 * next addition); tiers by name; the tenant's clock skew. All on an injected
 * clock: no request waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EmulatorOptionError } from './faults.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle, EmulatorOptions } from './types.js';

let emu: EmulatorHandle | undefined;
/** This machine's clock, as the emulator sees it. 1_700_000_000_000 is the top of a second and of a minute + 20 s. */
let clock = 0;
const T0 = 1_700_000_000_000;

async function start(options: EmulatorOptions): Promise<EmulatorHandle> {
  clock = T0;
  emu = await startEmulator({ now: () => clock, ...options });
  return emu;
}
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const policy = (selector: string) => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration: { action: 'allow' },
});

let created = 0;
function create(e: EmulatorHandle): Promise<Response> {
  return fetch(`${e.baseUrl}/rate-limit-policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(policy(`client_id:c${++created}`)),
  });
}

/** Status, Remaining and Reset of one answer, as "201 2 1700000001". */
async function answer(res: Promise<Response>): Promise<string> {
  const r = await res;
  await r.body?.cancel();
  return `${r.status} ${r.headers.get('x-ratelimit-remaining')} ${r.headers.get('x-ratelimit-reset')}`;
}

async function drain(e: EmulatorHandle, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await answer(create(e)));
  return out;
}

describe('the window model (the default)', () => {
  it('adds the rate at the top of each second, never above the burst; Reset is the next addition', async () => {
    const e = await start({ rateLimit: { perSecond: 2, burst: 3 } });
    clock = T0 + 400;
    expect(await drain(e, 4)).toEqual([
      '201 2 1700000001',
      '201 1 1700000001',
      '201 0 1700000001',
      '429 0 1700000001',
    ]);
    clock = T0 + 999;
    expect(await answer(create(e))).toBe('429 0 1700000001');
    clock = T0 + 1000; // two added, not the whole bucket
    expect(await drain(e, 3)).toEqual(['201 1 1700000002', '201 0 1700000002', '429 0 1700000002']);
    clock = T0 + 60_000; // many windows later: full, not more
    expect(await answer(create(e))).toBe('201 2 1700000061');
  });

  it('with a 60 s window adds the rate at the top of each minute; Reset is that minute', async () => {
    const e = await start({ rateLimit: { perWindow: 500, burst: 2, windowSec: 60 } });
    // T0 is 20 s into a minute: the next addition is at T0 + 40 s.
    expect(await drain(e, 3)).toEqual(['201 1 1700000040', '201 0 1700000040', '429 0 1700000040']);
    clock = T0 + 39_999;
    expect(await answer(create(e))).toBe('429 0 1700000040');
    clock = T0 + 40_000; // 500 per window, but never above the burst
    expect(await drain(e, 3)).toEqual(['201 1 1700000100', '201 0 1700000100', '429 0 1700000100']);
  });

  it('answers the token endpoint and the reads by the same model', async () => {
    const e = await start({ api: 'full', rateLimit: { perSecond: 1, burst: 2 } });
    const token = () =>
      fetch(`${e.origin}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: e.clientId,
          client_secret: e.clientSecret,
          audience: `${e.origin}/api/v2/`,
        }),
      });
    const read = () =>
      fetch(`${e.baseUrl}/rate-limit-policies`, { headers: { authorization: `Bearer ${e.token}` } });
    clock = T0 + 250;
    for (const send of [token, read]) {
      expect([await answer(send()), await answer(send()), await answer(send())]).toEqual([
        '200 1 1700000001',
        '200 0 1700000001',
        '429 0 1700000001',
      ]);
    }
    clock = T0 + 1000;
    expect(await answer(token())).toBe('200 0 1700000002');
    expect(await answer(read())).toBe('200 0 1700000002');
  });

  it('keeps the continuous bucket as an option: Reset is when the bucket is full again', async () => {
    const e = await start({ rateLimit: { model: 'continuous', perSecond: 2, burst: 3 } });
    clock = T0 + 400;
    expect(await drain(e, 4)).toEqual([
      '201 2 1700000001',
      '201 1 1700000002',
      '201 0 1700000002',
      '429 0 1700000002',
    ]);
    clock = T0 + 900; // one request's worth trickled in, not a step at the top of the second
    expect(await answer(create(e))).toBe('201 0 1700000003');
  });

  it('spreads a window evenly in the continuous model', async () => {
    const e = await start({ rateLimit: { model: 'continuous', perWindow: 30, windowSec: 60, burst: 1 } });
    expect(await drain(e, 2)).toEqual(['201 0 1700000002', '429 0 1700000002']);
    clock = T0 + 2000; // 30 per minute: one every 2 s
    expect(await answer(create(e))).toBe('201 0 1700000004');
  });
});

describe('tiers', () => {
  it.each([
    ['free', 2, 2],
    ['enterprise-nonprod', 10, 2],
    ['enterprise-prod', 50, 16],
    ['private-cloud-20', 20, 20],
  ] as const)('%s: burst %i, then %i at the top of the next second', async (tier, burst, rate) => {
    const e = await start({ rateLimit: { tier } });
    expect(e.rateLimit).toEqual({
      model: 'window',
      tier,
      burst,
      perWindow: rate,
      windowSec: 1,
      scope: 'tenant',
    });
    const first = await create(e);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(burst));
    const answers = await drain(e, burst);
    expect(answers.at(-1)).toBe('429 0 1700000001');
    clock = T0 + 1000;
    const after = await drain(e, rate + 1);
    expect(after.at(-2)).toBe('201 0 1700000002');
    expect(after.at(-1)).toBe('429 0 1700000002');
  });

  it('users-read-per-minute: burst 40, counted per minute', async () => {
    const e = await start({ rateLimit: { tier: 'users-read-per-minute' } });
    expect(e.rateLimit).toMatchObject({ burst: 40, perWindow: 500, windowSec: 60 });
    expect(await answer(create(e))).toBe('201 39 1700000040');
  });

  it('runs a tier on the continuous model when asked', async () => {
    const e = await start({ rateLimit: { tier: 'free', model: 'continuous' } });
    expect(e.rateLimit).toMatchObject({ model: 'continuous', burst: 2, perWindow: 2 });
  });
});

describe("the tenant's clock (clockSkewMs)", () => {
  it.each([
    [2500, 1_700_000_003],
    [-1250, 1_699_999_999],
  ])('skewed %i ms: windows, Reset, Date and created_at follow the tenant', async (skew, reset) => {
    const e = await start({ rateLimit: { perSecond: 1, burst: 1 }, clockSkewMs: skew });
    const tenantNow = T0 + skew;
    const res = await create(e);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(reset));
    expect(res.headers.get('date')).toBe(new Date(tenantNow).toUTCString());
    expect(((await res.json()) as { created_at: string }).created_at).toBe(new Date(tenantNow).toISOString());
    // The next window opens at the tenant's top of a second, not at this machine's.
    clock = reset * 1000 - skew - 1;
    expect(await answer(create(e))).toBe(`429 0 ${reset}`);
    clock += 1;
    expect(await answer(create(e))).toBe(`201 0 ${reset + 1}`);
  });

  it("sends Date from the emulator's clock, not Node's, on every answer", async () => {
    const e = await start({ clockSkewMs: -86_400_000 });
    const expected = new Date(T0 - 86_400_000).toUTCString();
    expect((await create(e)).headers.get('date')).toBe(expected);
    const admin = await fetch(`${e.origin}/__emulator/stats`, {
      headers: { 'x-emulator-admin-key': e.adminKey },
    });
    expect(admin.headers.get('date')).toBe(expected);
    expect(e.clockSkewMs).toBe(-86_400_000);
  });
});

describe('endpoint groups (rateLimit.groups)', () => {
  const PERMISSIONS = 'POST /api/v2/users/{id}/permissions';
  const assign = (e: EmulatorHandle) =>
    fetch(`${e.baseUrl}/users/${encodeURIComponent('auth0|u1')}/permissions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        permissions: [{ resource_server_identifier: 'https://api.example/', permission_name: 'read:x' }],
      }),
    });

  it("draws a grouped route on its group's bucket, whose headers its answers carry; the others keep the tenant's", async () => {
    const e = await start({
      rateLimit: {
        perSecond: 2,
        burst: 3,
        groups: [{ name: 'users_write', routes: [PERMISSIONS], burst: 2, perWindow: 1 }],
      },
    });
    expect((await assign(e)).headers.get('x-ratelimit-limit')).toBe('2');
    expect(await answer(create(e))).toBe(`201 2 ${T0 / 1000 + 1}`); // the tenant's bucket: untouched by the other
    const second = await assign(e);
    expect([second.status, second.headers.get('x-ratelimit-remaining')]).toEqual([201, '0']);
    expect((await assign(e)).status).toBe(429);
    expect(await answer(create(e))).toBe(`201 1 ${T0 / 1000 + 1}`);
    expect(e.rateLimit?.groups).toEqual([
      { name: 'users_write', routes: [PERMISSIONS], burst: 2, perWindow: 1, windowSec: 1 },
    ]);
  });

  it.each([
    [
      { name: 'g', routes: [], burst: 1, perWindow: 1 },
      'rateLimit.groups[0].routes must list at least one route',
    ],
    [{ name: 'g', routes: ['permissions'], burst: 1, perWindow: 1 }, 'is not "METHOD /path"'],
    [
      { name: 'g', routes: [PERMISSIONS], burst: 0, perWindow: 1 },
      'rateLimit.groups[0].burst must be a whole number',
    ],
  ])('refuses a group %o', async (group, message) => {
    await expect(startEmulator({ rateLimit: { perSecond: 1, groups: [group] } })).rejects.toThrow(message);
  });
});

describe('the Date header (dateHeader, frontEndOffsetMs)', () => {
  it('is stamped to the second by default (date-header.test.ts: kept until the next second boundary)', async () => {
    clock = T0 + 400;
    const e = await startEmulator({ now: () => clock });
    emu = e;
    expect(e.dateHeader).toBe('second');
    expect((await create(e)).headers.get('date')).toBe(new Date(T0).toUTCString());
  });

  it("exact: the second of each answer, from a front end's clock 800 ms behind the limiter's", async () => {
    const e = await start({
      rateLimit: { perSecond: 1, burst: 2 },
      dateHeader: 'exact',
      frontEndOffsetMs: -800,
    });
    clock = T0 + 500; // the limiter at T0 + 0.5 s, the front end at T0 − 0.3 s
    const res = await create(e);
    expect(res.headers.get('x-ratelimit-reset')).toBe(String(T0 / 1000 + 1));
    expect(res.headers.get('date')).toBe(new Date(T0 - 1000).toUTCString());
    clock = T0 + 900;
    expect((await create(e)).headers.get('date')).toBe(new Date(T0).toUTCString());
    expect(e.frontEndOffsetMs).toBe(-800);
  });

  it('absent: no Date header on any answer, not even the one Node would add', async () => {
    const e = await start({ dateHeader: 'absent' });
    expect((await create(e)).headers.has('date')).toBe(false);
    const admin = await fetch(`${e.origin}/__emulator/stats`, {
      headers: { 'x-emulator-admin-key': e.adminKey },
    });
    expect(admin.headers.has('date')).toBe(false);
  });

  it.each([
    [{ dateHeader: 'late' }, 'dateHeader must be second, exact, absent (got late)'],
    [{ frontEndOffsetMs: 61_000 }, 'frontEndOffsetMs must be a number of milliseconds from -60000 to 60000'],
  ])('refuses %o', async (options, message) => {
    await expect(startEmulator(options as EmulatorOptions)).rejects.toThrow(message);
  });
});

describe('rate limit options', () => {
  it.each([
    [
      { tier: 'enterprise-prod', perSecond: 5 },
      'rateLimit.tier sets the rate, burst and window; it cannot be combined with rateLimit.perSecond',
    ],
    [
      { tier: 'free', burst: 3, windowSec: 60 },
      'cannot be combined with rateLimit.windowSec and rateLimit.burst',
    ],
    [
      { tier: 'gold' },
      'rateLimit.tier must be one of free, enterprise-nonprod, enterprise-prod, private-cloud-20, users-read-per-minute (got gold)',
    ],
    [{ perSecond: 0.5 }, 'rateLimit.perSecond must be a whole number in the window model'],
    [{ perWindow: 2.5, windowSec: 60 }, 'rateLimit.perWindow must be a whole number in the window model'],
    [
      { perSecond: 2, windowSec: 60 },
      'rateLimit.perSecond is per second; with rateLimit.windowSec give rateLimit.perWindow',
    ],
    [{ perSecond: 2, perWindow: 2 }, 'give rateLimit.perSecond or rateLimit.perWindow, not both'],
    [
      { perWindow: 2, windowSec: 1.5 },
      'rateLimit.windowSec must be a whole number of seconds from 1 to 86400 (got 1.5)',
    ],
    [{ perWindow: 2, windowSec: 0 }, 'rateLimit.windowSec must be a whole number of seconds'],
    [{ perSecond: 0 }, 'rateLimit.perSecond must be a positive number (got 0)'],
    [
      { model: 'continuous', perSecond: Number.NaN },
      'rateLimit.perSecond must be a positive number (got NaN)',
    ],
    [{ perSecond: 2, burst: 0 }, 'rateLimit.burst must be a whole number of at least 1 (got 0)'],
    [{ perSecond: 2, model: 'leaky' }, 'rateLimit.model must be window or continuous (got leaky)'],
    [{ perSecond: 2, scope: 'everyone' }, 'rateLimit.scope must be tenant or client (got everyone)'],
    [{ burst: 5 }, 'a rate limit needs rateLimit.perWindow or rateLimit.tier'],
  ])('refuses %j', async (rateLimit, message) => {
    const started = startEmulator({ rateLimit: rateLimit as EmulatorOptions['rateLimit'] });
    await expect(started).rejects.toThrow(EmulatorOptionError);
    await expect(started).rejects.toThrow(message);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 86_400_001])(
    'refuses clockSkewMs %d',
    async (clockSkewMs) => {
      await expect(startEmulator({ clockSkewMs })).rejects.toThrow(
        /clockSkewMs must be a number of milliseconds/,
      );
    },
  );

  it('defaults: the window model, a 1 s window, the burst of one window, one bucket per tenant', async () => {
    const e = await start({ rateLimit: { perSecond: 3 } });
    expect(e.rateLimit).toEqual({ model: 'window', burst: 3, perWindow: 3, windowSec: 1, scope: 'tenant' });
    const plain = await start({});
    expect(plain.rateLimit).toBeNull();
    expect(plain.clockSkewMs).toBe(0);
  });
});
