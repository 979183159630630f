import type { ApiProfile } from '../resources/index.js';
import { joined, plainName, setting, words, type SettingNames, type Wording } from '../resources/settings.js';
import { checkSchema, jsonSyntaxProblem } from '../schemas/index.js';
import { describeStateLocation, type StateDocument, type StateLocation } from '../state/types.js';
import { PlanError } from './errors.js';
import { planProblems } from './plan-check.js';
import { planToJson } from './render-json.js';
import { checkSeal, readSeal, sealOf, SEAL_ALGORITHM, type PlanSeal } from './plan-seal.js';
import { savedReason } from './planner.js';
import { PLAN_FORMAT_VERSION, UNSEALED_PLAN_VERSIONS, type Plan } from './types.js';

const OUT = setting('out');
const FORMAT = setting('format');
const API = setting('api');

/**
 * Saved plans (`tenantform plan --out FILE`). The file is the JSON plan of
 * `--format json` with more top-level fields: created_at, tool_version,
 * config_paths, state_location and target (flat, one schema for both:
 * schemas/plan.schema.json). It holds config attributes and recorded ids
 * only, never credentials. Apply trusts nothing in it but the desired
 * attributes, and checks those (see plan-verify.ts).
 */

export interface PlanFileMeta {
  /** ISO time the plan was made; the caller owns the clock. */
  createdAt: string;
  toolVersion: string;
  /** All config paths given to plan, as given (for people). */
  configPaths?: string[];
  /** Where the state the plan was made from lives. */
  stateLocation: StateLocation;
  /** The API base URL known at plan time, or null. */
  target: string | null;
}

/** A plan read back from a file, with what the file says about its making. */
export interface SavedPlan {
  plan: Plan;
  createdAt: string | null;
  toolVersion: string | null;
  configPaths: string[];
  /** Where the state the plan was made from lives; apply uses no other. */
  stateLocation: StateLocation;
  /** The API base URL known at plan time; apply refuses another, and takes it from no file alone. null when none was known. */
  target: string | null;
}

/**
 * The text of a plan file (pretty JSON, ending in a newline), sealed with
 * `key`, the plan key of the state at `meta.stateLocation` (see plan-seal.ts).
 */
export function serializePlan(
  plan: Plan,
  meta: PlanFileMeta,
  key: Uint8Array,
  names: SettingNames = plainName,
): string {
  const json = planToJson(
    plan,
    {
      created_at: meta.createdAt,
      tool_version: meta.toolVersion,
      config_paths: meta.configPaths,
      state_location: meta.stateLocation,
      target: meta.target,
    },
    names,
  );
  // Sealed as a reader will see it: after a JSON round trip (undefined fields gone).
  const record = JSON.parse(JSON.stringify(json)) as Record<string, unknown>;
  return JSON.stringify({ ...record, seal: sealOf(record, key) }, null, 2) + '\n';
}

const MAX_LISTED = 10;

function listProblems(fileName: string, problems: readonly string[]): Wording {
  const listed = problems.slice(0, MAX_LISTED).map((p) => `  ${p}`);
  if (problems.length > MAX_LISTED) listed.push(`  … and ${problems.length - MAX_LISTED} more`);
  return words`${fileName} is not a valid tenantform plan:\n${listed.join('\n')}\nMake the plan again with tenantform plan ${OUT}.`;
}

function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

/**
 * A plan file opened but not yet trusted: its JSON, the seal it carries, and
 * the state it names, whose plan key decides whether the seal holds. Nothing
 * in it may be acted on before readPlanFile checked the seal.
 */
export interface PlanEnvelope {
  fileName: string;
  record: Record<string, unknown>;
  seal: PlanSeal;
  /** Where the state (and so the plan key) the file names lives: confirmed only by the seal. */
  stateLocation: StateLocation;
}

