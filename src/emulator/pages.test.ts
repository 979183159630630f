import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.js';
import { checkpointPage, CURSOR_LIFETIME_MS, offsetPage, type Ordered } from './pages.js';
import { LIST_PAGE_SIZE } from '../resources/index.js';

const SIZE = LIST_PAGE_SIZE;

const NOW = 1_700_000_000_000;
const items: Ordered<string>[] = Array.from({ length: 7 }, (_, i) => ({ seq: i + 1, item: `p${i + 1}` }));
const q = (text: string) => new URLSearchParams(text);

function fails(run: () => unknown): HttpError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error('expected a 400');
}

describe('checkpoint pages', () => {
  it('follows next to the last page, which has none', () => {
    const seen: string[] = [];
    let from = '';
    let pages = 0;
    for (;;) {
      const page = checkpointPage('rlp', items, q(`take=3${from ? `&from=${from}` : ''}`), NOW, SIZE);
      pages += 1;
      seen.push(...page.items);
      if (page.next === undefined) break;
      from = page.next;
    }
    expect(seen).toEqual(items.map((o) => o.item));
    expect(pages).toBe(3);
  });

  it('has no next when the page ends exactly at the last item, and takes 50 by default', () => {
    expect(checkpointPage('rlp', items, q('take=7'), NOW, SIZE)).toEqual({ items: items.map((o) => o.item) });
    const many = Array.from({ length: 120 }, (_, i) => ({ seq: i, item: i }));
    const first = checkpointPage('rlp', many, q(''), NOW, SIZE);
    expect(first.items).toHaveLength(50);
    expect(first.next).toEqual(expect.any(String));
  });

  it('continues after the last item served even when items before it were deleted meanwhile', () => {
    const first = checkpointPage('rlp', items, q('take=3'), NOW, SIZE);
    const after = items.filter((o) => o.item !== 'p2' && o.item !== 'p3');
    expect(checkpointPage('rlp', after, q(`take=3&from=${first.next}`), NOW, SIZE).items).toEqual([
      'p4',
      'p5',
      'p6',
    ]);
  });

  it.each([
    ['take=0', 'take must be a whole number from 1 to 100 (got "0")'],
    ['take=101', 'take must be a whole number from 1 to 100'],
    ['take=ten', 'take must be a whole number'],
    ['take=1&take=2', 'take is given 2 times'],
    ['from=nonsense', 'from is not a cursor of this list'],
  ])('refuses %s with a 400 naming the parameter', (query, message) => {
    const err = fails(() => checkpointPage('rlp', items, q(query), NOW, SIZE));
    expect(err.status).toBe(400);
    expect(err.body()).toMatchObject({ errorCode: 'invalid_query_string' });
    expect(err.message).toContain(message);
  });

  it('refuses a cursor of another list and one older than 24 hours', () => {
    const { next } = checkpointPage('tep', items, q('take=1'), NOW, SIZE);
    expect(fails(() => checkpointPage('rlp', items, q(`from=${next}`), NOW, SIZE)).message).toContain(
      'not a cursor',
    );
    expect(checkpointPage('tep', items, q(`from=${next}`), NOW + CURSOR_LIFETIME_MS, SIZE).items[0]).toBe(
      'p2',
    );
    expect(
      fails(() => checkpointPage('tep', items, q(`from=${next}`), NOW + CURSOR_LIFETIME_MS + 1, SIZE))
        .message,
    ).toContain('older than 24 hours');
  });
});

describe('offset pages', () => {
  const list = items.map((o) => o.item);

  it('answers the bare array by default and the totals object with include_totals=true', () => {
    expect(offsetPage('permissions', list, q('per_page=3&page=1'), SIZE)).toEqual(['p4', 'p5', 'p6']);
    expect(offsetPage('permissions', list, q('per_page=3&page=2&include_totals=true'), SIZE)).toEqual({
      start: 6,
      limit: 3,
      total: 7,
      permissions: ['p7'],
    });
    expect(offsetPage('permissions', list, q('per_page=3&page=5'), SIZE)).toEqual([]);
    expect(offsetPage('permissions', list, q('include_totals=false'), SIZE)).toEqual(list);
  });

  it.each([
    ['page=-1', 'page must be a whole number 0 or more'],
    ['per_page=0', 'per_page must be a whole number from 1 to 100'],
    ['include_totals=yes', 'include_totals must be true or false'],
  ])('refuses %s with a 400', (query, message) => {
    expect(fails(() => offsetPage('permissions', list, q(query), SIZE)).message).toContain(message);
  });
});
