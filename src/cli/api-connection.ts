/**
 * An apply's one API client. The target and credentials are resolved before
 * the question (`endpoint`), so that a mistake in them never comes after a
 * "yes"; the client is made when first needed (the --refresh read, or the
 * first request) and then sends everything else, so that reads and writes
 * share one pacer. A plan that needs no request needs neither.
 */
import type { ApiClient, ApiClientOptions, Target, WaitKind } from '../api/index.js';
import { absolute } from './context.js';
import { environmentCredentials, type ConfigInput } from './inputs.js';
import type { CommandIO } from './io.js';

/** Where the client's waits (rate limit, retries) are reported. */
export type WaitSink = (ms: number, reason: string, kind: WaitKind) => void;

export interface ConnectionSettings {
  /** The command line's flags (--domain and --base-url confirm a target; tenantform.yaml alone does not). */
  flags: { audience?: string; tokenFile?: string; debug?: boolean; domain?: string; baseUrl?: string };
  input: ConfigInput;
  /** The target the flags or the environment named, already checked; null: the process environment's. */
  given: Target | null;
  io: CommandIO;
  parallelism: number;
  pacing: Pick<ApiClientOptions, 'maxRps' | 'share' | 'retry'>;
}

type Endpoint = Pick<ApiClientOptions, 'target' | 'credentials' | 'proxy'> & {
  create: (options: ApiClientOptions) => ApiClient;
};

export class ApiConnection {
  private resolved: Endpoint | null = null;
  private client: ApiClient | null = null;
  private waits: WaitSink = () => {};

  constructor(private readonly settings: ConnectionSettings) {}

  /** The target and credentials, resolved once; throws a clear error when either is missing. */
  async endpoint(): Promise<Endpoint> {
    if (this.resolved) return this.resolved;
    const { flags, input, given, io } = this.settings;
    const api = await import('../api/index.js');
    const target = given ?? api.resolveTarget({ audience: flags.audience }, io.env);
    const { checkTargetConfirmed } = await import('./confirmed-tenant.js');
    checkTargetConfirmed(target, flags, input, io.env);
    const credentials = api.resolveCredentials(
      { tokenFile: flags.tokenFile ? absolute(flags.tokenFile, io) : undefined },
      environmentCredentials(io.env, input),
    );
    const proxy = api.proxyFromEnv(io.env);
    this.resolved = { target, credentials, ...(proxy ? { proxy } : {}), create: api.createApiClient };
    return this.resolved;
  }

  /** The client, made on the first call. */
  async open(): Promise<ApiClient> {
    if (this.client) return this.client;
    const { target, credentials, proxy, create } = await this.endpoint();
    const { io, flags, parallelism, pacing } = this.settings;
    this.client = create({
      target,
      credentials,
      ...(proxy ? { proxy } : {}),
      parallelism,
      ...pacing,
      signal: io.signal,
      logger: flags.debug ? (line: string) => io.stderr.write(`[debug] ${line}\n`) : undefined,
      onWait: (ms, reason, kind) => this.waits(ms, reason, kind),
    });
    return this.client;
  }

  /** The target the flags or the environment named (null: the process environment's, resolved when needed). */
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
