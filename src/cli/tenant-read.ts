/**
 * The reads of the tenant in the commands' words (the reads themselves are
 * src/run/tenant-read.ts's): the spec profile refused for a command that
 * reads, the reference lists left unchecked, the config's references the
 * tenant lacks, and the line that sums a read up.
 */
import type { TenantRead } from '../api/index.js';
import type { ConfigIssue } from '../config/index.js';
import {
  REFERENCE_LISTS,
  referencedKeys,
  type ApiProfile,
  type DesiredResource,
  type ReferenceRead,
} from '../resources/index.js';
import { CliError, type CommandIO } from './io.js';
import { listed, plural } from './words.js';
import { reportIssues } from './config-issues.js';
import { fullProfileNeeded } from './run-words.js';
import { reportWarnings } from './guardrails.js';

/** Refuses `what` under the spec profile, which has no read operation. */
export function requireFull(profile: ApiProfile, what: string): void {
  if (profile === 'full') return;
  throw new CliError(fullProfileNeeded(what));
}

/**
 * One issue per reference list the tenant refused to list (403): its
 * references are not checked, for want of the list's read scope ("references
 * not checked: the token lacks read:clients …"). A warning, or an error
 * under --strict; no place in the config, code REFERENCES_NOT_CHECKED.
 */
export function uncheckedLists(
  desired: readonly DesiredResource[],
  references: ReferenceRead,
): ConfigIssue[] {
  const denied = references.denied ?? {};
  return REFERENCE_LISTS.filter((l) => denied[l.name] !== undefined).map((list) => {
    const named = plural(referencedKeys(list.references(desired)).length, list.title);
    return {
      file: '',
      line: 0,
      col: 0,
      message: `references not checked: the token lacks ${denied[list.name]!} (403 listing the tenant's ${list.title.many}); the config's references to ${named} are unchecked`,
      code: 'REFERENCES_NOT_CHECKED',
    };
  });
}

/**
 * Prints the lists left unchecked (uncheckedLists: warnings, or errors
 * under `strict`) and the references `missing` (referenceIssues), then "N
 * errors.".
 */
export function reportReferences(
  checked: {
    desired: readonly DesiredResource[];
    references: ReferenceRead;
    strict: boolean;
    missing: readonly ConfigIssue[];
  },
  io: CommandIO,
): void {
  const { desired, references, strict } = checked;
  const unchecked = uncheckedLists(desired, references);
  const issues = [...(strict ? unchecked : []), ...checked.missing];
  if (!strict && unchecked.length > 0) reportWarnings(unchecked, io);
  if (issues.length > 0) reportIssues(issues, io);
}

/**
 * "Read 3 lists from the tenant in 5 requests." for the line before a
 * refreshed plan; with reference lists, which were read to check the config's references.
 */
export function readSummary(read: TenantRead): string {
  const n = read.reads.length;
  const lists = `${n} list${n === 1 ? '' : 's'}`;
  const requests = `${read.pages} request${read.pages === 1 ? '' : 's'}`;
  const names = Object.keys(read.references.items);
  if (names.length === 0) return `Read ${lists} from the tenant in ${requests}.`;
  return `Read ${lists} from the tenant, and its ${referenceTitles(names)} to check the config's references, in ${requests}.`;
}

/** "applications, actions and APIs": the titles of the reference lists named, in REFERENCE_LISTS order. */
export function referenceTitles(names: readonly string[]): string {
  return listed(REFERENCE_LISTS.filter((l) => names.includes(l.name)).map((l) => l.title.many));
}
