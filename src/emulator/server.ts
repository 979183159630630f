/**
 * startEmulator: checks the options, loads the data file, listens and hands
 * back the programmatic handle (base URL, demo credentials, admin key,
 * snapshot/reset/stats, stop).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { emulatorScopes } from './api.js';
import { Authority } from './auth.js';
import { LocalAuthority } from './certificates.js';
import { checkFaults, EmulatorOptionError } from './faults.js';
import { DataFileWriter, loadDataFile } from './persistence.js';
import { seededSnapshot } from './seed.js';
import type { EmulatorKind } from './kinds/kind.js';
import type { EmulatorSnapshot } from './types.js';
import { createRequestHandler } from './pipeline.js';
import { createDateStamp, DATE_HEADER_MODES, MAX_FRONT_END_OFFSET_MS } from './date-header.js';
import { createGroupLimiters } from './rate-limit-groups.js';
import { createLimiter, resolveRateLimit, type RateLimitSettings } from './rate-limit-options.js';
import { routesFor } from './router.js';
import { StatsRecorder } from './stats.js';
import { randomAlphanumeric } from './ids.js';
import { EMULATOR_KINDS } from './kinds/index.js';
import { EMULATOR_REFERENCES } from './references/index.js';
import { HttpError } from './errors.js';
import { TenantStore } from './store.js';
import { generateTraffic } from './traffic.js';
import { isRecord } from './kinds/kind.js';
import { isApiProfile, type ApiProfile } from '../resources/index.js';
import type { EmulatorClient, EmulatorHandle, EmulatorOptions } from './types.js';

const DEFAULT_LIFETIME_SEC = 86_400;
const DEFAULT_MAX_BODY = 1024 * 1024;
/** A day: a larger skew is a unit mistake, not a tenant's clock. */
const MAX_SKEW_MS = 86_400_000;

function check(condition: boolean, message: string): void {
  if (!condition) throw new EmulatorOptionError(message);
}

function checkOptions(o: EmulatorOptions): void {
  const port = o.port ?? 0;
  check(
    Number.isInteger(port) && port >= 0 && port <= 65535,
    `port must be a whole number from 0 to 65535 (got ${port})`,
  );
  for (const [name, value] of [
    ['latencyMs', o.latencyMs],
    ['latencyJitterMs', o.latencyJitterMs],
  ] as const) {
    check(
      value === undefined || (Number.isFinite(value) && value >= 0),
      `${name} must be 0 or more (got ${value})`,
    );
  }
  const lifetime = o.tokenLifetimeSec;
  check(
    lifetime === undefined || (Number.isInteger(lifetime) && lifetime > 0),
    'tokenLifetimeSec must be a positive whole number',
  );
  const max = o.maxBodyBytes;
  check(
    max === undefined || (Number.isInteger(max) && max > 0),
    'maxBodyBytes must be a positive whole number',
  );
  const skew = o.clockSkewMs;
  check(
    skew === undefined || (Number.isFinite(skew) && Math.abs(skew) <= MAX_SKEW_MS),
    `clockSkewMs must be a number of milliseconds from -${MAX_SKEW_MS} to ${MAX_SKEW_MS} (got ${skew})`,
  );
  check(
    o.dateHeader === undefined || DATE_HEADER_MODES.includes(o.dateHeader),
    `dateHeader must be ${DATE_HEADER_MODES.join(', ')} (got ${String(o.dateHeader)})`,
  );
  const front = o.frontEndOffsetMs;
  check(
    front === undefined || (Number.isFinite(front) && Math.abs(front) <= MAX_FRONT_END_OFFSET_MS),
    `frontEndOffsetMs must be a number of milliseconds from -${MAX_FRONT_END_OFFSET_MS} to ${MAX_FRONT_END_OFFSET_MS} (got ${front})`,
  );
  if (o.faults) checkFaults(o.faults);
  check(o.api === undefined || isApiProfile(o.api), `api must be spec or full (got ${String(o.api)})`);
  check(
    o.seed === undefined || o.dataFile === undefined,
    'seed and dataFile exclude each other: a data file holds the tenant a seed would give',
  );
  const ids = new Set<string>();
  for (const client of o.clients ?? []) {
    check(
      client.clientId !== '' && !ids.has(client.clientId),
      `client id "${client.clientId}" is empty or repeated`,
    );
    ids.add(client.clientId);
  }
}

