/**
 * One file's text → its issues and resource candidates. Pure: no file system,
 * no environment; variables come from the context.
 *
 * A file may hold several YAML documents (separated by `---`); each is read
 * as its own config mapping and their lists are concatenated, as for files of
 * a directory. An empty document (or file) declares nothing and is valid.
 */
import type { Node, YAMLError } from 'yaml';
import { YAML } from './yaml-lib.js';
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
import { flowVariableOffsets, MAX_FLOW_DEPTH, tooDeepOffset } from './yaml-depth.js';

/** An issue at `offset` of a text that has no document index (it was never parsed). */
function issueAtOffset(
  text: string,
  file: string,
  offset: number,
  message: string,
  code: string,
): ConfigIssue {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { file, line: before.split('\n').length, col: offset - lineStart + 1, message, code };
}

const FLOW_VARIABLE =
  'an unquoted ${…} inside a { … } or [ … ] flow collection reads as the start of a nested mapping: ' +
  'write the mapping in block style (one key per line) to keep the value a number, or quote it ("${…}") for a string';

/**
 * The document's syntax problems as issues. Errors on a line where an unquoted
 * ${NAME} sits inside a flow collection become one issue saying so.
 */
function syntaxIssues(index: DocumentIndex, text: string, problems: YAMLError[]): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const explained = new Set<number>();
  for (const problem of problems) {
    const variables = problem instanceof YAML.YAMLWarning ? [] : flowVariableOffsets(text, problem.pos[0]);
    if (variables.length === 0) out.push(yamlIssue(index, problem));
    for (const at of variables) {
      if (explained.has(at)) continue;
      explained.add(at);
      out.push(issueAt(index, at, FLOW_VARIABLE, 'YAML_FLOW_VARIABLE'));
    }
  }
  return out;
}

function yamlIssue(index: DocumentIndex, error: YAMLError): ConfigIssue {
  const warning = error instanceof YAML.YAMLWarning;
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
      const resources = collectFromValue(fast.value, (_path, list, index) => {
        const at = fast.itemPositions.get(list)?.[index];
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
  const lineCounter = new YAML.LineCounter();
  const issues: ConfigIssue[] = [];
  const resources: DesiredResource[] = [];
  const deep = tooDeepOffset(text);
  if (deep !== -1) {
    // The same words as the converter's depth check, which catches deep block nesting.
    const message = `nested more than ${MAX_FLOW_DEPTH} levels deep`;
    return { file, issues: [issueAtOffset(text, file, deep, message, 'YAML_TOO_DEEP')], resources };
  }
  let documents;
  try {
    documents = YAML.parseAllDocuments(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: false,
      strict: true,
    });
  } catch (err) {
    const reason =
      err instanceof RangeError ? 'nested too deeply' : err instanceof Error ? err.message : String(err);
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
      issues.push(...syntaxIssues(index, text, problems));
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
    // A document with no content (`---` alone) is empty, like an empty file.
    const contents = (doc.contents as Node | null) ?? null;
    const root = YAML.isScalar(contents) && contents.value === null ? null : contents;
    const conversion = convertDocument(index, root, lookup, limits);
    issues.push(...conversion.issues, ...schemaIssues(index, root, conversion));
    resources.push(...collectResources(index, root, conversion.value));
  }
  return { file, issues: issues.sort(compareIssues), resources };
}
