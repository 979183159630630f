/**
 * The wire: an undici Agent with keep-alive, sized connection pools, connect
 * and request timeouts and TLS verification forced on (undici's
 * EnvHttpProxyAgent with the same settings when the environment names a
 * proxy, see proxy.ts); and one attempt of one
 * request through any undici Dispatcher (the built-in Agent or an injected
 * one). Requests go through Dispatcher.request with origin and path kept apart,
 * so the encoded path is sent exactly as built.
 */
import { createRequire, Module } from 'node:module';
import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import type * as Undici from 'undici';
import type { ProxySettings } from './proxy.js';
import type { Headers } from './retry.js';
import type { HttpMethod } from '../resources/index.js';

export interface TransportSettings {
  parallelism: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

type RequestFn = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/**
 * undici's HTTP/2 client (lib/dispatcher/client-h2.js), loaded when a
 * connection first negotiates HTTP/2 rather than with undici: it loads
 * node:http2, which loads node:tls and node:crypto, about 10 ms before the
 * first request of every run, and only an https:// connection whose server
 * picks h2 (ALPN) uses it. undici's Client calls it as the module's one
 * export, connectH2(client, socket); what stands in its place loads the real
 * one on that first call. Left alone when undici was loaded before or its
 * files moved (undici then loads it as usual).
 */
function deferHttp2Client(require: NodeJS.Require): void {
  let path: string;
  try {
    path = require.resolve('undici/lib/dispatcher/client-h2.js');
  } catch {
    return;
  }
  if (require.cache[path]) return;
  const standIn = new Module(path);
  let connectH2: ((...args: unknown[]) => unknown) | null = null;
  standIn.exports = function connectH2Deferred(...args: unknown[]): unknown {
    if (!connectH2) {
      delete require.cache[path];
      connectH2 = require(path) as (...args: unknown[]) => unknown;
    }
    return connectH2(...args);
  };
  standIn.filename = path;
  standIn.loaded = true;
  require.cache[path] = standIn;
}

/**
 * undici's Agent and request() alone. Its index also loads fetch, WebSocket,
 * caches, mocks and more: about 60% of undici's load time, which every run
 * pays before its first request (bench: latency-bound apply). When a later
 * undici moves these files, the index serves instead.
 */
function loadUndici(): { Agent: typeof Agent; request: RequestFn } {
  const require = createRequire(import.meta.url);
  deferHttp2Client(require);
  try {
    return {
      Agent: require('undici/lib/dispatcher/agent.js') as typeof Agent,
      request: require('undici/lib/api/api-request.js') as RequestFn,
    };
  } catch {
    const undici = require('undici') as typeof Undici;
    return {
      Agent: undici.Agent,
      request(this: Dispatcher, options) {
        return this.request(options);
      },
    };
  }
}

const undici = loadUndici();

/** Largest response body read; a larger one is a bad response. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Options of the built-in Agent. rejectUnauthorized is explicit so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn it off. */
export function agentOptions(settings: TransportSettings): Agent.Options {
  return {
    connections: Math.max(1, Math.floor(settings.parallelism)),
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    headersTimeout: settings.requestTimeoutMs,
    bodyTimeout: settings.requestTimeoutMs,
    connect: { timeout: settings.connectTimeoutMs, rejectUnauthorized: true },
  };
}

/**
 * undici's EnvHttpProxyAgent, loaded only when a proxy is named, from
 * undici's index: its tunnel (CONNECT) uses the Dispatcher methods the index
 * adds. Its ProxyAgent connects to the tenant with `requestTls`, not
 * `connect`, so verification is forced on there too, and on the connection
 * to an https:// proxy (`proxyTls`).
 */
function createProxyAgent(settings: TransportSettings, proxy: ProxySettings): EnvHttpProxyAgent {
  const Env = (createRequire(import.meta.url)('undici') as typeof Undici).EnvHttpProxyAgent;
  const tls = { rejectUnauthorized: true, timeout: settings.connectTimeoutMs };
  return new Env({
    ...agentOptions(settings),
    ...(proxy.http ? { httpProxy: proxy.http.url } : {}),
    ...(proxy.https ? { httpsProxy: proxy.https.url } : {}),
    noProxy: proxy.noProxy,
    requestTls: tls,
    proxyTls: tls,
  } as EnvHttpProxyAgent.Options);
}

/** The built-in dispatcher: an Agent, or through the proxies the environment names. */
export function createAgent(settings: TransportSettings, proxy?: ProxySettings): Dispatcher {
  const agent = proxy ? createProxyAgent(settings, proxy) : new undici.Agent(agentOptions(settings));
  // The index adds request() to every Dispatcher; loaded without it, the Agent gets its own.
  if (typeof agent.request !== 'function') Object.assign(agent, { request: undici.request });
  return agent;
}

export interface WireRequest {
  origin: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: string;
  requestTimeoutMs: number;
  signal?: AbortSignal;
}

export interface WireResponse {
  status: number;
  headers: Headers;
  body: string;
}

export class BodyTooLargeError extends Error {
  readonly code = 'BODY_TOO_LARGE';
}

/**
 * The whole body as text, refused past MAX_BODY_BYTES. Read with 'data' and
 * 'end' listeners: an async iterator over the stream costs several times more
 * per answer (bench: latency-bound apply), and most answers are one chunk.
 */
function readBody(body: Dispatcher.ResponseData['body']): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer | Uint8Array) => {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buf.length;
      if (size > MAX_BODY_BYTES) {
        body.destroy();
        reject(new BodyTooLargeError(`response body larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(buf);
    });
    body.on('end', () => {
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve(whole.toString('utf8'));
    });
    body.on('error', reject);
  });
}

/** Sends one request and reads the whole answer. Throws undici's errors for network trouble. */
export async function sendOnce(dispatcher: Dispatcher, req: WireRequest): Promise<WireResponse> {
  const res = await dispatcher.request({
    origin: req.origin,
    path: req.path,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    headersTimeout: req.requestTimeoutMs,
    bodyTimeout: req.requestTimeoutMs,
    signal: req.signal ?? null,
  });
  const body = await readBody(res.body);
  return { status: res.statusCode, headers: res.headers as Headers, body };
}
