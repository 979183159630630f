/**
 * Which rate limiter an emulated tenant has: the published tiers, the checks
 * and defaults of the `rateLimit` option (the CLI's flags map onto it and get
 * the same checks, worded with the flags' names), and the limiter they make.
 *
 * Facts (management-api-beyond-spec.md, "Rate limits of the real service",
 * from the service's public docs): limits are per tenant, shared by all its
 * clients; the bucket holds at most the burst; the sustained rate is added in
 * whole steps at the top of each window (one second, or one minute for some
 * endpoints), never above the burst. The tiers below are the published ones.
 */
import { EmulatorOptionError } from './option-error.js';
import { RateLimiter, WindowBucket, type Limiter } from './rate-limit.js';
import { resolveGroups, type RateLimitGroup, type RateLimitGroupOptions } from './rate-limit-groups.js';

export const RATE_LIMIT_MODELS = ['window', 'continuous'] as const;
/** 'window': the service's documented model; 'continuous': the emulator's earlier token bucket. */
export type RateLimitModel = (typeof RATE_LIMIT_MODELS)[number];

export interface RateLimitTier {
  /** Who has this limit, in words. */
  title: string;
  burst: number;
  /** Tokens added at the top of each window. */
  perWindow: number;
  windowSec: number;
}

/** The published Management API limits, tenant-wide, and one endpoint limit counted per minute. */
export const RATE_LIMIT_TIERS = {
  free: { title: 'Free', burst: 2, perWindow: 2, windowSec: 1 },
  'enterprise-nonprod': { title: 'Enterprise, non-production', burst: 10, perWindow: 2, windowSec: 1 },
  'enterprise-prod': { title: 'Enterprise, production', burst: 50, perWindow: 16, windowSec: 1 },
  'private-cloud-20': {
    title: 'Private Cloud tier 20 (development)',
    burst: 20,
    perWindow: 20,
    windowSec: 1,
  },
  'users-read-per-minute': {
    title: 'reads of users, per minute (some Essentials and Professional tenants)',
    burst: 40,
    perWindow: 500,
    windowSec: 60,
  },
} as const satisfies Record<string, RateLimitTier>;

export type RateLimitTierName = keyof typeof RATE_LIMIT_TIERS;
export const RATE_LIMIT_TIER_NAMES = Object.keys(RATE_LIMIT_TIERS) as RateLimitTierName[];

export interface RateLimitOptions {
  /**
   * How tokens come back. 'window' (the default, the service's documented
   * model): `perWindow` whole tokens are added at the top of each window of
   * the tenant's clock, never above the burst; X-RateLimit-Reset is the Unix
   * second of the next addition. 'continuous' (the emulator's earlier model):
   * the same rate trickles in evenly; Reset is when the bucket is full again.
   */
  model?: RateLimitModel;
  /**
   * A published tier by name: sets burst, rate and window (so none of
   * perSecond, perWindow, windowSec and burst may be given with it).
   */
  tier?: RateLimitTierName;
  /** Tokens added per second: perWindow with a window of 1 s. */
  perSecond?: number;
  /** Tokens added per window (a whole number in the window model; fractions allowed in the continuous one). */
  perWindow?: number;
  /** Window length in whole seconds (60 for a per-minute limit). Default 1. */
  windowSec?: number;
  /** Bucket size: requests that may be sent at once. Default: the rate per window, rounded up. */
  burst?: number;
  /**
   * Who shares a bucket: 'tenant' (the default, as the real service: every
   * client of the tenant draws on one bucket) or 'client' (one per client).
   */
  scope?: 'tenant' | 'client';
  /** Routes with buckets of their own (rate-limit-groups.ts); default none: every route in the tenant's. */
  groups?: RateLimitGroupOptions[];
}

/** A rate limit with every default filled in and every value checked. */
export interface RateLimitSettings {
  model: RateLimitModel;
  /** The tier it came from, if any. */
  tier?: RateLimitTierName;
  burst: number;
  /** Tokens added per window: at its top (window) or spread evenly over it (continuous). */
  perWindow: number;
  windowSec: number;
  scope: 'tenant' | 'client';
  /** Routes with buckets of their own; absent when none. */
  groups?: RateLimitGroup[];
}

/** How errors name each option: the `rateLimit` fields, or the CLI's flags. */
export type RateLimitNames = Record<
  'tier' | 'perSecond' | 'perWindow' | 'windowSec' | 'burst' | 'model' | 'scope',
  string
>;

export const OPTION_NAMES: RateLimitNames = {
  tier: 'rateLimit.tier',
  perSecond: 'rateLimit.perSecond',
  perWindow: 'rateLimit.perWindow',
  windowSec: 'rateLimit.windowSec',
  burst: 'rateLimit.burst',
  model: 'rateLimit.model',
  scope: 'rateLimit.scope',
};

/** Longest window: a day (the docs name second, minute and day windows). */
export const MAX_WINDOW_SEC = 86_400;

function fail(message: string): never {
  throw new EmulatorOptionError(message);
}

