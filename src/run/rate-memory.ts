/**
 * The tenant's rate-limit facts, remembered from the last run that got
 * answers, so that the next run's first round need not be one request alone.
 *
 * Kept beside the state (RateLimitKeeper: `state.json.rate-limits`, mode
 * 0600; pg: the workspace's row of `rate_limits`; memory), never in the
 * document: they take no serial and never make a saved plan stale. One
 * record per state: the tenant it was learned from (the API base URL) and,
 * per rate-limit bucket the pacer modelled (src/api/pacer-routes.ts), the
 * routes that drew on it, its Limit, the requests left when last seen and
 * when (local clock), the latest local moment of the Reset named then, and
 * how the bucket refills as far as the answers proved it.
 *
 * Nothing read is trusted beyond what it proves: a record of another tenant,
 * of another version, damaged or implausible (a time in the future, more
 * left than the Limit, …) is ignored, said in a debug line. A record that
 * holds proves at most: what was left then, plus what the proven refill
 * added since (a window's step at each boundary passed; a continuous
 * bucket's proven rate; else one request once the Reset passed, the opener
 * the pacer would send), never more than the Limit, than the parallelism,
 * nor, since every route starts on one pacer, than the least of the buckets.
 * Other clients of the tenant may have drawn on the bucket since: the same
 * assumption the pacer makes of every answer, and a 429 then stops the round.
 */
import type { RateGroupFacts, Target } from '../api/index.js';
import type { RateLimitKeeper } from '../state/index.js';

/** The version written; another one is ignored. */
export const RATE_LIMITS_VERSION = 1;

/** What a run remembers of a tenant's rate limits. */
export interface RateMemory {
  /** The API base URL the facts were learned from. */
  tenant: string;
  groups: RateGroupFacts[];
}

/** The first round a run may send before the first answer, and why. */
export interface FirstRound {
  level: number;
  routes: string[];
  /** For --debug: where the first round came from. */
  why: string;
}

const MAX_LIMIT = 1_000_000;
const MAX_ROUTES = 200;
const MAX_ROUTE = 200;
/** The longest window the service uses is a minute; a Reset further than this from its answer is implausible. */
const MAX_RESET_AHEAD_MS = 3_600_000;
/** A Reset is never before its answer; the local estimate of it may be, by a clock offset bounded here. */
const MAX_RESET_BEHIND_MS = 5_000;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
const timeOf = (v: unknown): number | undefined => {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** The text kept: `{"tenantform_rate_limits": 1, "tenant": …, "groups": [...]}`. */
export function rateMemoryText(memory: RateMemory): string {
  const groups = memory.groups.map((g) => ({
    routes: g.routes,
    limit: g.limit,
    remaining: g.remaining,
    seen_at: new Date(g.at).toISOString(),
    ...(g.resetAt !== undefined ? { reset_at: new Date(Math.ceil(g.resetAt)).toISOString() } : {}),
    refill: g.refill,
    // A rate proven above the cap read back is still proven at the cap.
    ...(g.perSecond !== undefined ? { per_second: Math.min(g.perSecond, MAX_LIMIT) } : {}),
    ...(g.step !== undefined && g.windowMs !== undefined ? { step: g.step, window_ms: g.windowMs } : {}),
  }));
  return `${JSON.stringify({ tenantform_rate_limits: RATE_LIMITS_VERSION, tenant: memory.tenant, groups }, null, 2)}\n`;
}

function routesOf(v: unknown): string[] | null {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_ROUTES) return null;
  return v.every((r) => typeof r === 'string' && r.length > 0 && r.length <= MAX_ROUTE)
    ? (v as string[])
    : null;
}

function refillOf(g: Record<string, unknown>, limit: number): Partial<RateGroupFacts> | null {
  const { refill, per_second: perSecond, step, window_ms: windowMs } = g;
  if (refill !== 'unknown' && refill !== 'window' && refill !== 'continuous') return null;
  const facts: Partial<RateGroupFacts> = { refill };
  if (perSecond !== undefined) {
    if (typeof perSecond !== 'number' || !(perSecond > 0) || perSecond > MAX_LIMIT) return null;
    facts.perSecond = perSecond;
  }
  if (step !== undefined || windowMs !== undefined) {
    if (!isCount(step, limit) || step === 0 || !isCount(windowMs, MAX_RESET_AHEAD_MS) || windowMs === 0)
      return null;
    Object.assign(facts, { step, windowMs });
  }
  return facts;
}

/** One group of a record, or null when anything in it is not plausible. */
function groupOf(v: unknown, now: number): RateGroupFacts | null {
  if (!isRecord(v)) return null;
  const routes = routesOf(v.routes);
  const { limit, remaining } = v;
  const at = timeOf(v.seen_at);
  if (!routes || !isCount(limit, MAX_LIMIT) || limit === 0 || !isCount(remaining, limit)) return null;
  if (at === undefined || at > now) return null;
  const resetAt = v.reset_at === undefined ? undefined : timeOf(v.reset_at);
  if (v.reset_at !== undefined) {
    if (resetAt === undefined || resetAt < at - MAX_RESET_BEHIND_MS || resetAt > at + MAX_RESET_AHEAD_MS)
      return null;
  }
  const refill = refillOf(v, limit);
  if (!refill) return null;
  return {
    routes,
    limit,
    remaining,
    at,
    ...(resetAt !== undefined ? { resetAt } : {}),
    ...refill,
  } as RateGroupFacts;
}

