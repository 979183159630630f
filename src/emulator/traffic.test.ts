import { describe, expect, it } from 'vitest';
import { startEmulator } from './server.js';
import { generateTraffic } from './traffic.js';

const END = Date.parse('2026-11-27T12:00:00Z');

function perSecond(events: { date: string; client_id: string }[], client: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of events) {
    if (e.client_id !== client) continue;
    const s = Math.floor(Date.parse(e.date) / 1000);
    out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

const MOBILE = 'Vb4nM7qW0eR3tY6uI9oP2aS5dF8gH1jK';

describe('generateTraffic', () => {
  it('gives one day of events for one seed, and another day for another seed', () => {
    const a = generateTraffic('steady', 7, END);
    expect(generateTraffic('steady', 7, END)).toEqual(a);
    expect(generateTraffic('steady', 8, END)).not.toEqual(a);
    const times = a.map((e) => Date.parse(e.date));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(END - 86_400_000);
    expect(Math.max(...times)).toBeLessThan(END);
  });

  it('makes the Mobile app retry at about 180 a second for two minutes, three hours before the end, in a retry storm', () => {
    const steady = Math.max(...perSecond(generateTraffic('steady', 1, END), MOBILE).values());
    const storm = perSecond(generateTraffic('retry-storm', 1, END), MOBILE);
    const busy = [...storm].filter(([, n]) => n > 100).map(([s]) => s);
    expect(steady).toBeLessThan(10);
    expect(busy.length).toBeGreaterThan(110);
    expect(Math.min(...busy)).toBe(END / 1000 - 3 * 3600);
    expect(Math.max(...busy)).toBeLessThan(END / 1000 - 3 * 3600 + 120);
  });

  it('follows a day cycle in daily: more at 14:00 UTC than at 02:00', () => {
    const events = generateTraffic('daily', 1, END);
    const at = (hour: number) => events.filter((e) => new Date(e.date).getUTCHours() === hour).length;
    expect(at(14)).toBeGreaterThan(3 * at(2));
  });

  it('is served under API profile full only, as the tenant logs, each event given a log_id', async () => {
    await expect(startEmulator({ traffic: { shape: 'steady', seed: 1 } })).rejects.toThrow(
      'API profile full',
    );
    const emu = await startEmulator({ api: 'full', traffic: { shape: 'steady', seed: 1 }, now: () => END });
    try {
      const res = await fetch(`${emu.baseUrl}/logs?sort=date:1&per_page=2`, {
        headers: { authorization: `Bearer ${emu.token}` },
      });
      const body = (await res.json()) as { log_id: string; date: string }[];
      expect(body).toHaveLength(2);
      expect(body[0]!.log_id).toMatch(/^\d+$/);
      expect(Date.parse(body[0]!.date)).toBeGreaterThanOrEqual(END - 86_400_000);
    } finally {
      await emu.stop();
    }
  });
});
