import { checkSchema } from '../schemas/index.js';
import type { StateDocument } from '../state/types.js';
import { PlanError } from './errors.js';
import { planProblems } from './plan-check.js';
import { planToJson } from './render-json.js';
import { PLAN_FORMAT_VERSION, type Plan } from './types.js';

/**
 * Saved plans (`tenantform plan --out FILE`). The file is the JSON plan of
 * `--format json` with three more top-level fields: created_at, tool_version and
 * config_paths (flat, one schema for both: schemas/plan.schema.json). It holds
 * config attributes and recorded ids only, never credentials.
 */

export interface PlanFileMeta {
  /** ISO time the plan was made; the caller owns the clock. */
  createdAt: string;
  toolVersion: string;
  /** The config path the plan was made from (locates the default state file). */
  configPath?: string;
  /** All config paths given to plan; the last one locates the default state file. */
  configPaths?: string[];
}

/** A plan read back from a file, with what the file says about its making. */
export interface SavedPlan {
  plan: Plan;
  createdAt: string | null;
  toolVersion: string | null;
  configPaths: string[];
  /** The path that locates the default state: the last config path, else the plan file itself. */
  configPath: string;
}

/** The text of a plan file (pretty JSON, ending in a newline). */
export function serializePlan(plan: Plan, meta: PlanFileMeta): string {
  const paths = meta.configPaths ?? (meta.configPath !== undefined ? [meta.configPath] : undefined);
  const json = planToJson(plan, {
    created_at: meta.createdAt,
    tool_version: meta.toolVersion,
    config_paths: paths,
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
  if (record.format_version !== PLAN_FORMAT_VERSION) {
    const made =
      typeof record.tool_version === 'string' ? ` (made by tenantform ${record.tool_version})` : '';
    throw new PlanError(
      `${fileName} has plan format version ${JSON.stringify(record.format_version)}${made}, but this tenantform ` +
        `reads format version ${PLAN_FORMAT_VERSION} only; make the plan again with this tenantform`,
      'PLAN_UNKNOWN_VERSION',
    );
  }
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
  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    state: record.state as Plan['state'],
    ...(record.targets ? { targets: record.targets as string[] } : {}),
    ...(record.destroy === true ? { destroy: true as const } : {}),
    changes: record.changes as Plan['changes'],
    summary: record.summary as Plan['summary'],
  };
  const problems = planProblems(plan);
  if (problems.length > 0) throw new PlanError(listProblems(fileName, problems), 'PLAN_INVALID');
  const configPaths = (record.config_paths as string[] | undefined) ?? [];
  return {
    plan,
    createdAt: (record.created_at as string | undefined) ?? null,
    toolVersion: (record.tool_version as string | undefined) ?? null,
    configPaths,
    configPath: configPaths[configPaths.length - 1] ?? fileName,
  };
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
