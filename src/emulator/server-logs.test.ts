/**
 * The tenant's log events under API profile full: GET /logs by checkpoint
 * (from, take) and by search (q as a date range, sort, page, per_page,
 * include_totals, the first 1,000 results), as the service's docs and SDK
 * describe it; events seeded with or without log_id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { matchesSchema } from '../schemas/index.js';
import { startEmulator } from './server.js';
import type { EmulatorHandle } from './types.js';

let emu: EmulatorHandle | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

const T0 = Date.parse('2026-11-20T08:00:00Z');
/** Events at T0 + i seconds, seeded newest first and without log_id. */
const EVENTS = Array.from({ length: 250 }, (_, i) => ({
  type: 'seccft',
  client_id: `app${i % 3}`,
  date: new Date(T0 + i * 1000).toISOString(),
})).reverse();

async function start(logs: unknown[] = EVENTS): Promise<EmulatorHandle> {
  emu = await startEmulator({ api: 'full', seed: { logs } });
  return emu;
}

async function get(e: EmulatorHandle, path: string) {
  const res = await fetch(`${e.baseUrl}${path}`, { headers: { authorization: `Bearer ${e.token}` } });
  return { status: res.status, body: (await res.json()) as unknown };
}

type Page = { log_id: string; date: string }[];

describe('GET /logs (API profile full)', () => {
  it('finds the oldest event by search and reads on by checkpoint, 100 at most a page, to an empty page', async () => {
    const e = await start();
    const first = await get(e, '/logs?sort=date:1&per_page=1&page=0');
    expect(first.status).toBe(200);
    expect(matchesSchema('logList', first.body)).toBe(true);
    const oldest = (first.body as Page)[0]!;
    expect(oldest.date).toBe('2026-11-20T08:00:00.000Z');
    const dates: string[] = [oldest.date];
    let from = oldest.log_id;
    for (;;) {
      const page = await get(e, `/logs?from=${from}&take=100`);
      const items = page.body as Page;
      expect(items.length).toBeLessThanOrEqual(100);
      if (items.length === 0) break;
      dates.push(...items.map((i) => i.date));
      from = items.at(-1)!.log_id;
    }
    expect(dates).toEqual([...EVENTS].reverse().map((ev) => ev.date));
  });

  it('refuses a take above 100 and a search past its first 1,000 results', async () => {
    const e = await start();
    expect((await get(e, '/logs?from=0&take=101')).status).toBe(400);
    expect((await get(e, '/logs?per_page=100&page=10')).body).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('at most its first 1000 results'),
    });
  });

  it('searches a date range, newest first unless sorted date:1, with totals when asked', async () => {
    const e = await start();
    const newest = await get(e, '/logs?per_page=2');
    expect((newest.body as Page).map((i) => i.date)).toEqual([
      new Date(T0 + 249_000).toISOString(),
      new Date(T0 + 248_000).toISOString(),
    ]);
    const since = await get(
      e,
      `/logs?q=${encodeURIComponent('date:[2026-11-20T08:04:00Z TO *]')}&sort=date:1&per_page=3&include_totals=true`,
    );
    expect(since.body).toMatchObject({ start: 0, limit: 3, length: 3, total: 10 });
    expect((since.body as { logs: Page }).logs[0]!.date).toBe('2026-11-20T08:04:00.000Z');
    expect((await get(e, '/logs?q=user_name:bob')).status).toBe(400);
  });

  it('keeps the log_ids a seed gives, and refuses one given twice', async () => {
    const e = await start([
      { log_id: 'b', type: 's' },
      { log_id: 'a', type: 'f' },
    ]);
    expect(((await get(e, '/logs?from=0&take=5')).body as Page).map((i) => i.log_id)).toEqual(['a', 'b']);
    await expect(
      startEmulator({ api: 'full', seed: { logs: [{ log_id: 'a' }, { log_id: 'a' }] } }),
    ).rejects.toThrow('"a" is listed twice');
  });
});
