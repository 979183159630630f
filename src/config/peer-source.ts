/**
 * What reading a peer's files (a Terraform state, a Deploy CLI export) gives,
 * and what those readers share: a document whose values are read as data and
 * whose places are found only when something must be reported there, and the
 * checks every resource read from a peer goes through before export writes
 * it. Pure: the CLI reads the files and hands their text in.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Node } from 'yaml';
import {
  attributeProblems,
  formatAddress,
  idProblem,
  identityOf,
  kindOf,
  type Attributes,
  type Kind,
  type KindName,
  type LiveResource,
  type PeerReference,
  type SourcePosition,
} from '../resources/index.js';
import type { ConfigIssue } from './types.js';
import { YAML } from './yaml-lib.js';
import { indexDocument, issueAt, locate, valueOffset, type JsonPath } from './yaml-nodes.js';

/** One resource read from a peer, ready for export (attributes in tenantform's shape). */
export interface PeerFound extends LiveResource {
  /** How the peer names it: `auth0_rate_limit_policy.default`, `rate-limit-policies/default.json`. */
  origin: string;
  /** Attributes the peer names by something else (an Action by its name), to resolve before export, with where each is written. */
  references: (PeerReference & { at: SourcePosition })[];
}

/** Something in the peer's files that tenantform leaves alone, and why. */
export interface PeerSkip {
  what: string;
  /** The peer's type of it ('auth0_client'), to count many of one kind. */
  type: string;
  why: string;
}

/** What a peer's files hold: the resources, what was skipped, and every problem (nothing is usable when there is one). */
export interface PeerRead {
  resources: PeerFound[];
  skipped: PeerSkip[];
  issues: ConfigIssue[];
}

/** A problem found in a document, at a path of its data. */
interface Pending {
  path: JsonPath;
  message: string;
  code: string;
}

/**
 * A file's data, with the position of a path worked out on demand: JSON is
 * parsed with JSON.parse (a large state costs little), and only when there is
 * something to point at is it parsed again with positions.
 */
export class SourceDocument {
  private index: ReturnType<typeof indexDocument> | null = null;
  private root: Node | null = null;
  private readonly pending: Pending[] = [];

  private constructor(
    readonly file: string,
    private readonly text: string,
    readonly data: unknown,
  ) {}

  /** The document of a JSON text, or the issue saying why it is not JSON. */
  static json(text: string, file: string): SourceDocument | ConfigIssue {
    try {
      return new SourceDocument(file, text, JSON.parse(text) as unknown);
    } catch (err) {
      return jsonSyntaxIssue(text, file, err);
    }
  }

  /** The document of a YAML text (one document), or the issues saying why it cannot be read. */
  static yaml(text: string, file: string): SourceDocument | ConfigIssue {
    const lineCounter = new YAML.LineCounter();
    const doc = YAML.parseDocument(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: false,
      strict: true,
    });
    const index = indexDocument(doc, text, lineCounter, file);
    const problem = doc.errors[0];
    if (problem)
      return issueAt(index, problem.pos[0], `cannot parse YAML: ${problem.message}`, 'PEER_SYNTAX');
    const source = new SourceDocument(file, text, doc.toJS({ maxAliasCount: 100 }) as unknown);
    source.index = index;
    source.root = (doc.contents as Node | null) ?? null;
    return source;
  }

  /** Notes a problem at `path`. */
  report(path: JsonPath, message: string, code: string): void {
    this.pending.push({ path, message, code });
  }

  /** The line and column of `path` (its closest existing part). */
  position(path: JsonPath): SourcePosition {
    const index = this.positions();
    const issue = issueAt(index, valueOffset(locate(index, this.root, path), 0), '', '');
    return { file: this.file, line: issue.line, col: issue.col };
  }

  /** Every problem reported, at its place. */
  issues(): ConfigIssue[] {
    return this.pending.map((p) => ({ ...this.position(p.path), message: p.message, code: p.code }));
  }

  private positions(): ReturnType<typeof indexDocument> {
    if (!this.index) {
      const lineCounter = new YAML.LineCounter();
      const doc = YAML.parseDocument(this.text, { lineCounter, uniqueKeys: false, prettyErrors: false });
      this.index = indexDocument(doc, this.text, lineCounter, this.file);
      this.root = (doc.contents as Node | null) ?? null;
    }
    return this.index;
  }
}

