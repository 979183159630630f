import {
  REFERENCE_LISTS,
  referencedKeys,
  type DesiredResource,
  type Reference,
  type ReferenceItem,
  type ReferenceList,
  type ReferenceQuery,
  type ReferenceRead,
  type SourcePosition,
} from '../resources/index.js';
import { closestMatch, editDistance } from './selection.js';

/**
 * References checked against the tenant (API profile full): every reference
 * the config makes to a reference list (src/resources REFERENCE_LISTS: a
 * policy's client_id: selector, a profile's action_id, a permission's API and
 * permission name) must name an item the tenant has. Pure: what to read is
 * `referenceQueries`, the read happens elsewhere (src/api, wired by src/cli)
 * and arrives as a ReferenceRead; `checkReferences` says what is wrong, each
 * problem at the referring resource's place in the config.
 */

/** One bad reference: where the config makes it, and what is wrong. */
export interface ReferenceProblem {
  /** The referring resource's address. */
  address: string;
  source?: SourcePosition;
  /** Stable code: the list's rule's (REFERENCE_UNKNOWN_CLIENT, …). */
  code: string;
  message: string;
}

/** What to read to check the references of `desired`: one pass per list it refers to, none for the others. */
export function referenceQueries(
  desired: readonly DesiredResource[],
  lists: readonly ReferenceList[] = REFERENCE_LISTS,
): ReferenceQuery[] {
  return lists.flatMap((list) => {
    const keys = referencedKeys(list.references(desired));
    return keys.length === 0 ? [] : [{ list, queries: list.queries(keys) }];
  });
}

/** The candidate close enough to `input` to be what was meant, or null. */
export function nearMiss(input: string, candidates: Iterable<string>): string | null {
  const best = closestMatch(input, candidates);
  if (best === null) return null;
  return editDistance(input, best) <= Math.max(1, Math.floor(input.length / 5)) ? best : null;
}

function didYouMean(input: string, candidates: Iterable<string>): string {
  const best = nearMiss(input, candidates);
  return best === null ? '' : `; did you mean ${best}?`;
}

function problem(ref: Reference, code: string, message: string): ReferenceProblem {
  const { address, source } = ref.resource;
  return { address, ...(source ? { source } : {}), code, message };
}

/** The problems of one list's references, in the order the config makes them. */
function checkList(
  list: ReferenceList,
  refs: readonly Reference[],
  items: readonly ReferenceItem[],
): ReferenceProblem[] {
  const usable = new Map<string, ReferenceItem>();
  for (const item of items) if (list.usable?.(item) ?? true) usable.set(item.key, item);
  const out: ReferenceProblem[] = [];
  for (const ref of refs) {
    const item = usable.get(ref.key);
    if (!item) {
      out.push(
        problem(ref, list.unknown.code, list.unknown.message(ref) + didYouMean(ref.key, usable.keys())),
      );
    } else if (ref.member !== undefined && list.unknownMember && !(item.members ?? []).includes(ref.member)) {
      const rule = list.unknownMember;
      out.push(problem(ref, rule.code, rule.message(ref, item) + didYouMean(ref.member, item.members ?? [])));
    }
  }
  return out;
}

/**
 * Every reference of `desired` to a list in `read` that names nothing the
 * tenant has, list by list (REFERENCE_LISTS order), each in config order. A
 * list the read does not hold is not checked.
 */
export function checkReferences(
  desired: readonly DesiredResource[],
  read: ReferenceRead,
  lists: readonly ReferenceList[] = REFERENCE_LISTS,
): ReferenceProblem[] {
  return lists.flatMap((list) => {
    const items = read.items[list.name];
    return items ? checkList(list, list.references(desired), items) : [];
  });
}
