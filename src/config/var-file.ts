/**
 * --var-file FILE: a YAML mapping of NAME: value. Values are used as text:
 * strings as they are, numbers and true/false as written in the file, an empty
 * value as the empty string. Lists and mappings are refused.
 */
import type { Node } from 'yaml';
import { YAML } from './yaml-lib.js';
import type { ConfigIssue, ConfigLimits } from './types.js';
import { VARIABLE_NAME } from './variables.js';
import { indexDocument, issueAt, keyString, nodeOffset, resolveAlias } from './yaml-nodes.js';
import { fileIssue, readTextFile } from './source-files.js';

export interface VarFileResult {
  vars: Record<string, string>;
  issues: ConfigIssue[];
}

/** Reads the variables in a var file's text; `file` names it in issues. */
export function parseVarFileText(text: string, file: string): VarFileResult {
  const lineCounter = new YAML.LineCounter();
  const documents = YAML.parseAllDocuments(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
  });
  const vars = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  documents.forEach((doc, n) => {
    const index = indexDocument(doc, text, lineCounter, file);
    for (const error of [...doc.errors, ...doc.warnings]) {
      issues.push(issueAt(index, error.pos[0], `YAML syntax error: ${error.message}`, 'VAR_FILE_INVALID'));
    }
    if (doc.errors.length > 0 || doc.warnings.length > 0) return;
    const root = (doc.contents as Node | null) ?? null;
    if (n > 0 && root) {
      issues.push(
        issueAt(index, nodeOffset(root, 0), 'a variable file holds one YAML document', 'VAR_FILE_INVALID'),
      );
      return;
    }
    if (root === null) return;
    if (!YAML.isMap(root)) {
      issues.push(
        issueAt(
          index,
          nodeOffset(root, 0),
          'a variable file must be a mapping of NAME: value',
          'VAR_FILE_INVALID',
        ),
      );
      return;
    }
    for (const pair of root.items) {
      const name = keyString(index, pair.key);
      const keyAt = nodeOffset(pair.key as Node, 0);
      if (name === undefined || !VARIABLE_NAME.test(name)) {
        const shown = name === undefined ? 'this key' : `"${name}"`;
        issues.push(
          issueAt(
            index,
            keyAt,
            `${shown} is not a variable name: use letters, digits and _, not starting with a digit`,
            'VAR_FILE_INVALID',
          ),
        );
        continue;
      }
      const value = resolveAlias(index, (pair.value as Node | null) ?? null);
      if (value === null || (YAML.isScalar(value) && value.value === null)) {
        vars.set(name, '');
      } else if (YAML.isScalar(value) && typeof value.value === 'string') {
        vars.set(name, value.value);
      } else if (
        YAML.isScalar(value) &&
        value.range &&
        (typeof value.value === 'number' || typeof value.value === 'boolean')
      ) {
        vars.set(name, text.slice(value.range[0], value.range[1]));
      } else {
        const at = nodeOffset((pair.value as Node | null) ?? (pair.key as Node), keyAt);
        issues.push(
          issueAt(
            index,
            at,
            `variable ${name} must be a single value (text, a number or true/false)`,
            'VAR_FILE_INVALID',
          ),
        );
      }
    }
  });
  return { vars: Object.fromEntries(vars), issues };
}

/** Reads one --var-file; a missing or unreadable file is an issue, not an exception. */
export async function readVarFile(abs: string, shown: string, limits: ConfigLimits): Promise<VarFileResult> {
  const read = await readTextFile(abs, shown, limits);
  if ('issue' in read) {
    const { message, code } = read.issue;
    const issue =
      code === 'FILE_UNREADABLE'
        ? fileIssue(shown, message.replace(/^cannot read/, 'cannot read variable file'), 'VAR_FILE_NOT_FOUND')
        : read.issue;
    return { vars: {}, issues: [issue] };
  }
  return parseVarFileText(read.text, shown);
}