function parseJson(text: string, fileName: string): Record<string, unknown> {
  let data: unknown;
  try {
    // A byte order mark (some editors on Windows add one) is not part of the plan: the seal is over its fields.
    data = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    const detail = jsonSyntaxProblem(text, err);
    throw new PlanError(
      `${fileName} is not a tenantform plan: it is not valid JSON (${detail})`,
      'PLAN_INVALID',
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('format_version' in data)) {
    throw new PlanError(`${fileName} is not a tenantform plan: it has no format_version`, 'PLAN_INVALID');
  }
  return data as Record<string, unknown>;
}

/** Refuses a format version other than this build's: older ones were not sealed. */
function checkVersion(record: Record<string, unknown>, fileName: string): void {
  if (record.format_version === PLAN_FORMAT_VERSION) return;
  const made = typeof record.tool_version === 'string' ? ` (made by tenantform ${record.tool_version})` : '';
  if (UNSEALED_PLAN_VERSIONS.includes(record.format_version as number)) {
    throw new PlanError(
      words`${fileName} has plan format version ${String(record.format_version)}${made}, from before saved plans were sealed: nothing shows it was not edited since, so apply and show take it no more. Make the plan again with this tenantform (tenantform plan ${OUT}).`,
      'PLAN_UNSEALED',
    );
  }
  throw new PlanError(
    `${fileName} has plan format version ${JSON.stringify(record.format_version)}${made}, but this tenantform ` +
      `reads format version ${PLAN_FORMAT_VERSION} only; make the plan again with this tenantform`,
    'PLAN_UNKNOWN_VERSION',
  );
}

/** The file's state_location, checked against its schema (no other field is looked at yet). */
function stateLocationOf(record: Record<string, unknown>, fileName: string): StateLocation {
  const location = record.state_location;
  if (location === undefined || location === null) {
    throw new PlanError(
      words`${fileName} does not say which state it was made from (it has no state_location: plan ${FORMAT} json output is not a saved plan); save the plan with tenantform plan ${OUT} FILE`,
      'PLAN_INVALID',
    );
  }
  const issues = checkSchema('plan', { format_version: PLAN_FORMAT_VERSION, state_location: location });
  const own = issues.filter((i) => i.path[0] === 'state_location' || i.keyword === 'oneOf');
  if (own.length > 0) {
    throw new PlanError(
      listProblems(fileName, ['state_location: is not a file or pg state location']),
      'PLAN_INVALID',
    );
  }
  return location as StateLocation;
}

/**
 * Opens a plan file's text: JSON, this build's format version, a seal, and
 * the state location whose plan key checks the seal. Throws PlanError:
 * PLAN_INVALID (not a plan, no state location), PLAN_UNSEALED (no seal, or a
 * format version from before seals), PLAN_UNKNOWN_VERSION. `fileName` only
 * names the file in messages.
 */
export function openPlanFile(text: string, fileName: string): PlanEnvelope {
  const record = parseJson(text, fileName);
  checkVersion(record, fileName);
  const seal = readSeal(record.seal);
  if (seal === null) {
    throw new PlanError(
      record.seal === undefined
        ? words`${fileName} has no seal, so nothing shows it is what tenantform plan ${OUT} wrote (plan ${FORMAT} json output is not a saved plan); save the plan with tenantform plan ${OUT} FILE`
        : words`${fileName} has a seal that is not one tenantform writes ({algorithm: "${SEAL_ALGORITHM}", key, mac}); make the plan again with tenantform plan ${OUT}`,
      'PLAN_UNSEALED',
    );
  }
  return { fileName, record, seal, stateLocation: stateLocationOf(record, fileName) };
}

/**
 * Reads an opened plan file, checking its seal before anything else with
 * `key`, the plan key of the state it names (null when that state has none;
 * `keyWhere` says where it is kept). Throws PlanError PLAN_KEY_MISSING,
 * PLAN_TAMPERED (see plan-seal.ts), or PLAN_INVALID for a sealed file that is
 * still not a consistent plan.
 */
export function readPlanFile(envelope: PlanEnvelope, key: Uint8Array | null, keyWhere: string): SavedPlan {
  const { fileName, record } = envelope;
  if (key === null) {
    throw new PlanError(
      words`${fileName} cannot be verified: the state it names has no plan key (${keyWhere}). tenantform plan ${OUT} makes one beside the state; deleting it, or moving the state without it, retires every plan saved before. Nothing was sent; make the plan again with tenantform plan ${OUT}.`,
      'PLAN_KEY_MISSING',
    );
  }
  checkSeal(record, envelope.seal, key, fileName, keyWhere);
  const issues = checkSchema('plan', record);
  if (issues.length > 0) {
    throw new PlanError(
      listProblems(
        fileName,
        issues.map((issue) => {
          // messages name their field; show where that field sits
          const where = issue.keyword === 'required' ? issue.path : issue.path.slice(0, -1);
          return `${formatPath(where) || '(top level)'}: ${issue.message}`;
        }),
      ),
      'PLAN_INVALID',
    );
  }
  if (record.api === undefined) {
    throw new PlanError(
      listProblems(fileName, ['(top level): missing required property "api"']),
      'PLAN_INVALID',
    );
  }
  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    api: record.api as Plan['api'],
    state: record.state as Plan['state'],
    ...(record.targets ? { targets: record.targets as string[] } : {}),
    ...(record.destroy === true ? { destroy: true as const } : {}),
    changes: record.changes as Plan['changes'],
    summary: record.summary as Plan['summary'],
    ...(record.findings ? { findings: record.findings as Plan['findings'] } : {}),
    ...(record.names ? { names: record.names as Plan['names'] } : {}),
  };
  const problems = planProblems(plan);
  if (problems.length > 0) throw new PlanError(listProblems(fileName, problems), 'PLAN_INVALID');
  return {
    plan: {
      ...plan,
      changes: plan.changes.map((change) => ({ ...change, reason: savedReason(change, plan) })),
    },
    createdAt: (record.created_at as string | undefined) ?? null,
    toolVersion: (record.tool_version as string | undefined) ?? null,
    configPaths: (record.config_paths as string[] | undefined) ?? [],
    stateLocation: envelope.stateLocation,
    target: (record.target as string | null | undefined) ?? null,
  };
}

