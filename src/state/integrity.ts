/**
 * Whether the records of a state can be trusted to act on, beyond their
 * shape (validate.ts): each record's attributes name the identity of its
 * address and pass its kind's config schema, its id has its kind's form, and
 * no id is recorded for two resources of one kind (a delete sent for one
 * would remove the other). Checked on every read of the state (stored
 * document, journal, rescue files) by the session layer; `state list`, `show`
 * and `rm` read without it, so that a bad record can be seen and removed.
 */
import {
  attributeProblems,
  configSchemaPasses,
  idProblem,
  kindOf,
  type RecordedResource,
} from '../resources/index.js';
import { StateError } from './errors.js';

/** One untrustworthy record: its address and what is wrong with it. */
export interface RecordIssue {
  address: string;
  problem: string;
}

/**
 * What is wrong with one record on its own (identity, attributes, id).
 * `schemaPassed`: its attributes are known to pass the config schema.
 */
export function recordProblems(record: RecordedResource, schemaPassed = false): string[] {
  const kind = kindOf(record.kind);
  const problems = attributeProblems(kind, record.identity, record.attributes, 'attributes', schemaPassed);
  const id = idProblem(kind, record.id);
  if (id !== null) problems.push(id);
  return problems;
}

/** The kinds whose records' attributes all pass the config schema, checked in one go per kind. */
function kindsPassingSchema(resources: readonly RecordedResource[]): Set<string> {
  const byKind = new Map<RecordedResource['kind'], RecordedResource['attributes'][]>();
  for (const record of resources) {
    const list = byKind.get(record.kind);
    if (list) list.push(record.attributes);
    else byKind.set(record.kind, [record.attributes]);
  }
  const passed = new Set<string>();
  for (const [name, list] of byKind) if (configSchemaPasses(kindOf(name), list)) passed.add(name);
  return passed;
}

/** Every problem of `resources`: each record's own, and ids recorded for two resources of one kind. */
export function recordIssues(resources: readonly RecordedResource[]): RecordIssue[] {
  const issues: RecordIssue[] = [];
  // The address each id is recorded for, per kind: keyed by the record's own id string, no key made per record.
  const owners = new Map<RecordedResource['kind'], Map<string, string>>();
  const passed = kindsPassingSchema(resources);
  for (const record of resources) {
    for (const problem of recordProblems(record, passed.has(record.kind)))
      issues.push({ address: record.address, problem });
    if (record.id === null) continue;
    let ofKind = owners.get(record.kind);
    if (!ofKind) owners.set(record.kind, (ofKind = new Map()));
    const owner = ofKind.get(record.id);
    if (owner === undefined) ofKind.set(record.id, record.address);
    else issues.push({ address: record.address, problem: `id "${record.id}" is also recorded for ${owner}` });
  }
  return issues;
}

const MAX_LISTED = 10;

/** The advice every refusal of bad records ends with. */
export function badRecordAdvice(): string {
  return (
    'Look at a record with tenantform state show ADDRESS [PATH]; remove it from the state with ' +
    "tenantform state rm 'ADDRESS' [PATH] (the resource stays on the tenant; tenantform import gives a " +
    'removed policy or profile its id back), or restore the previous state (state.json.backup, or the ' +
    "pg backend's state_history)."
  );
}

/** The refusal for `issues` found in `where`, naming each bad record. */
export function badRecordsError(where: string, issues: readonly RecordIssue[]): StateError {
  const lines = issues.slice(0, MAX_LISTED).map((i) => `  ${i.address}: ${i.problem}`);
  if (issues.length > MAX_LISTED) lines.push(`  … and ${issues.length - MAX_LISTED} more`);
  const records = new Set(issues.map((i) => i.address)).size;
  return new StateError(
    'STATE_CORRUPT',
    `${where} has ${records} record${records === 1 ? '' : 's'} tenantform cannot act on; nothing was sent or changed:\n` +
      `${lines.join('\n')}\n${badRecordAdvice()}`,
  );
}

/** Throws badRecordsError when any record of `resources` is bad. */
export function checkRecords(resources: readonly RecordedResource[], where: string): void {
  const issues = recordIssues(resources);
  if (issues.length > 0) throw badRecordsError(where, issues);
}
