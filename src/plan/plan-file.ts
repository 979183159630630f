import type { ApiProfile } from '../resources/index.js';
import { checkSchema } from '../schemas/index.js';
import { describeStateLocation, type StateDocument, type StateLocation } from '../state/types.js';
import { PlanError } from './errors.js';
import { planProblems } from './plan-check.js';
import { planToJson } from './render-json.js';
import { PLAN_FORMAT_VERSION, READABLE_PLAN_VERSIONS, type Plan } from './types.js';

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
  /** Where the state the plan was made from lives; apply uses no other. null in `plan --format json` output, which apply refuses. */
  stateLocation: StateLocation | null;
  /** The API base URL known at plan time; apply refuses another. null when none was known. */
  target: string | null;
}

/** The text of a plan file (pretty JSON, ending in a newline). */
export function serializePlan(plan: Plan, meta: PlanFileMeta): string {
  const json = planToJson(plan, {
    created_at: meta.createdAt,
    tool_version: meta.toolVersion,
    config_paths: meta.configPaths,
    state_location: meta.stateLocation,
    target: meta.target,
  });
  return JSON.stringify(json, null, 2) + '\n';
}

const MAX_LISTED = 10;

function listProblems(fileName: string, problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED).map((p) => `  ${p}`);
  if (problems.length > MAX_LISTED) listed.push(`  … and ${problems.length - MAX_LISTED} more`);
  return `${fileName} is not a valid tenantform plan:\n${listed.join('\n')}\nMake the plan again with tenantform plan --out.`;
}

function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

/**
 * Reads a plan file's text. Throws PlanError PLAN_INVALID for text that is not
 * JSON, not a plan, or an inconsistent plan; PLAN_UNKNOWN_VERSION for a format
 * version this tenantform does not read. `fileName` only names the file in messages.
 */
export function readPlanFile(text: string, fileName: string): SavedPlan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new PlanError(
      `${fileName} is not a tenantform plan: it is not valid JSON (${detail})`,
      'PLAN_INVALID',
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('format_version' in data)) {
    throw new PlanError(`${fileName} is not a tenantform plan: it has no format_version`, 'PLAN_INVALID');
  }
  const record = data as Record<string, unknown>;
  if (!READABLE_PLAN_VERSIONS.includes(record.format_version as number)) {
    const made =
      typeof record.tool_version === 'string' ? ` (made by tenantform ${record.tool_version})` : '';
    throw new PlanError(
      `${fileName} has plan format version ${JSON.stringify(record.format_version)}${made}, but this tenantform ` +
        `reads format versions ${READABLE_PLAN_VERSIONS.join(' and ')} only; make the plan again with this tenantform`,
      'PLAN_UNKNOWN_VERSION',
    );
  }
  const current = record.format_version === PLAN_FORMAT_VERSION;
  const issues = checkSchema('plan', data);
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
  // Format 2 came before API profiles: a spec plan, with no update count. Format 3 names its profile.
  const older = !current && (record.api !== undefined || hasKey(record.summary, 'update'));
  if (older || (current && record.api === undefined)) {
    const problem = older
      ? 'a format 2 plan has no api and no update count (it was made before API profiles)'
      : '(top level): missing required property "api"';
    throw new PlanError(listProblems(fileName, [problem]), 'PLAN_INVALID');
  }
  const summary = record.summary as Plan['summary'];
  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    api: current ? (record.api as Plan['api']) : 'spec',
    state: record.state as Plan['state'],
    ...(record.targets ? { targets: record.targets as string[] } : {}),
    ...(record.destroy === true ? { destroy: true as const } : {}),
    changes: record.changes as Plan['changes'],
    summary: current ? summary : { ...summary, update: 0 },
  };
  const problems = planProblems(plan);
  if (problems.length > 0) throw new PlanError(listProblems(fileName, problems), 'PLAN_INVALID');
  return {
    plan,
    createdAt: (record.created_at as string | undefined) ?? null,
    toolVersion: (record.tool_version as string | undefined) ?? null,
    configPaths: (record.config_paths as string[] | undefined) ?? [],
    stateLocation: (record.state_location as StateLocation | undefined) ?? null,
    target: (record.target as string | null | undefined) ?? null,
  };
}

function hasKey(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key);
}

/** Reads a plan file's text and returns just the plan (see readPlanFile for the errors). */
export function parsePlanFile(text: string, fileName: string): Plan {
  return readPlanFile(text, fileName).plan;
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
  let now: string;
  if (lineage === null) now = 'no state exists now (check --state and the backend settings)';
  else if (made.lineage === null) now = `a state exists now (serial ${serial}, lineage ${lineage})`;
  else if (made.lineage !== lineage)
    now = `the state now has lineage ${lineage} (serial ${serial}): it is a different state`;
  else now = `the state is now at serial ${serial}`;
  throw new PlanError(`${from} but ${now}; run tenantform plan again`, 'PLAN_STALE');
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
export function checkPlanLocation(saved: SavedPlan, location: StateLocation, fileName: string): void {
  if (saved.stateLocation === null) {
    throw new PlanError(
      `${fileName} does not say which state it was made from (it has no state_location: plan --format json output is not a saved plan); save the plan with tenantform plan --out FILE`,
      'PLAN_INVALID',
    );
  }
  if (sameLocation(saved.stateLocation, location)) return;
  throw new PlanError(
    `${fileName} was made from the state at ${describeStateLocation(saved.stateLocation)}, but this apply would use ` +
      `${describeStateLocation(location)}; apply it with the state settings plan had (or none), or make the plan again`,
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
    `${fileName} was made for API profile ${saved.plan.api}, but this apply uses API profile ${api}; ` +
      `apply it with --api ${saved.plan.api} (or without --api), or make the plan again with --api ${api}`,
    'PLAN_OTHER_PROFILE',
  );
}

/**
 * Refuses to apply a saved plan to another API than the one known when it was
 * made: throws PlanError PLAN_OTHER_TARGET. A plan saved without a known
 * target (null) accepts any.
 */
export function checkPlanTarget(saved: SavedPlan, baseUrl: string, fileName: string): void {
  if (saved.target === null || saved.target === baseUrl) return;
  throw new PlanError(
    `${fileName} was made for the API at ${saved.target}, but this apply would send to ${baseUrl}; ` +
      'apply it with the target plan had (or none), or make the plan again',
    'PLAN_OTHER_TARGET',
  );
}