/** Opens, verifies with `key` and reads a plan file's text, and returns just the plan (see readPlanFile). */
export function parsePlanFile(text: string, fileName: string, key: Uint8Array): Plan {
  return readPlanFile(openPlanFile(text, fileName), key, 'the given key').plan;
}

function describeState(lineage: string | null, serial: number): string {
  return lineage === null ? 'no state' : `state serial ${serial} (lineage ${lineage})`;
}

/**
 * Refuses a saved plan whose state has moved on: throws PlanError PLAN_STALE
 * when the current state's lineage or serial differ from those the plan was made from.
 */
export function checkPlanIsCurrent(plan: Plan, doc: StateDocument | null): void {
  const lineage = doc?.lineage ?? null;
  const serial = doc?.serial ?? 0;
  const made = plan.state;
  if (made.lineage === lineage && made.serial === serial) return;
  const from = `the plan was made from ${describeState(made.lineage, made.serial)}`;
  let now: string | Wording;
  if (lineage === null) now = words`no state exists now (check ${setting('state')} and the backend settings)`;
  else if (made.lineage === null) now = `a state exists now (serial ${serial}, lineage ${lineage})`;
  else if (made.lineage !== lineage)
    now = `the state now has lineage ${lineage} (serial ${serial}): it is a different state`;
  else now = `the state is now at serial ${serial}`;
  throw new PlanError(joined(`${from} but `, now, '; run tenantform plan again'), 'PLAN_STALE');
}

function sameLocation(a: StateLocation, b: StateLocation): boolean {
  if (a.backend === 'file') return b.backend === 'file' && a.path === b.path;
  return b.backend === 'pg' && a.server === b.server && a.schema === b.schema && a.workspace === b.workspace;
}

/**
 * Refuses to apply a saved plan to another state than it was made from:
 * throws PlanError PLAN_OTHER_STATE naming both locations. File paths are
 * compared as given: the caller resolves them to absolute paths.
 */
/** The settings that name `location`, for a message. */
function stateSettings(location: StateLocation): Wording {
  return location.backend === 'file'
    ? words`${setting('state')} ${location.path}`
    : words`${setting('backend')} pg ${setting('workspace')} ${location.workspace} ${setting('backendConfig')} schema=${location.schema}`;
}

export function checkPlanLocation(
  saved: Pick<SavedPlan, 'stateLocation'>,
  location: StateLocation,
  fileName: string,
): void {
  if (sameLocation(saved.stateLocation, location)) return;
  throw new PlanError(
    joined(
      words`${fileName} was made from the state at ${describeStateLocation(saved.stateLocation)}, but this apply would use ${describeStateLocation(location)}: a saved plan is applied only to the state the command names (${setting('state')}, ${setting('backend')}, ${setting('workspace')}), its ${setting('env')} environment names, or the default one of the current directory. If that state is the one, name it (`,
      stateSettings(saved.stateLocation),
      '); else make the plan again',
    ),
    'PLAN_OTHER_STATE',
  );
}

/**
 * Refuses to apply a saved plan under another API profile than the one it
 * was made for: throws PlanError PLAN_OTHER_PROFILE naming both. A spec plan
 * would forget what full deletes; a full plan would send operations a spec
 * tenant does not have.
 */
export function checkPlanProfile(saved: SavedPlan, api: ApiProfile, fileName: string): void {
  if (saved.plan.api === api) return;
  throw new PlanError(
    words`${fileName} was made for API profile ${saved.plan.api}, but this apply uses API profile ${api}; apply it with ${API} ${saved.plan.api} (or without ${API}), or make the plan again with ${API} ${api}`,
    'PLAN_OTHER_PROFILE',
  );
}

/**
 * Refuses to apply a saved plan to another API than the one it was made for,
 * or to one no flag, environment variable or tenantform.yaml environment
 * confirms: a target is never taken from a file alone, since credentials go
 * to it. `given` is the target the command line and environment name (null:
 * none). Throws PlanError PLAN_OTHER_TARGET or PLAN_TARGET_UNCONFIRMED. A
 * plan saved without a known target (null) accepts the one given.
 */
export function checkPlanTarget(saved: SavedPlan, given: string | null, fileName: string): void {
  if (saved.target === null || saved.target === given) return;
  if (given === null) {
    throw new PlanError(
      words`${fileName} was made for the API at ${saved.target}, but nothing on this command line or in its environment names that target, and apply sends credentials only to a target you name: pass ${setting('baseUrl')} ${saved.target} (or ${setting('domain')}), set TENANTFORM_BASE_URL or TENANTFORM_DOMAIN, or give ${setting('env')} NAME for an environment of ./tenantform.yaml with that target. Nothing was sent.`,
      'PLAN_TARGET_UNCONFIRMED',
    );
  }
  throw new PlanError(
    `${fileName} was made for the API at ${saved.target}, but this apply would send to ${given}; ` +
      'apply it with the target plan had, or make the plan again. Nothing was sent.',
    'PLAN_OTHER_TARGET',
  );
}