/** "not JSON: …" at the line and column JSON.parse names (its position counted from the start otherwise). */
function jsonSyntaxIssue(text: string, file: string, err: unknown): ConfigIssue {
  const message = err instanceof Error ? err.message : String(err);
  const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /position (\d+)/.exec(message);
  let line = 1;
  let col = 1;
  if (lineCol) {
    line = Number(lineCol[1]);
    col = Number(lineCol[2]);
  } else if (position) {
    const before = text.slice(0, Number(position[1])).split('\n');
    line = before.length;
    col = before[before.length - 1]!.length + 1;
  }
  const reason = message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '');
  return { file, line, col, message: `not JSON: ${reason}`, code: 'PEER_SYNTAX' };
}

/** A plain object (not a list, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The resource of `kind` with these attributes and id, or the problems that
 * keep it out (reported at `path` in `doc`): attributes the config schema
 * refuses, an id not of the kind's form.
 */
export function checkedResource(
  doc: SourceDocument,
  path: JsonPath,
  found: { kind: KindName; id: string | null; attributes: Attributes; references?: PeerReference[] },
  origin: string,
): PeerFound | null {
  const kind: Kind = kindOf(found.kind);
  const identity = identityOf(kind, found.attributes);
  const unresolved = new Set((found.references ?? []).map((r) => r.attribute));
  // An attribute still to be resolved is checked once it is (resolveReferences).
  const problems = attributeProblems(kind, identity, withPlaceholders(found.attributes, unresolved), origin);
  const idWrong = idProblem(kind, found.id);
  if (idWrong) problems.push(`${origin}: ${idWrong}`);
  for (const problem of problems) doc.report(path, problem, 'PEER_INVALID');
  if (problems.length > 0) return null;
  return {
    kind: found.kind,
    address: formatAddress(found.kind, identity),
    identity,
    attributes: found.attributes,
    id: found.id,
    origin,
    references: (found.references ?? []).map((r) => ({ ...r, at: doc.position([...path, ...r.path]) })),
  };
}

/** Attributes with a placeholder the schema accepts for each one still to be resolved. */
function withPlaceholders(attributes: Attributes, unresolved: ReadonlySet<string>): Attributes {
  if (unresolved.size === 0) return attributes;
  const out = { ...attributes };
  for (const name of unresolved) out[name] = 'unresolved';
  return out;
}

/**
 * Gathers what a peer reader finds across one or more documents: resources
 * (checked), what it skips, and where each resource is, so that two of one
 * address can be reported there. The same resource twice (a permission that
 * two Terraform resources grant) is one; two different ones of one address
 * are a problem.
 */
export class PeerCollector {
  private readonly resources: PeerFound[] = [];
  private readonly skipped: PeerSkip[] = [];
  private readonly where = new Map<PeerFound, { doc: SourceDocument; path: JsonPath }>();
  private readonly docs = new Set<SourceDocument>();
  private readonly unread: ConfigIssue[] = [];

  /** Checks and keeps one resource found at `path` of `doc`. */
  add(
    doc: SourceDocument,
    path: JsonPath,
    found: Parameters<typeof checkedResource>[2],
    origin: string,
  ): void {
    this.docs.add(doc);
    const checked = checkedResource(doc, path, found, origin);
    if (!checked) return;
    this.resources.push(checked);
    this.where.set(checked, { doc, path });
  }

  skip(skip: PeerSkip): void {
    this.skipped.push(skip);
  }

  /** Notes a file that could not be read as a document at all. */
  unreadable(issue: ConfigIssue): void {
    this.unread.push(issue);
  }

  /** Notes a document read, for its problems. */
  read(doc: SourceDocument): void {
    this.docs.add(doc);
  }

  /** What was read: every problem, or the resources (one per address) when there is none. */
  finish(): PeerRead {
    const byAddress = new Map<string, PeerFound>();
    for (const resource of this.resources) {
      const first = byAddress.get(resource.address);
      if (!first) byAddress.set(resource.address, resource);
      else if (first.id !== resource.id || !isDeepStrictEqual(first.attributes, resource.attributes)) {
        const { doc, path } = this.where.get(resource)!;
        doc.report(
          path,
          `${resource.origin} and ${first.origin} are the same ${resource.address}`,
          'PEER_DUPLICATE',
        );
      }
    }
    const issues = [...this.unread, ...[...this.docs].flatMap((d) => d.issues())];
    return { resources: issues.length > 0 ? [] : [...byAddress.values()], skipped: this.skipped, issues };
  }
}