const isWhole = (n: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  Number.isInteger(n) && n >= min && n <= max;

/** The tier's values; refuses any explicit rate, burst or window beside it. */
function tierValues(
  o: RateLimitOptions,
  names: RateLimitNames,
): Pick<RateLimitSettings, 'tier' | 'burst' | 'perWindow' | 'windowSec'> {
  const tier = o.tier!;
  if (!Object.hasOwn(RATE_LIMIT_TIERS, tier)) {
    fail(`${names.tier} must be one of ${RATE_LIMIT_TIER_NAMES.join(', ')} (got ${String(tier)})`);
  }
  const extra = (['perSecond', 'perWindow', 'windowSec', 'burst'] as const).filter((k) => o[k] !== undefined);
  if (extra.length > 0) {
    const given = [...new Set(extra.map((k) => names[k]))].join(' and ');
    fail(
      `${names.tier} sets the rate, burst and window; it cannot be combined with ${given} (drop one or the other)`,
    );
  }
  const { burst, perWindow, windowSec } = RATE_LIMIT_TIERS[tier];
  return { tier, burst, perWindow, windowSec };
}

/** The rate and window of explicit options (perSecond, or perWindow with windowSec). */
function explicitRate(o: RateLimitOptions, names: RateLimitNames): { perWindow: number; windowSec: number } {
  if (o.perSecond !== undefined && o.perWindow !== undefined) {
    fail(`give ${names.perSecond} or ${names.perWindow}, not both`);
  }
  if (o.perSecond !== undefined && o.windowSec !== undefined) {
    fail(`${names.perSecond} is per second; with ${names.windowSec} give ${names.perWindow}`);
  }
  const windowSec = o.windowSec ?? 1;
  if (!isWhole(windowSec, 1, MAX_WINDOW_SEC)) {
    fail(
      `${names.windowSec} must be a whole number of seconds from 1 to ${MAX_WINDOW_SEC} (got ${windowSec})`,
    );
  }
  const [name, perWindow] =
    o.perSecond !== undefined ? [names.perSecond, o.perSecond] : [names.perWindow, o.perWindow!];
  if (!(Number.isFinite(perWindow) && perWindow > 0))
    fail(`${name} must be a positive number (got ${perWindow})`);
  return { perWindow, windowSec };
}

/**
 * Checks `o` and fills in the defaults: model window, scope tenant, window
 * 1 s, burst = the rate per window (rounded up). Throws EmulatorOptionError
 * naming the option (as `names` spells it) and what is wrong.
 */
export function resolveRateLimit(
  o: RateLimitOptions,
  names: RateLimitNames = OPTION_NAMES,
): RateLimitSettings {
  const model = o.model ?? 'window';
  if (!RATE_LIMIT_MODELS.includes(model)) {
    fail(`${names.model} must be ${RATE_LIMIT_MODELS.join(' or ')} (got ${String(model)})`);
  }
  const scope = o.scope ?? 'tenant';
  if (scope !== 'tenant' && scope !== 'client')
    fail(`${names.scope} must be tenant or client (got ${String(scope)})`);
  const groups = o.groups && o.groups.length > 0 ? { groups: resolveGroups(o.groups, model) } : {};
  if (o.tier !== undefined) return { ...tierValues(o, names), model, scope, ...groups };
  if (o.perSecond === undefined && o.perWindow === undefined) {
    fail(`a rate limit needs ${names.perWindow} or ${names.tier}`);
  }
  const { perWindow, windowSec } = explicitRate(o, names);
  const rateName = o.perSecond !== undefined ? names.perSecond : names.perWindow;
  if (model === 'window' && !Number.isInteger(perWindow)) {
    fail(
      `${rateName} must be a whole number in the window model, which adds whole requests at the top of each window (got ${perWindow}); ` +
        `for a slower rate give a longer window (${names.windowSec}), or choose the continuous model (${names.model})`,
    );
  }
  const burst = o.burst ?? Math.max(1, Math.ceil(perWindow));
  if (!isWhole(burst, 1)) fail(`${names.burst} must be a whole number of at least 1 (got ${burst})`);
  return { model, burst, perWindow, windowSec, scope, ...groups };
}

/** "16/s", or "500 per 60 s" for a longer window. */
export function rateText(r: { perWindow: number; windowSec: number }): string {
  return r.windowSec === 1 ? `${r.perWindow}/s` : `${r.perWindow} per ${r.windowSec} s`;
}

/** One aligned line per tier: name, burst, rate and who has it. */
export function tierLines(): string[] {
  const rows = RATE_LIMIT_TIER_NAMES.map((name) => {
    const t = RATE_LIMIT_TIERS[name];
    return [name, `burst ${t.burst}, ${rateText(t)}`, t.title];
  });
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  return rows.map(([name, rate, title]) => `${name!.padEnd(width(0))}  ${rate!.padEnd(width(1))}  ${title}`);
}

/** The limiter of `settings`, on the tenant's clock `now`. */
export function createLimiter(settings: RateLimitSettings, now: () => number): Limiter {
  const { burst, perWindow, windowSec } = settings;
  return settings.model === 'window'
    ? new WindowBucket({ perWindow, burst, windowMs: windowSec * 1000 }, now)
    : new RateLimiter(perWindow / windowSec, burst, now);
}
