/**
 * Checks across files (duplicate identities), counts, and the final shape of
 * a load: issues sorted by file, line and column.
 */
import type { DesiredResource } from '../resources/index.js';
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
  const [a, b, c] = resource.identity;
  switch (resource.kind) {
    case 'rate_limit_policy':
      return `duplicate rate limit policy ${resource.identity.join('/')}: also declared at ${where(first)}`;
    case 'user_permission':
      return `duplicate permission ${c} on ${b} for user ${a}: also declared at ${where(first)}`;
    case 'token_exchange_profile':
      return `duplicate token exchange profile for subject_token_type ${a}: also declared at ${where(first)}`;
  }
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

export function countResources(resources: readonly DesiredResource[], files: number): ConfigCounts {
  const counts: ConfigCounts = {
    files,
    rate_limit_policies: 0,
    user_permissions: 0,
    users: 0,
    token_exchange_profiles: 0,
  };
  const users = new Set<string>();
  for (const r of resources) {
    if (r.kind === 'rate_limit_policy') counts.rate_limit_policies += 1;
    else if (r.kind === 'token_exchange_profile') counts.token_exchange_profiles += 1;
    else {
      counts.user_permissions += 1;
      users.add(r.identity[0]!);
    }
  }
  counts.users = users.size;
  return counts;
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
