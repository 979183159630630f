/**
 * undici's Agent and request() alone. Its index also loads fetch, WebSocket,
 * caches, mocks and more: about 60% of undici's load time, which every run
 * pays before its first request (bench: latency-bound apply). When a later
 * undici moves these files, the index serves instead.
 *
 * The CLI's bundle (scripts/bundle.mjs) puts another module in this one's
 * place, which imports the same two files: esbuild then bundles them, so
 * they load with the CLI's code and its code cache, and there node:http2
 * is what loads when first used (the bundle's lazy-http2).
 */
import { createRequire, Module } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import type * as Undici from 'undici';

export type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

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

export function loadUndici(): { Agent: typeof Agent; request: RequestFn } {
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
