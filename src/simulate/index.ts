/**
 * Simulate: what a configuration's rate limit policies would have done to
 * the tenant's own traffic, replayed from its log events. Owns which log
 * events are Authentication API requests (event-types.ts), reading an event
 * (events.ts), reading files of them as a stream (sources.ts), counting per
 * second in bounded memory (seconds.ts), and the simulation itself
 * (simulate.ts: precedence from src/review, counters, effects, the docs'
 * suggested limit). Does not own: reading the configuration (config/),
 * reading the tenant (api/: the CLI hands the pages' events in), printing (cli/).
 */
export {
  isRequestEvent,
  LIMIT_NOTICE,
  REQUEST_EVENTS,
  type AuthEndpoint,
  type RequestEvent,
} from './event-types.js';
export { printable, readEvent, unwrap, type ReadEvent, type SkipReason } from './events.js';
export { LogSourceError, readSource, sourceFiles, type RecordSink, type SourceRead } from './sources.js';
export { SecondCounts } from './seconds.js';
export {
  SERIES_POINTS,
  Simulation,
  type ApplicationResult,
  type Effect,
  type Peak,
  type PolicyResult,
  type SimulationReport,
  type Suggestion,
} from './simulate.js';
