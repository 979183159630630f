/**
 * Reading a list operation to its last page, one request per page, through
 * the client's `call` (so through its pacer, retries and response checks).
 * Two styles, as the descriptor says (src/resources `pagination`):
 * - checkpoint: `take` and `from`; the answer's `next` names the following
 *   page, and no `next` (or an empty one) ends the list;
 * - offset: `per_page` and 0-based `page`, asked with `include_totals=true`
 *   (unless the answer always has it: `totals: 'always'`) so that the
 *   answer's `total` ends the list without an extra empty page.
 * Pages are as large as the service allows, so a list of N costs
 * ceil(N / size) requests, plus one when a checkpoint list ends on a full page.
 */
import type { OperationDescriptor } from '../resources/index.js';
import { ApiError } from './errors.js';
import type { CallResult, Query } from './types.js';

/** The client's call, with a query string. */
export type ListCall = (
  op: OperationDescriptor,
  params: Readonly<Record<string, string>>,
  body: undefined,
  query: Query,
) => Promise<CallResult>;

export interface ReadListOptions {
  /** Items per page; default (and at most) the largest the operation allows (`op.pageSize.max`). */
  pageSize?: number;
  /** Extra query parameters sent with every page (e.g. a filter). */
  filters?: Query;
}

export interface ListRead {
  items: unknown[];
  /** Requests sent (pages read). */
  pages: number;
}

function unexpected(op: OperationDescriptor, what: string): ApiError {
  return new ApiError(`${op.name}: GET ${op.path} answered ${what}`, {
    code: 'API_BAD_RESPONSE',
    status: 200,
    error: 'Bad response',
    method: op.method,
    path: op.path,
    operation: op.name,
    retryable: false,
    attempts: 1,
  });
}

async function page(
  call: ListCall,
  op: OperationDescriptor,
  params: Readonly<Record<string, string>>,
  query: Query,
): Promise<unknown> {
  const answer = await call(op, params, undefined, query);
  if (answer.outcome !== 'done') throw unexpected(op, `${answer.status} (${answer.outcome})`);
  return answer.body;
}

/** Every item of the list operation `op` (a descriptor with `pagination` and `itemsKey`), in the order served. */
export async function readList(
  call: ListCall,
  op: OperationDescriptor,
  params: Readonly<Record<string, string>>,
  options: ReadListOptions = {},
): Promise<ListRead> {
  const key = op.itemsKey;
  if (!op.pagination || !key || !op.pageSize) throw new Error(`internal: ${op.name} is not a list operation`);
  const max = op.pageSize.max;
  const size = Math.max(1, Math.min(max, Math.floor(options.pageSize ?? max)));
  const filters = options.filters ?? {};
  const items: unknown[] = [];
  let pages = 0;

  if (op.pagination === 'checkpoint') {
    let from: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const body = (await page(call, op, params, { ...filters, take: size, ...(from ? { from } : {}) })) as
        { [k: string]: unknown; next?: string } | undefined;
      pages++;
      const list = body?.[key];
      if (!Array.isArray(list)) throw unexpected(op, `a page without its ${key} array`);
      items.push(...(list as unknown[]));
      const next = body?.next;
      if (typeof next !== 'string' || next === '') break;
      // A cursor served twice would loop forever: the list is inconsistent.
      if (seen.has(next)) throw unexpected(op, `the cursor ${JSON.stringify(next)} a second time`);
      seen.add(next);
      from = next;
    }
    return { items, pages };
  }

  // A list that always answers with its total takes no include_totals.
  const totals: Query = op.totals === 'always' ? {} : { include_totals: true };
  for (let index = 0; ; index++) {
    const body = await page(call, op, params, { ...filters, per_page: size, page: index, ...totals });
    pages++;
    const list = Array.isArray(body) ? body : (body as { [k: string]: unknown } | undefined)?.[key];
    if (!Array.isArray(list)) throw unexpected(op, `a page without its ${key} array`);
    items.push(...(list as unknown[]));
    const total = Array.isArray(body) ? undefined : (body as { total?: unknown }).total;
    if (list.length === 0) break;
    if (typeof total === 'number' ? items.length >= total : list.length < size) break;
  }
  return { items, pages };
}
