/**
 * tenantform emulator: checks the flags, starts the local Tenant Management
 * API emulator, prints how to use it and runs until the process is asked to
 * stop (io.signal). This is the one command that prints a token on purpose:
 * it is a token of the local emulator, useless anywhere else.
 *
 * Exit codes: 0 after a clean stop; 1 for a bad flag value, an unreadable
 * --users or --data file, or a port that cannot be bound.
 */
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, resolve } from 'node:path';
import {
  ADMIN_KEY_HEADER,
  DATE_HEADER_MODES,
  MAX_FRONT_END_OFFSET_MS,
  EMULATOR_REFERENCES,
  EmulatorOptionError,
  rateText,
  resolveRateLimit,
  variablePrefix,
  UNLIMITED_BUCKET,
  type TenantHandle,
  type EmulatorHandle,
  type EmulatorOptions,
  type RateLimitNames,
  type RateLimitOptions,
  type RateLimitSettings,
} from '../../emulator/index.js';
import { isApiProfile } from '../../resources/index.js';
import type { EmulatorRequest } from '../../run/local-requests.js';
import { startEmulators } from '../../run/local-runs.js';
import type { CommandIO } from '../io.js';
import { plural } from '../words.js';
import { parseFaultSpec, parseLatencySpec, parseTenantNames } from './emulator-specs.js';

/** startEmulator's options as a request carries them: the log is the caller's. */
type RequestOptions = EmulatorRequest['options'];

export { parseFaultSpec, parseLatencySpec };

export interface EmulatorCommandOptions {
  host: string;
  port: number;
  /** Requests added per window (per second with the default window). */
  rateLimit?: number;
  burst?: number;
  /** Window length in whole seconds (default 1). */
  rateLimitWindow?: number;
  /** 'window' (default) or 'continuous' */
  rateLimitModel?: string;
  /** A published tier's name: sets rate, burst and window. */
  rateLimitTier?: string;
  /** 'tenant' (default) or 'client' */
  rateLimitScope?: string;
  /** Seconds the tenant's clock runs ahead of this machine's (negative: behind). */
  clockSkew?: number;
  /** 'second' (default), 'exact' or 'absent' */
  dateHeader?: string;
  /** Seconds the clock that stamps Date runs ahead of the rate limiter's (negative: behind). */
  frontEndOffset?: number;
  /** "MS" or "MS:JITTER" */
  latency?: string;
  /** "error=0.2,reset=0.1,lost=0.05" */
  faults?: string;
  /** File of user ids: one per line (# comments), or a JSON / YAML list. */
  users?: string;
  data?: string;
  /** File of the tenant at start (JSON or YAML), shaped like GET /__emulator/state. */
  seed?: string;
  json: boolean;
  /** "N" or "a,b,c": several tenants, each with its own port, data, credentials and rate limit. */
  tenants?: string;
  /** API profile: 'spec' (default) or 'full'. */
  api?: string;
  /** Serve HTTPS with a certificate of a CA made at start. */
  tls?: boolean;
  /** API profile full: the tenant's log events from this file (what simulate reads: JSON lines, arrays, gzip). */
  logs?: string;
  /** API profile full: a day of generated traffic of this shape in the tenant's logs. */
  traffic?: string;
  /** The generator's seed for --traffic (default 1). */
  trafficSeed?: number;
}

function fail(message: string): never {
  throw new EmulatorOptionError(message);
}

/** Parses a --users file: a JSON list (.json or text starting with "["), a YAML list (.yaml/.yml) or lines. */
export async function parseUsersFile(text: string, file: string): Promise<string[]> {
  const ext = extname(file).toLowerCase();
  let list: unknown;
  if (ext === '.json' || text.trimStart().startsWith('[')) {
    try {
      list = JSON.parse(text);
    } catch {
      fail(`--users: ${file} is not valid JSON`);
    }
  } else if (ext === '.yaml' || ext === '.yml') {
    // Through yaml-lib: a bare import('yaml') is not resolved inside the bundle.
    const { YAML } = await import('../../config/yaml-lib.js');
    try {
      list = YAML.parse(text) ?? [];
    } catch {
      fail(`--users: ${file} is not valid YAML`);
    }
  } else {
    list = text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
  }
  if (!Array.isArray(list) || !list.every((id) => typeof id === 'string' && id !== '')) {
    fail(`--users: ${file} must list user ids (non-empty strings)`);
  }
  return list as string[];
}