/** The host part of a URL for a listening address (IPv6 in brackets; "any" addresses → loopback). */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function listen(server: Server | TlsServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const reason = err.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use` : err.message;
      reject(new EmulatorOptionError(`cannot listen on ${host}:${port}: ${reason}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** The tenant a `seed` option describes; an unusable one is an EmulatorOptionError saying why. */
function seedAtStart(doc: unknown, nowMs: number, kinds: readonly EmulatorKind[]): EmulatorSnapshot {
  try {
    return seededSnapshot(doc, nowMs, kinds);
  } catch (err) {
    if (err instanceof HttpError) throw new EmulatorOptionError(`the seed is unusable: ${err.message}`);
    throw err;
  }
}

/** The seed with the generated traffic (options.traffic) added to its logs. */
function withTraffic(options: EmulatorOptions, nowMs: number): unknown {
  if (!options.traffic) return options.seed;
  if ((options.api ?? 'spec') !== 'full' || options.dataFile !== undefined) {
    throw new EmulatorOptionError(
      'traffic needs API profile full (the logs are read through GET /logs), and no data file',
    );
  }
  const seed: Record<string, unknown> = isRecord(options.seed) ? { ...options.seed } : {};
  const given = Array.isArray(seed.logs) ? (seed.logs as unknown[]) : [];
  seed.logs = [...given, ...generateTraffic(options.traffic.shape, options.traffic.seed, nowMs)];
  return seed;
}

/** The tenant's clock, which everything the tenant does runs on: this machine's, `skewMs` off. */
function tenantClock(machineNow: () => number, skewMs: number): () => number {
  return skewMs === 0 ? machineNow : () => machineNow() + skewMs;
}

/** The tenant's data at start: the seed, or the data file (written once now, then after each change). */
async function openTenant(
  options: EmulatorOptions,
  kinds: readonly EmulatorKind[],
  now: () => number,
): Promise<{ store: TenantStore; writer: DataFileWriter | undefined }> {
  const store = new TenantStore(kinds, options.users ? new Set(options.users) : null, now);
  const seed = withTraffic(options, now());
  if (seed !== undefined) store.load(seedAtStart(seed, now(), kinds));
  if (options.dataFile === undefined) return { store, writer: undefined };
  const loaded = await loadDataFile(options.dataFile, kinds);
  if (loaded) store.load(loaded);
  const file = options.dataFile;
  const log = options.log ?? (() => {});
  let persisting = false; // the first write's error refuses the start instead
  const writer = new DataFileWriter(
    file,
    () => store.snapshot(),
    options.persistDelayMs ?? 25,
    (err) => {
      if (persisting) log(`cannot write data file ${file}: ${err.message}`);
    },
  );
  // Written once at start: a file that cannot be written is refused now, not found out after
  // answering 201 to writes it would lose.
  writer.schedule();
  await writer.flush().catch((err: Error) => {
    throw new EmulatorOptionError(`cannot write data file ${file}: ${err.message}`);
  });
  persisting = true;
  store.onChange = () => writer.schedule();
  return { store, writer };
}

/** A listening server: plain HTTP, or HTTPS with a certificate from the emulator's own CA (--tls). */
async function listenOn(options: EmulatorOptions, host: string) {
  // --tls: a CA of our own (or the one shared by several tenants) and a server certificate it signs.
  const tls = options.tls === true ? new LocalAuthority([host]) : options.tls || undefined;
  const server = tls ? createTlsServer(tls.issue(host)) : createServer();
  server.keepAliveTimeout = 5_000;
  const port = await listen(server, host, options.port ?? 0);
  const caFile = tls?.retain();
  const scheme = tls ? 'https' : 'http';
  return { server, port, tls, caFile, scheme, origin: `${scheme}://${urlHost(host)}:${port}` };
}

type Listening = Awaited<ReturnType<typeof listenOn>>;

/** The tenant's rate limiters (its own and its groups'), its request stats, and a reset of all with the data. */
function tenantCounters(rateLimit: RateLimitSettings | null, store: TenantStore, now: () => number) {
  const limiter = rateLimit ? createLimiter(rateLimit, now) : null;
  const groupLimiters = createGroupLimiters(rateLimit?.groups ?? [], rateLimit?.model ?? 'window', now);
  const stats = new StatsRecorder();
  const reset = () => {
    store.reset();
    limiter?.clear();
    for (const group of groupLimiters.values()) group.clear();
    stats.clear();
  };
  return { rateLimit, limiter, groupLimiters, stats, reset };
}

/** What startEmulator has set up, for the handle and the request handler. */
interface Started {
  options: EmulatorOptions;
  api: ApiProfile;
  kinds: readonly EmulatorKind[];
  now: () => number;
  date: () => string | undefined;
  sleep: (ms: number) => Promise<void>;
  stopping: AbortController;
  demo: EmulatorClient;
  adminKey: string;
  store: TenantStore;
  writer: DataFileWriter | undefined;
  counters: ReturnType<typeof tenantCounters>;
  listening: Listening;
  authority: Authority;
}

function emulatorHandle(started: Started): EmulatorHandle {
  const { options, store, kinds, now, demo, authority, counters, writer } = started;
  const { server, tls, caFile, origin, port } = started.listening;
  let stopped = false;
  return {
    baseUrl: `${origin}/api/v2`,
    api: started.api,
    rateLimit: counters.rateLimit,
    clockSkewMs: options.clockSkewMs ?? 0,
    dateHeader: options.dateHeader ?? 'second',
    frontEndOffsetMs: options.frontEndOffsetMs ?? 0,
    origin,
    port,
    token: authority.issue(demo.clientId, demo.scopes),
    clientId: demo.clientId,
    clientSecret: demo.clientSecret,
    adminKey: started.adminKey,
    ...(tls ? { caFile, caPem: tls.caPem } : {}),
    stop: async () => {
      started.stopping.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      if (tls && !stopped) tls.release();
      stopped = true;
      await writer?.flush();
    },
    snapshot: () => store.snapshot(),
    replaceState: (doc) => {
      store.load(seededSnapshot(doc, now(), kinds));
      store.onChange();
      return store.snapshot();
    },
    reset: counters.reset,
    issueToken: (opts) => authority.issueFor(demo.clientId, opts),
    requestCount: () => counters.stats.requestCount(),
    stats: () => counters.stats.snapshot(),
  };
}

function requestHandler(started: Started, handle: EmulatorHandle) {
  const { options, authority, counters } = started;
  const scheme = started.listening.scheme;
  return createRequestHandler({
    store: started.store,
    authority,
    limiter: counters.limiter,
    groupLimiters: counters.groupLimiters,
    now: started.now,
    date: started.date,
    limitScope: counters.rateLimit?.scope ?? 'tenant',
    retryAfter: options.retryAfter ?? false,
    faults: options.faults,
    faultsOnToken: options.faultsOnToken ?? false,
    latencyMs: options.latencyMs ?? 0,
    latencyJitterMs: options.latencyJitterMs ?? 0,
    random: options.random ?? Math.random,
    sleep: started.sleep,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    admin: {
      adminKey: started.adminKey,
      snapshot: handle.snapshot,
      replaceState: handle.replaceState,
      reset: counters.reset,
      stats: handle.stats,
    },
    stats: counters.stats,
    routes: routesFor(started.kinds, started.api),
    audiences: (hostHeader) => {
      const list = [authority.audience, '/api/v2/'];
      if (hostHeader) list.push(`${scheme}://${hostHeader}/api/v2/`);
      return list;
    },
  });
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  checkOptions(options);
  const rateLimit = options.rateLimit ? resolveRateLimit(options.rateLimit) : null;
  const api = options.api ?? 'spec';
  const host = options.host ?? '127.0.0.1';
  // Under full the tenant also holds its reference data (applications, Actions, APIs).
  const kinds = [...(options.kinds ?? EMULATOR_KINDS), ...(api === 'full' ? EMULATOR_REFERENCES : [])];
  const now = tenantClock(options.now ?? Date.now, options.clockSkewMs ?? 0);
  const date = createDateStamp(
    options.dateHeader ?? 'second',
    tenantClock(now, options.frontEndOffsetMs ?? 0),
  );
  const stopping = new AbortController();
  const sleep =
    options.sleep ??
    ((ms: number) => delay(ms, undefined, { signal: stopping.signal }).catch(() => undefined));
  const demo: EmulatorClient = {
    clientId: randomAlphanumeric(32),
    clientSecret: randomBytes(48).toString('base64url'),
    scopes: emulatorScopes(api, kinds),
    global: true,
  };
  const { store, writer } = await openTenant(options, kinds, now);
  const counters = tenantCounters(rateLimit, store, now);
  const adminKey = randomBytes(24).toString('base64url');
  const listening = await listenOn(options, host);
  const authority = new Authority({
    origin: listening.origin,
    secret: options.signingSecret ?? randomBytes(32).toString('base64url'),
    clients: [demo, ...(options.clients ?? [])],
    now,
    lifetimeSec: options.tokenLifetimeSec ?? DEFAULT_LIFETIME_SEC,
  });
  const started: Started = {
    options,
    api,
    kinds,
    now,
    date,
    sleep,
    stopping,
    demo,
    adminKey,
    store,
    writer,
    counters,
    listening,
    authority,
  };
  const handle = emulatorHandle(started);
  listening.server.on('request', requestHandler(started, handle));
  return handle;
}
