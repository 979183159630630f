/**
 * One log event as the simulation reads it, from the shapes the service
 * delivers: the event itself (GET /api/v2/logs items) or wrapped as a log
 * stream delivers it, `{ "log_id": …, "data": { …the event… } }`. Only
 * `type`, `date`, `client_id` and `client_name` are read; everything else
 * is ignored. An event without one of the first three is not evidence: it
 * is counted as skipped, with the reason.
 */
import { isRequestEvent, LIMIT_NOTICE } from './event-types.js';

/** Why an event was not counted. */
export type SkipReason = 'no-type' | 'no-date' | 'bad-date' | 'no-client' | 'other-type' | 'before-since';

/** What one event says, once read. */
export type ReadEvent =
  | { kind: 'request' | 'limit-notice'; time: number; clientId: string; clientName?: string }
  | { kind: 'skipped'; reason: SkipReason };

const skipped = (reason: SkipReason): ReadEvent => ({ kind: 'skipped', reason });

/** The event of a record: the record itself, or its `data` when a log stream wrapped it. */
export function unwrap(record: Record<string, unknown>): Record<string, unknown> {
  const data = record.data;
  if (typeof record.type !== 'string' && data !== null && typeof data === 'object' && !Array.isArray(data)) {
    return data as Record<string, unknown>;
  }
  return record;
}

/** Reads one event (an object, already parsed); `since`: events before it (ms since the epoch) are skipped. */
export function readEvent(record: Record<string, unknown>, since: number | null = null): ReadEvent {
  const event = unwrap(record);
  const type = event.type;
  if (typeof type !== 'string' || type === '') return skipped('no-type');
  const notice = type === LIMIT_NOTICE;
  if (!notice && !isRequestEvent(type)) return skipped('other-type');
  if (typeof event.date !== 'string' || event.date === '') return skipped('no-date');
  const time = Date.parse(event.date);
  if (Number.isNaN(time)) return skipped('bad-date');
  if (since !== null && time < since) return skipped('before-since');
  const clientId = event.client_id;
  if (typeof clientId !== 'string' || clientId === '') return skipped('no-client');
  const name = event.client_name;
  return {
    kind: notice ? 'limit-notice' : 'request',
    time,
    clientId,
    ...(typeof name === 'string' && name !== '' ? { clientName: name } : {}),
  };
}

/**
 * Text read from logs as it may be printed: control characters (a terminal
 * would obey an escape sequence in a client_name) written as \uXXXX.
 */
export function printable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what it finds
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
