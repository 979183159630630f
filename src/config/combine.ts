/**
 * Checks across files (duplicate identities), counts, and the final shape of
 * a load: issues sorted by file, line and column.
 */
import { kindOf, KINDS, type DesiredResource } from '../resources/index.js';
import type { ConfigCounts, ConfigIssue, LoadResult, ParsedFile } from './types.js';

export function compareIssues(a: ConfigIssue, b: ConfigIssue): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if (a.col !== b.col) return a.col - b.col;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

function where(resource: DesiredResource): string {
  const s = resource.source;
  return s ? `${s.file}:${s.line}:${s.col}` : 'another place';
}

function duplicateMessage(resource: DesiredResource, first: DesiredResource): string {
  return `duplicate ${kindOf(resource.kind).describe(resource.identity)}: also declared at ${where(first)}`;
}

/** One issue per resource whose identity an earlier resource already has (the API would answer 409, or the item is redundant). */
export function duplicateIssues(resources: readonly DesiredResource[]): ConfigIssue[] {
  const firstByAddress = new Map<string, DesiredResource>();
  const issues: ConfigIssue[] = [];
  for (const resource of resources) {
    const first = firstByAddress.get(resource.address);
    if (!first) {
      firstByAddress.set(resource.address, resource);
      continue;
    }
    const s = resource.source ?? { file: '', line: 0, col: 0 };
    issues.push({
      file: s.file,
      line: s.line,
      col: s.col,
      message: duplicateMessage(resource, first),
      code: 'DUPLICATE_RESOURCE',
    });
  }
  return issues;
}

/**
 * How many resources of each kind the config declares (by the kind's config
 * key), in KINDS order; after a grouped kind, how many owners its entries name
 * (user permissions: `users`).
 */
export function countResources(resources: readonly DesiredResource[], files: number): ConfigCounts {
  // Keyed by the kinds' declarations; registered kinds add keys the type does not list.
  const counts: Record<string, number> = { files };
  for (const kind of KINDS) {
    const mine = resources.filter((r) => r.kind === kind.name);
    counts[kind.config.key] = mine.length;
    const group = kind.config.group;
    if (group) counts[group.owner.many] = new Set(mine.map((r) => String(r.attributes[group.by]))).size;
  }
  return counts as ConfigCounts;
}

/**
 * Joins parsed files into a load result. `otherIssues` are problems found
 * before parsing (missing paths, variable files); `files` the files read.
 */
export function combineParsedFiles(
  parsed: readonly ParsedFile[],
  otherIssues: readonly ConfigIssue[] = [],
  files: readonly string[] = parsed.map((p) => p.file),
): LoadResult {
  const resources = parsed.flatMap((p) => p.resources);
  const issues = [...otherIssues, ...parsed.flatMap((p) => p.issues), ...duplicateIssues(resources)].sort(
    compareIssues,
  );
  return {
    desired: issues.length === 0 ? resources : [],
    issues,
    files: [...files],
    counts: countResources(resources, files.length),
  };
}