/** The document of a --seed file: JSON (.json, or text starting with "{") or YAML. */
export async function readSeedFile(file: string, shown: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    fail(`--seed: cannot read ${shown}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (extname(file).toLowerCase() === '.json' || text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch {
      fail(`--seed: ${shown} is not valid JSON`);
    }
  }
  const { YAML } = await import('../../config/yaml-lib.js');
  try {
    return (YAML.parse(text) as unknown) ?? {};
  } catch {
    fail(`--seed: ${shown} is not valid YAML`);
  }
}

/** How the rate limit's errors name the flags. */
const RATE_LIMIT_FLAGS: RateLimitNames = {
  tier: '--rate-limit-tier',
  perSecond: '--rate-limit',
  perWindow: '--rate-limit',
  windowSec: '--rate-limit-window',
  burst: '--burst',
  model: '--rate-limit-model',
  scope: '--rate-limit-scope',
};

/** The rate limit the flags ask for, checked as startEmulator checks it (errors name the flags). */
function rateLimitFlags(opts: EmulatorCommandOptions): RateLimitOptions | undefined {
  if (opts.rateLimit === undefined && opts.rateLimitTier === undefined) {
    const stray = (
      [
        ['--burst', opts.burst],
        ['--rate-limit-window', opts.rateLimitWindow],
        ['--rate-limit-model', opts.rateLimitModel],
        ['--rate-limit-scope', opts.rateLimitScope],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (stray) fail(`${stray[0]} needs --rate-limit or --rate-limit-tier`);
    return undefined;
  }
  // The strings are checked by resolveRateLimit, which names the flag when one is not a choice.
  const options = {
    tier: opts.rateLimitTier,
    perWindow: opts.rateLimit,
    windowSec: opts.rateLimitWindow,
    burst: opts.burst,
    model: opts.rateLimitModel,
    scope: opts.rateLimitScope,
  } as RateLimitOptions;
  resolveRateLimit(options, RATE_LIMIT_FLAGS);
  return options;
}

const MAX_SKEW_SEC = 86_400;

/** --clock-skew SECONDS (fractions and negative values allowed) in milliseconds. */
function clockSkewMs(seconds: number): number {
  if (!(Number.isFinite(seconds) && Math.abs(seconds) <= MAX_SKEW_SEC)) {
    fail(
      `--clock-skew must be a number of seconds from -${MAX_SKEW_SEC} to ${MAX_SKEW_SEC} (got ${seconds})`,
    );
  }
  return Math.round(seconds * 1000);
}

/** --date-header and --front-end-offset SECONDS: how the Date header is stamped. */
function dateHeaderOptions(
  opts: EmulatorCommandOptions,
): Pick<EmulatorOptions, 'dateHeader' | 'frontEndOffsetMs'> {
  const out: Pick<EmulatorOptions, 'dateHeader' | 'frontEndOffsetMs'> = {};
  if (opts.dateHeader !== undefined) {
    const mode = DATE_HEADER_MODES.find((m) => m === opts.dateHeader);
    if (!mode) fail(`--date-header must be ${DATE_HEADER_MODES.join(', ')} (got ${opts.dateHeader})`);
    out.dateHeader = mode;
  }
  if (opts.frontEndOffset !== undefined) {
    const max = MAX_FRONT_END_OFFSET_MS / 1000;
    if (!(Number.isFinite(opts.frontEndOffset) && Math.abs(opts.frontEndOffset) <= max)) {
      fail(
        `--front-end-offset must be a number of seconds from -${max} to ${max} (got ${opts.frontEndOffset})`,
      );
    }
    out.frontEndOffsetMs = Math.round(opts.frontEndOffset * 1000);
  }
  return out;
}

/** The emulator command as one typed request; throws EmulatorOptionError naming the flag. */
export async function emulatorRequest(opts: EmulatorCommandOptions, io: CommandIO): Promise<EmulatorRequest> {
  const tenants = opts.tenants !== undefined ? parseTenantNames(opts.tenants) : null;
  return { options: await emulatorOptions(opts, io), tenants, json: opts.json };
}

/** Turns the command's flags into startEmulator options; throws EmulatorOptionError naming the flag. */
async function emulatorOptions(opts: EmulatorCommandOptions, io: CommandIO): Promise<RequestOptions> {
  const path = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));
  if (opts.host.trim() === '') fail('--host must not be empty');
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    fail(`--port must be a whole number from 0 to 65535 (got ${opts.port})`);
  }
  const options: RequestOptions = { host: opts.host, port: opts.port };
  if (opts.api !== undefined) {
    if (!isApiProfile(opts.api)) fail(`--api must be spec or full (got ${opts.api})`);
    options.api = opts.api;
  }
  const rateLimit = rateLimitFlags(opts);
  if (rateLimit) options.rateLimit = rateLimit;
  if (opts.clockSkew !== undefined) options.clockSkewMs = clockSkewMs(opts.clockSkew);
  Object.assign(options, dateHeaderOptions(opts));
  if (opts.latency !== undefined) Object.assign(options, parseLatencySpec(opts.latency));
  if (opts.faults !== undefined) options.faults = parseFaultSpec(opts.faults);
  if (opts.users !== undefined) {
    let text: string;
    try {
      text = await readFile(path(opts.users), 'utf8');
    } catch (err) {
      fail(
        `--users: cannot read ${opts.users}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    options.users = await parseUsersFile(text, opts.users);
  }
  if (opts.data !== undefined) options.dataFile = path(opts.data);
  if (opts.seed !== undefined) {
    if (opts.data !== undefined) fail('--seed and --data exclude each other: the data file holds the tenant');
    options.seed = await readSeedFile(path(opts.seed), opts.seed);
  }
  if (opts.tls) options.tls = true;
  await logOptions(opts, options, path);
  return options;
}

