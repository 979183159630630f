/**
 * One file's text → its issues and resource candidates. Pure: no file system,
 * no environment; variables come from the context.
 *
 * A file may hold several YAML documents (separated by `---`); each is read
 * as its own config mapping and their lists are concatenated, as for files of
 * a directory. An empty document (or file) declares nothing and is valid.
 */
import { LineCounter, parseAllDocuments, YAMLWarning, type Node, type YAMLError } from 'yaml';
import type { DesiredResource } from '../resources/index.js';
import { DEFAULT_LIMITS, type ConfigIssue, type ParseContext, type ParsedFile } from './types.js';
import { lookupFromRecord } from './variables.js';
import { convertDocument } from './yaml-convert.js';
import { issueAt, indexDocument, type DocumentIndex } from './yaml-nodes.js';
import { schemaIssues } from './schema-check.js';
import { collectFromValue, collectResources } from './resources.js';
import { parseFastYaml } from './fast-yaml.js';
import { matchesSchema } from '../schemas/index.js';
import { compareIssues } from './combine.js';

function yamlIssue(index: DocumentIndex, error: YAMLError): ConfigIssue {
  const warning = error instanceof YAMLWarning;
  const message = warning ? `unsupported YAML: ${error.message}` : `YAML syntax error: ${error.message}`;
  return issueAt(index, error.pos[0], message, warning ? 'YAML_UNSUPPORTED' : 'YAML_SYNTAX');
}

/** Parses and checks one file's text; `file` is the name used in issues and sources. */
export function parseConfigText(text: string, file: string, ctx: ParseContext = {}): ParsedFile {
  const fast = parseFastYaml(text);
  if (fast) {
    // The common case, several times faster than the full parser. Anything to
    // report (schema issues included) is left to the full path below, which
    // points at exact positions; a valid file gives the same resources either way.
    if (fast.value === null) return { file, issues: [], resources: [] };
    if (matchesSchema('config', fast.value)) {
      const resources = collectFromValue(fast.value, (path) => {
        const list = path
          .slice(0, -1)
          .reduce<unknown>((v, step) => (v as Record<string, unknown>)[step], fast.value);
        const at = fast.itemPositions.get(list as unknown[])?.[path[path.length - 1] as number];
        return { file, line: at?.line ?? 1, col: at?.col ?? 1 };
      });
      return { file, issues: [], resources };
    }
  }
  return parseWithYaml(text, file, ctx);
}

/** The full path: the YAML library's parser, with every problem at its position. */
export function parseWithYaml(text: string, file: string, ctx: ParseContext = {}): ParsedFile {
  const limits = { ...DEFAULT_LIMITS, ...ctx.limits };
  const lookup = typeof ctx.vars === 'function' ? ctx.vars : lookupFromRecord(ctx.vars ?? {});
  const lineCounter = new LineCounter();
  const issues: ConfigIssue[] = [];
  const resources: DesiredResource[] = [];
  let documents;
  try {
    documents = parseAllDocuments(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: false,
      strict: true,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      file,
      issues: [{ file, line: 1, col: 1, message: `cannot parse YAML: ${reason}`, code: 'YAML_SYNTAX' }],
      resources,
    };
  }
  for (const doc of documents) {
    const index = indexDocument(doc, text, lineCounter, file);
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) {
      // Later checks on a document that did not parse cleanly would mostly echo the syntax error.
      for (const problem of problems) issues.push(yamlIssue(index, problem));
      continue;
    }
    if (index.aliases.length > limits.maxAliases) {
      const first = index.aliases[limits.maxAliases]!;
      issues.push(
        issueAt(
          index,
          first.range?.[0] ?? 0,
          `too many aliases: this document has ${index.aliases.length}, at most ${limits.maxAliases} are allowed; write the values out instead`,
          'YAML_ALIAS_LIMIT',
        ),
      );
      continue;
    }
    const root = (doc.contents as Node | null) ?? null;
    const conversion = convertDocument(index, root, lookup, limits);
    issues.push(...conversion.issues, ...schemaIssues(index, root, conversion));
    resources.push(...collectResources(index, root, conversion.value));
  }
  return { file, issues: issues.sort(compareIssues), resources };
}