/**
 * The facts in `text` for `tenant` at local time `now`, or why they are
 * ignored (another tenant, another version, damaged, implausible).
 */
export function parseRateMemory(
  text: string,
  tenant: string,
  now: number,
): { memory: RateMemory } | { ignored: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ignored: 'they are not JSON (damaged)' };
  }
  if (!isRecord(value) || value.tenantform_rate_limits !== RATE_LIMITS_VERSION)
    return { ignored: 'they are not a rate-limit record of this version' };
  if (value.tenant !== tenant) return { ignored: 'they were learned from another tenant' };
  if (!Array.isArray(value.groups) || value.groups.length === 0 || value.groups.length > MAX_ROUTES)
    return { ignored: 'they name no plausible bucket' };
  const groups: RateGroupFacts[] = [];
  for (const g of value.groups) {
    const group = groupOf(g, now);
    if (!group) return { ignored: 'a bucket in them is not plausible (damaged, or the clock moved back)' };
    groups.push(group);
  }
  return { memory: { tenant, groups } };
}

/** Requests the bucket surely has at `now`: what was left, plus the proven refill since, at most the Limit. */
export function provenLeft(g: RateGroupFacts, now: number): number {
  let added = 0;
  if (g.refill === 'continuous' && g.perSecond !== undefined) {
    added = Math.floor((g.perSecond * Math.max(0, now - g.at)) / 1000);
  } else if (g.resetAt !== undefined && now >= g.resetAt) {
    // A window adds its step at the Reset and at each boundary after; unknown: the opener.
    added =
      g.step !== undefined && g.windowMs !== undefined
        ? g.step * (1 + Math.floor((now - g.resetAt) / g.windowMs))
        : 1;
  }
  return Math.min(g.limit, g.remaining + added);
}

/** The first round `memory` proves at `now`, at most `parallelism` (at least one request). */
export function firstRoundOf(memory: RateMemory, now: number, parallelism: number): FirstRound {
  const lefts = memory.groups.map((g) => provenLeft(g, now));
  const least = Math.min(...lefts);
  const g = memory.groups[lefts.indexOf(least)]!;
  const seconds = ((now - g.at) / 1000).toFixed(1);
  const why =
    `the rate-limit facts kept with the state: ${g.remaining} of ${g.limit} left ${seconds}s ago, ` +
    `${least} now (refill: ${g.refill})` +
    (memory.groups.length > 1 ? `, the least of ${memory.groups.length} buckets` : '') +
    (least > parallelism ? `, at most the parallelism, ${parallelism}` : '');
  const routes = [...new Set(memory.groups.flatMap((x) => x.routes))].sort();
  return { level: Math.max(1, Math.min(least, parallelism)), routes, why };
}

/** This run's buckets, and those of the record kept that share no route with them. */
export function mergedMemory(tenant: string, groups: RateGroupFacts[], kept: RateMemory | null): RateMemory {
  const routes = new Set(groups.flatMap((g) => g.routes));
  const older =
    kept?.tenant === tenant ? kept.groups.filter((g) => g.routes.every((r) => !routes.has(r))) : [];
  return { tenant, groups: [...groups, ...older] };
}

async function readMemory(
  store: RateLimitKeeper,
  tenant: string,
  now: number,
  log: (line: string) => void,
): Promise<RateMemory | null> {
  let text: string | null;
  try {
    text = await store.readRateLimits();
  } catch (err) {
    log(`pacing: the rate-limit facts kept with the state were not read (${why(err)})`);
    return null;
  }
  if (text === null) return null;
  const parsed = parseRateMemory(text, tenant, now);
  if ('ignored' in parsed) {
    log(`pacing: the rate-limit facts kept with the state were ignored: ${parsed.ignored}`);
    return null;
  }
  return parsed.memory;
}

function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The first round for `target` from the facts kept in `store` (null: one
 * request alone), said in a debug line either way, and the record read.
 */
export async function readFirstRound(
  store: RateLimitKeeper,
  target: Target,
  parallelism: number,
  log: (line: string) => void,
  now: number = Date.now(),
): Promise<{ round: FirstRound | null; kept: RateMemory | null }> {
  const kept = await readMemory(store, target.baseUrl, now, log);
  if (!kept) {
    log(
      "pacing: first round of 1 request: no rate-limit facts of this tenant are kept; the first answer's headers set the pace",
    );
    return { round: null, kept };
  }
  const round = firstRoundOf(kept, now, parallelism);
  if (round.level > 1) {
    log(`pacing: first round of ${round.level} requests, from ${round.why}`);
    return { round, kept };
  }
  log(`pacing: first round of 1 request: no more is proven by ${round.why}`);
  return { round: null, kept };
}

/**
 * Keeps what `facts` (this run's answers) taught of `target`, over the record
 * `kept` (read at the start); nothing when the run got no answer with the headers. A failure to
 * keep them is a debug line, never the command's.
 */
export async function keepRateFacts(
  store: RateLimitKeeper,
  target: Target,
  facts: RateGroupFacts[],
  kept: RateMemory | null,
  log: (line: string) => void,
): Promise<void> {
  if (facts.length === 0) return;
  try {
    await store.writeRateLimits(rateMemoryText(mergedMemory(target.baseUrl, facts, kept)));
  } catch (err) {
    log(`pacing: the rate-limit facts were not kept with the state (${why(err)})`);
  }
}