/**
 * --logs FILE and --traffic SHAPE: the tenant's log events (API profile
 * full, no data file), read from a file as simulate reads one, or generated.
 */
async function logOptions(
  opts: EmulatorCommandOptions,
  options: RequestOptions,
  path: (p: string) => string,
): Promise<void> {
  if (opts.logs === undefined && opts.traffic === undefined) return;
  const flag = opts.logs !== undefined ? '--logs' : '--traffic';
  if (options.api !== 'full') fail(`${flag} needs --api full: the tenant's logs are read through GET /logs`);
  if (opts.data !== undefined) fail(`${flag} and --data exclude each other: the data file holds the tenant`);
  if (opts.traffic !== undefined) {
    const { TRAFFIC_SHAPES } = await import('../../emulator/index.js');
    const shape = TRAFFIC_SHAPES.find((s) => s === opts.traffic);
    if (!shape) fail(`--traffic must be one of ${TRAFFIC_SHAPES.join(', ')} (got ${opts.traffic})`);
    options.traffic = { shape, seed: opts.trafficSeed ?? 1 };
  }
  if (opts.logs === undefined) return;
  const { LogSourceError, readSource, unwrap } = await import('../../simulate/index.js');
  const events: Record<string, unknown>[] = [];
  try {
    await readSource(path(opts.logs), (record) => events.push(unwrap(record)));
  } catch (err) {
    if (err instanceof LogSourceError) fail(`--logs ${err.message.replace(path(opts.logs), opts.logs)}`);
    throw err;
  }
  const seed = (options.seed ?? {}) as Record<string, unknown>;
  options.seed = { ...seed, logs: [...(Array.isArray(seed.logs) ? seed.logs : []), ...events] };
}

/** One aligned "  label: value" line of the banner. */
function row(label: string, value: string): string {
  return `  ${`${label}:`.padEnd(16)}${value}`;
}

/** The banner's words for a rate limit. */
function describeRateLimit(r: RateLimitSettings | null): string {
  if (!r) return `none (X-RateLimit-Limit ${UNLIMITED_BUCKET}, never empty)`;
  const how =
    r.model === 'continuous'
      ? 'added continuously'
      : `added at the top of each ${r.windowSec === 1 ? 'second' : `${r.windowSec} s window`}`;
  const per = r.scope === 'client' ? 'per client' : 'per tenant, shared by its clients';
  return `burst ${r.burst}, ${rateText(r)} ${how}, ${per}${r.tier ? ` (tier ${r.tier})` : ''}`;
}

