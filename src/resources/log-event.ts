import { LIST_PAGE_SIZE, type OperationDescriptor } from './operations.js';
import type { Declaration } from './kind.js';

/**
 * The tenant's log events (API profile full): read by `simulate --logs
 * tenant`, never planned, applied or stored. GET /logs pages two ways (the
 * service's "Retrieve Log Events Using the Management API"): by checkpoint,
 * `from` (a log_id) and `take` (at most 100), the events newer than that
 * log_id in log_id order, as a bare array (empty when there is none); or by
 * search, `q` (query string syntax, e.g. `date:[2026-11-20 TO *]`), `sort`
 * (`date:1` oldest first), `page` and `per_page` (at most 100; at most 1,000
 * results in all). The search finds where to start; the checkpoint reads on.
 */
const list: OperationDescriptor = {
  name: 'listLogs',
  profile: 'full',
  method: 'GET',
  path: '/logs',
  params: {},
  scope: 'read:logs',
  response: 'logList',
  success: [200],
  outcomes: {},
  pagination: 'checkpoint',
  pageSize: LIST_PAGE_SIZE,
  itemsKey: 'logs',
};

export const logEvent = {
  name: 'log',
  title: { one: 'log event', many: 'log events' },
  operations: { list },
} as const satisfies Declaration;
