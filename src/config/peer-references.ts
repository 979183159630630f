/**
 * Attributes a peer names by something else (the Deploy CLI names a
 * profile's Action by its name; the API takes its id), resolved before export
 * writes anything: from ids the user gives (`--action-id NAME=ID`), else from
 * the tenant's list (API profile full, read by the CLI and handed in as
 * data), else (API profile spec, which has no read) said plainly, one problem
 * per reference. Pure.
 */
import {
  attributeProblems,
  joined,
  kindOf,
  plainText,
  setting,
  words,
  type PeerReference,
  type Setting,
  type Wording,
} from '../resources/index.js';
import type { PeerFound, PeerRead } from './peer-source.js';
import type { ConfigIssue } from './types.js';

/** An item of a list a reference is looked up in: its id and its name on the tenant. */
export interface NamedItem {
  key: string;
  name?: string;
}

/** What a reference can be resolved with. */
export interface ReferenceSources {
  /** Ids the user gave, by list, then by name. */
  given: Readonly<Record<PeerReference['list'], ReadonlyMap<string, string>>>;
  /** The tenant's items, by list (only those a reference may name); null when the tenant cannot be read (spec). */
  lists: Readonly<Record<PeerReference['list'], readonly NamedItem[]>> | null;
}

/** How messages name a list's items and the setting that gives one's id. */
const WORDS: Record<PeerReference['list'], { noun: string; given: Setting; where: string }> = {
  actions: {
    noun: 'Action',
    given: 'actionId',
    where: 'deployed Action of that name bound to the custom-token-exchange trigger',
  },
};

/** The id `ref` names, or why it cannot be found. */
function lookUp(ref: PeerReference, sources: ReferenceSources): { id: string } | { problem: Wording } {
  const given = sources.given[ref.list].get(ref.name);
  if (given !== undefined) return { id: given };
  const { noun, where } = WORDS[ref.list];
  const pass = words`pass ${setting(WORDS[ref.list].given)} '${ref.name}=<id>'`;
  if (sources.lists === null) {
    return {
      problem: joined(
        `names its ${noun} "${ref.name}" by name, and the spec API profile cannot look ${noun} ids up: `,
        pass,
        words`, or read them from the tenant with ${setting('api')} full`,
      ),
    };
  }
  const matches = sources.lists[ref.list].filter((item) => item.name === ref.name);
  if (matches.length === 1) return { id: matches[0]!.key };
  if (matches.length === 0) {
    return {
      problem: joined(
        `names the ${noun} "${ref.name}", and the tenant has no ${where}: deploy it, or `,
        pass,
      ),
    };
  }
  const keys = matches.map((m) => m.key).join(', ');
  return {
    problem: joined(
      `names the ${noun} "${ref.name}", and ${matches.length} on the tenant have that name (${keys}): `,
      pass,
    ),
  };
}

/** `found` with its references resolved, or the problems in the way. */
function resolved(found: PeerFound, sources: ReferenceSources): PeerFound | ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const attributes = { ...found.attributes };
  for (const ref of found.references) {
    const result = lookUp(ref, sources);
    const at = { file: ref.at.file, line: ref.at.line, col: ref.at.col };
    if ('problem' in result) {
      const wording = joined(`${found.origin} `, result.problem);
      issues.push({ ...at, message: plainText(wording), code: 'PEER_UNRESOLVED', wording });
    } else attributes[ref.attribute] = result.id;
  }
  if (issues.length > 0) return issues;
  const [first] = found.references;
  for (const problem of attributeProblems(kindOf(found.kind), found.identity, attributes, found.origin)) {
    issues.push({
      file: first!.at.file,
      line: first!.at.line,
      col: first!.at.col,
      message: problem,
      code: 'PEER_INVALID',
    });
  }
  return issues.length > 0 ? issues : { ...found, attributes, references: [] };
}

/** The names the resources of `read` still refer to, per list (what the tenant must be asked for). */
export function unresolvedNames(read: PeerRead, sources: Pick<ReferenceSources, 'given'>): Set<string> {
  return new Set(
    read.resources.flatMap((r) =>
      r.references
        .filter((ref) => !sources.given[ref.list].has(ref.name))
        .map((ref) => `${ref.list}:${ref.name}`),
    ),
  );
}

/** `read` with every reference resolved, or its problems (and no resource) when one cannot be. */
export function resolveReferences(read: PeerRead, sources: ReferenceSources): PeerRead {
  const resources: PeerFound[] = [];
  const issues: ConfigIssue[] = [];
  for (const found of read.resources) {
    if (found.references.length === 0) {
      resources.push(found);
      continue;
    }
    const result = resolved(found, sources);
    if (Array.isArray(result)) issues.push(...result);
    else resources.push(result);
  }
  return issues.length > 0 ? { resources: [], skipped: read.skipped, issues } : { ...read, resources };
}