/** The banner's words for the Date header. */
function describeDate(h: EmulatorHandle): string {
  if (h.dateHeader === 'absent') return 'none';
  const how =
    h.dateHeader === 'exact' ? 'the second of each answer' : 'to the second, refreshed once a second';
  if (h.frontEndOffsetMs === 0) return how;
  const s = Math.abs(h.frontEndOffsetMs) / 1000;
  return `${how}, from a clock ${s} s ${h.frontEndOffsetMs > 0 ? 'ahead of' : 'behind'} the rate limiter's`;
}

function describeSettings(o: RequestOptions, h: EmulatorHandle): string[] {
  const lines = [
    row('API profile', o.api === 'full' ? "full (the spec's operations and those beyond it)" : 'spec'),
    row('rate limit', describeRateLimit(h.rateLimit)),
  ];
  if (h.clockSkewMs !== 0) {
    const s = Math.abs(h.clockSkewMs) / 1000;
    lines.push(
      row(
        'tenant clock',
        `${s} s ${h.clockSkewMs > 0 ? 'ahead of' : 'behind'} this machine's (Date, X-RateLimit-Reset and timestamps are in its time)`,
      ),
    );
  }
  if (h.dateHeader !== 'second' || h.frontEndOffsetMs !== 0) lines.push(row('Date header', describeDate(h)));
  if (o.latencyMs || o.latencyJitterMs) {
    lines.push(row('latency', `${o.latencyMs ?? 0} ms + up to ${o.latencyJitterMs ?? 0} ms`));
  }
  if (o.faults) {
    const f = o.faults;
    lines.push(row('faults', `error ${f.error ?? 0}, reset ${f.reset ?? 0}, lost ${f.lost ?? 0}`));
  }
  if (o.users) lines.push(row('users', `${o.users.length} known user id(s); others get 404`));
  if (o.dataFile) lines.push(row('data file', o.dataFile));
  if (h.api === 'full') lines.push(row('reference data', referenceCounts(h)));
  return lines;
}

/** "9 applications, 7 actions, 4 APIs": the reference data a full-profile tenant holds. */
function referenceCounts(h: EmulatorHandle): string {
  const parts = h.snapshot() as Readonly<Record<string, unknown>>;
  return EMULATOR_REFERENCES.map((m) => {
    const part = parts[m.key];
    return plural(Array.isArray(part) ? part.length : 0, m.kind.title);
  }).join(', ');
}

/** The line that makes Node (tenantform, the auth0 SDK) trust the CA of --tls. */
function caExport(caFile: string | undefined): string[] {
  return caFile ? [`  export NODE_EXTRA_CA_CERTS=${caFile}`] : [];
}

function printHuman(h: EmulatorHandle, o: RequestOptions, io: CommandIO): void {
  const text = [
    `Tenant Management API emulator listening on ${h.baseUrl}`,
    '',
    row('token endpoint', `${h.origin}/oauth/token  (client credentials, audience ${h.origin}/api/v2/)`),
    row('client id', h.clientId),
    row('client secret', h.clientSecret),
    row('admin API', `${h.origin}/__emulator/state  (header ${ADMIN_KEY_HEADER}: ${h.adminKey})`),
    ...(h.caFile ? [row('CA certificate', `${h.caFile}  (removed on stop)`)] : []),
    ...describeSettings(o, h),
    '',
    'Use it from another shell (the token is valid for 24 hours, on this emulator only):',
    ...caExport(h.caFile),
    `  export TENANTFORM_BASE_URL=${h.baseUrl}`,
    `  export TENANTFORM_TOKEN=${h.token}`,
    `  export TENANTFORM_CLIENT_ID=${h.clientId}`,
    `  export TENANTFORM_CLIENT_SECRET=${h.clientSecret}`,
    '',
    'Press Ctrl+C to stop.',
    '',
  ];
  io.stdout.write(text.join('\n'));
}

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

