/**
 * A run's one API client. The target and credentials are resolved before
 * the question (`endpoint`), so that a mistake in them never comes after a
 * "yes"; the client is made when first needed (the refresh read, or the
 * first request) and then sends everything else, so that reads and writes
 * share one pacer. A plan that needs no request needs neither.
 */
import type { ApiClient, ApiClientOptions, Target, WaitKind } from '../api/index.js';
import type { RateLimitKeeper } from '../state/index.js';
import { checkTokenCharacters } from '../api/credentials.js';
import { RunError } from './errors.js';
import type { ConfigInput, ConnectionRequest, RunIO } from './requests.js';
import { environmentTarget } from './state-store.js';

/** Where the client's waits (rate limit, retries) are reported. */
export type WaitSink = (ms: number, reason: string, kind: WaitKind) => void;

const CREDENTIAL_VARIABLES = [
  'TENANTFORM_TOKEN',
  'AUTH0_ACCESS_TOKEN',
  'TENANTFORM_CLIENT_ID',
  'TENANTFORM_CLIENT_SECRET',
  'AUTH0_CLIENT_ID',
  'AUTH0_CLIENT_SECRET',
];

/**
 * The process environment as one environment's API client must see it: when
 * tenantform.yaml names its credential variables, the standard credential
 * variables are replaced by the named ones, so that one tenant's secret never
 * reaches another tenant. Throws RunError ENV_CREDENTIALS_MISSING naming a
 * variable that is not set (never its value).
 */
export function environmentCredentials(
  env: Record<string, string | undefined>,
  input: ConfigInput,
): Record<string, string | undefined> {
  const c = input.environment?.credentials;
  if (!c || (c.token === undefined && c.clientId === undefined)) return env;
  const out = { ...env };
  for (const name of CREDENTIAL_VARIABLES) delete out[name];
  const take = (variable: string, field: string): string => {
    const value = env[variable];
    if (value === undefined || value.trim() === '') {
      throw new RunError(
        { code: 'ENV_CREDENTIALS_MISSING', env: input.env, field, variable },
        `environment ${input.env}: credentials.${field} names the environment variable ${variable}, which is not set`,
      );
    }
    return value;
  };
  if (c.token !== undefined) {
    out.TENANTFORM_TOKEN = take(c.token, 'token');
    checkTokenCharacters(out.TENANTFORM_TOKEN.trim().replace(/^Bearer\s+/i, ''), c.token);
  }
  if (c.clientId !== undefined && c.clientSecret !== undefined) {
    out.TENANTFORM_CLIENT_ID = take(c.clientId, 'client_id');
    out.TENANTFORM_CLIENT_SECRET = take(c.clientSecret, 'client_secret');
  }
  return out;
}

/** The API target of the request, else the environment's in tenantform.yaml, else the process environment's. */
export async function readTarget(request: ConnectionRequest, input: ConfigInput, io: RunIO): Promise<Target> {
  const { resolveTarget } = await import('../api/index.js');
  const t = environmentTarget(request.target, input);
  return resolveTarget({ domain: t.domain, baseUrl: t.baseUrl, audience: request.audience }, io.env);
}

type Endpoint = Pick<ApiClientOptions, 'target' | 'credentials' | 'proxy'> & {
  create: (options: ApiClientOptions) => ApiClient;
};

/** The target (`given`, else the process environment's), confirmed, and the credentials for it. */
async function resolveEndpoint(
  request: ConnectionRequest,
  input: ConfigInput,
  given: Target | null,
  io: RunIO,
): Promise<Endpoint> {
  const api = await import('../api/index.js');
  const target = given ?? api.resolveTarget({ audience: request.audience }, io.env);
  const { checkTargetConfirmed } = await import('./confirmed-tenant.js');
  checkTargetConfirmed(target, request.named, input, io.env);
  const credentials = api.resolveCredentials(
    { tokenFile: request.tokenFile },
    environmentCredentials(io.env, input),
  );
  const proxy = api.proxyFromEnv(io.env);
  return { target, credentials, ...(proxy ? { proxy } : {}), create: api.createApiClient };
}

