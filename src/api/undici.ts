/**
 * undici's Agent and request() alone. Its index also loads fetch, WebSocket,
 * caches, mocks and more: about 60% of undici's load time, which every run
 * pays before its first request (bench: latency-bound apply). When a later
 * undici moves these files, the index serves instead.
 *
 * The CLI's bundle (scripts/bundle.mjs) puts another module in this one's
 * place, which imports the same two files: esbuild then bundles them, so
 * they load with the CLI's code and its code cache.
 */
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';
import type * as Undici from 'undici';

export type RequestFn = (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

export function loadUndici(): { Agent: typeof Agent; request: RequestFn } {
  const require = createRequire(import.meta.url);
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
