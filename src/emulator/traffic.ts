/**
 * Generated traffic for the tenant's logs (emulator --traffic SHAPE): a day
 * of log events of the default applications (references/client.ts), ending
 * at the tenant's now, drawn from a seeded generator so that one seed gives
 * one day of events, to the millisecond relative to its end. A choice of
 * the emulator, not the service's: rates and event types are made up to
 * look like a small tenant.
 *
 * - steady: each application at its own even rate; the partner sync in a
 *   20-second burst every quarter hour;
 * - daily: the same, the interactive applications following a day cycle
 *   (quiet at night, peaking at 14:00 UTC);
 * - retry-storm: steady, and the Mobile app retrying failed refresh token
 *   exchanges at about 180 requests a second for two minutes, three hours
 *   before the end.
 */

export const TRAFFIC_SHAPES = ['steady', 'daily', 'retry-storm'] as const;
export type TrafficShape = (typeof TRAFFIC_SHAPES)[number];

export interface TrafficEvent {
  date: string;
  type: string;
  client_id: string;
  client_name: string;
}

interface Source {
  client_id: string;
  client_name: string;
  /** Mean requests per second. */
  rate: number;
  /** Event types, drawn evenly; a failure type now and then. */
  types: readonly string[];
  failure: string;
  interactive: boolean;
}

const SOURCES: readonly Source[] = [
  {
    client_id: 'Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC',
    client_name: 'Customer web app',
    rate: 0.4,
    types: ['s', 'seacft', 'ssa'],
    failure: 'fp',
    interactive: true,
  },
  {
    client_id: 'Vb4nM7qW0eR3tY6uI9oP2aS5dF8gH1jK',
    client_name: 'Mobile app',
    rate: 0.3,
    types: ['sertft', 'seacft', 's'],
    failure: 'fertft',
    interactive: true,
  },
  {
    client_id: 'Hs9Jd2Kf5Lg8Zq1Xw4Ce7Vr0Bt3Ny6Mu',
    client_name: 'Customer portal',
    rate: 0.15,
    types: ['ssa', 'seacft'],
    failure: 'fsa',
    interactive: true,
  },
  {
    client_id: 'tpa_Rk2Lm5Np8Qs1Tv4Wx7Yz0Ab3Cd6Ef9',
    client_name: 'Partner analytics',
    rate: 0.05,
    types: ['seccft'],
    failure: 'feccft',
    interactive: false,
  },
];

const SYNC = {
  client_id: 'batch-partner-sync',
  client_name: 'Partner data sync',
  rate: 12,
  every: 900,
  burst: 20,
};
const STORM = { rate: 180, seconds: 120, before: 3 * 3600 };
const DAY = 86_400;

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A Poisson draw of mean `mean` (a normal one for large means). */
function draw(mean: number, random: () => number): number {
  if (mean > 30) {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  const limit = Math.exp(-mean);
  let n = 0;
  for (let p = random(); p > limit; p *= random()) n++;
  return n;
}

/** The day cycle's factor at `second` (mean 1): 0.25 at 02:00 UTC, 1.75 at 14:00. */
function cycle(second: number): number {
  const hour = (second % DAY) / 3600;
  return 0.25 + 0.75 * (1 + Math.cos((2 * Math.PI * (hour - 14)) / 24));
}

/** A day of events of `shape` ending at `endMs`, oldest first. */
export function generateTraffic(shape: TrafficShape, seed: number, endMs: number): TrafficEvent[] {
  const random = generator(seed);
  const end = Math.floor(endMs / 1000);
  const events: TrafficEvent[] = [];
  const emit = (
    second: number,
    n: number,
    who: { client_id: string; client_name: string },
    type: () => string,
  ) => {
    for (let i = 0; i < n; i++) {
      const date = new Date(second * 1000 + Math.floor(random() * 1000)).toISOString();
      events.push({ date, type: type(), client_id: who.client_id, client_name: who.client_name });
    }
  };
  for (let second = end - DAY; second < end; second++) {
    for (const s of SOURCES) {
      const mean = s.rate * (shape === 'daily' && s.interactive ? cycle(second) : 1);
      emit(second, draw(mean, random), s, () =>
        random() < 0.02 ? s.failure : s.types[Math.floor(random() * s.types.length)]!,
      );
    }
    if (second % SYNC.every < SYNC.burst) emit(second, draw(SYNC.rate, random), SYNC, () => 'seccft');
    if (
      shape === 'retry-storm' &&
      second >= end - STORM.before &&
      second < end - STORM.before + STORM.seconds
    ) {
      emit(second, draw(STORM.rate, random), SOURCES[1]!, () => (random() < 0.9 ? 'fertft' : 'sertft'));
    }
  }
  return events;
}