function printTenants(handles: readonly TenantHandle[], o: RequestOptions, io: CommandIO): void {
  const width = Math.max(...handles.map((h) => h.name.length));
  const text = [
    `${handles.length} emulated tenants, each with its own data, credentials and rate limit:`,
    '',
    ...handles.map((h) => `  ${h.name.padEnd(width)}  ${h.baseUrl}`),
    '',
    ...(handles[0]?.caFile ? [row('CA certificate', `${handles[0].caFile}  (removed on stop)`)] : []),
    ...describeSettings(o, handles[0]!),
    '',
    'Credentials, one set per tenant (tokens valid for 24 hours, each on its own tenant only):',
    ...caExport(handles[0]?.caFile),
    ...handles.flatMap((h) => {
      const v = variablePrefix(h.name);
      return [
        `  export ${v}_BASE_URL=${h.baseUrl}`,
        `  export ${v}_TOKEN=${h.token}`,
        `  export ${v}_CLIENT_ID=${h.clientId}`,
        `  export ${v}_CLIENT_SECRET=${h.clientSecret}`,
      ];
    }),
    '',
    'Press Ctrl+C to stop.',
    '',
  ];
  io.stdout.write(text.join('\n'));
}

/**
 * The emulator command from its settings: the request checked, the tenants
 * started and described, then run until io.signal; the exit code (1 for a
 * bad option or a port that cannot be bound).
 */
export async function runEmulator(opts: EmulatorCommandOptions, io: CommandIO): Promise<number> {
  let request: EmulatorRequest;
  let started;
  try {
    request = await emulatorRequest(opts, io);
    started = await startEmulators(request, (line) => io.stderr.write(`${line}\n`));
  } catch (err) {
    if (!(err instanceof EmulatorOptionError)) throw err;
    io.stderr.write(`Error: ${err.message}\n`);
    return 1;
  }
  if (started.kind === 'several') return runTenants(started.handles, request, io);
  return runOne(started.handle, request, io);
}

async function runTenants(handles: TenantHandle[], request: EmulatorRequest, io: CommandIO): Promise<number> {
  if (request.json) {
    const tenants = handles.map((h) => ({
      name: h.name,
      base_url: h.baseUrl,
      token: h.token,
      client_id: h.clientId,
      client_secret: h.clientSecret,
    }));
    // The pid lets a script stop this process even when it was started through a wrapper such as npx.
    const ca = handles[0]?.caFile;
    const full = handles[0]?.api === 'full' ? { api: 'full' } : {};
    io.stdout.write(
      `${JSON.stringify({ pid: process.pid, ...full, ...(ca ? { ca_file: ca } : {}), tenants })}\n`,
    );
  } else {
    printTenants(handles, request.options, io);
  }
  await untilAborted(io.signal);
  const results = await Promise.allSettled(handles.map((h) => h.stop()));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    io.stderr.write(`Error: stopping the emulator: ${(failed.reason as Error).message}\n`);
    return 1;
  }
  if (!request.json) io.stderr.write('Emulator stopped.\n');
  return 0;
}

async function runOne(handle: EmulatorHandle, request: EmulatorRequest, io: CommandIO): Promise<number> {
  const host = request.options.host ?? '';
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(host) || host.startsWith('127.');
  if (!loopback) {
    io.stderr.write(`Warning: listening on ${host}; anyone who can reach it can use these credentials.\n`);
  }
  if (request.json) {
    const line = {
      base_url: handle.baseUrl,
      token: handle.token,
      client_id: handle.clientId,
      client_secret: handle.clientSecret,
      ...(handle.api === 'full' ? { api: 'full' } : {}),
      ...(handle.caFile ? { ca_file: handle.caFile } : {}),
    };
    io.stdout.write(`${JSON.stringify(line)}\n`);
  } else {
    printHuman(handle, request.options, io);
  }
  await untilAborted(io.signal);
  try {
    await handle.stop();
  } catch (err) {
    io.stderr.write(`Error: stopping the emulator: ${(err as Error).message}\n`);
    return 1;
  }
  if (!request.json) io.stderr.write('Emulator stopped.\n');
  return 0;
}