/** The client options of an endpoint for the request: parallelism, pacing, the signal, debug lines. */
function clientOptions(
  endpoint: Endpoint,
  request: ConnectionRequest,
  io: RunIO,
  parallelism: number,
  onWait?: ApiClientOptions['onWait'],
): ApiClientOptions {
  const { target, credentials, proxy } = endpoint;
  return {
    target,
    credentials,
    ...(proxy ? { proxy } : {}),
    parallelism,
    ...request.pacing,
    signal: io.signal,
    logger: request.debug ? (line: string) => io.notice({ kind: 'debug', line }) : undefined,
    ...(onWait ? { onWait } : {}),
    ...(io.settingNames ? { settingNames: io.settingNames } : {}),
  };
}

/**
 * A client for `options`, its first round from the rate-limit facts kept in
 * `store` (src/run/rate-memory.ts); closing it keeps what its answers taught.
 */
export async function rememberingClient(
  create: Endpoint['create'],
  options: ApiClientOptions,
  store: RateLimitKeeper,
  debug: boolean,
  io: RunIO,
): Promise<ApiClient> {
  const memory = await import('./rate-memory.js');
  const log = debug ? (line: string) => io.notice({ kind: 'debug', line }) : () => {};
  const { target, parallelism = 10 } = options;
  const { round, kept } = await memory.readFirstRound(store, target, parallelism, log);
  const client = create({
    ...options,
    ...(round ? { firstRound: { level: round.level, routes: round.routes } } : {}),
  });
  // An apply closes its connection on the way out of each step that may end
  // it, so a second close must neither close the client again nor write the
  // facts a second time: every close shares the first one's work.
  let closing: Promise<void> | undefined;
  const closeOnce = async (): Promise<void> => {
    await client.close();
    await memory.keepRateFacts(store, target, client.rateFacts?.() ?? [], kept, log);
  };
  return { ...client, close: () => (closing ??= closeOnce()) };
}

/**
 * An API client for the target and credentials of the request, the
 * environment and the process environment; with `store`, paced from the
 * rate-limit facts kept there and keeping them when closed.
 */
export async function openClient(
  request: ConnectionRequest,
  input: ConfigInput,
  io: RunIO,
  options: {
    parallelism?: number;
    onWait?: (ms: number, reason: string) => void;
    store?: RateLimitKeeper;
  } = {},
): Promise<ApiClient> {
  const target = await readTarget(request, input, io);
  const endpoint = await resolveEndpoint(request, input, target, io);
  const made = clientOptions(endpoint, request, io, options.parallelism ?? 10, options.onWait);
  return options.store
    ? rememberingClient(endpoint.create, made, options.store, request.debug, io)
    : endpoint.create(made);
}

export interface ConnectionSettings {
  request: ConnectionRequest;
  input: ConfigInput;
  /** The target the request or the environment named, already checked; null: the process environment's. */
  given: Target | null;
  io: RunIO;
  parallelism: number;
  /** Where the tenant's rate-limit facts are kept (the state store): the first round comes from them. */
  store?: RateLimitKeeper;
}

export class ApiConnection {
  private resolved: Endpoint | null = null;
  private client: ApiClient | null = null;
  private waits: WaitSink = () => {};

  constructor(private readonly settings: ConnectionSettings) {}

  /** The target and credentials, resolved once; throws a clear error when either is missing. */
  async endpoint(): Promise<Endpoint> {
    const { request, input, given, io } = this.settings;
    this.resolved ??= await resolveEndpoint(request, input, given, io);
    return this.resolved;
  }

  /** The client, made on the first call. */
  async open(): Promise<ApiClient> {
    if (this.client) return this.client;
    const endpoint = await this.endpoint();
    const { io, request, parallelism, store } = this.settings;
    const options = clientOptions(endpoint, request, io, parallelism, (ms, reason, kind) =>
      this.waits(ms, reason, kind),
    );
    this.client = store
      ? await rememberingClient(endpoint.create, options, store, request.debug, io)
      : endpoint.create(options);
    return this.client;
  }

  /** The target the request or the environment named (null: the process environment's, resolved when needed). */
  get given(): Target | null {
    return this.settings.given;
  }

  /** True once the client is made. */
  get isOpen(): boolean {
    return this.client !== null;
  }

  /** Reports the client's waits to `sink` from now on (before: nowhere). */
  reportWaitsTo(sink: WaitSink): void {
    this.waits = sink;
  }

  /** What the client sent, once it is made. */
  stats(): ReturnType<ApiClient['stats']> | undefined {
    return this.client?.stats();
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
