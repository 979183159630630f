/**
 * A validate request run: each config input loaded and checked (schema,
 * variables, the guardrails' config rules under the input's settings), and
 * with `live` (one environment, API profile full) its references checked
 * against the tenant: each reference list the config refers to read once
 * through one paced client, nothing else read and nothing written. The
 * result is data; src/cli words and prints it.
 */
import type { ReferencesRead } from '../api/index.js';
import { compareIssues, countResources } from '../config/combine.js';
import type { ConfigCounts, ConfigIssue, LoadResult } from '../config/index.js';
import type { DesiredResource } from '../resources/index.js';
import { checkConfig, type GuardrailSettings } from '../review/index.js';
import { loadInputConfig } from './load-config.js';
import type { ValidateRequest } from './read-requests.js';
import type { ConfigInput, RunIO } from './requests.js';
import { findingIssue, runSettings } from './review.js';
import { checkReferencesRead, readConcurrency } from './tenant-read.js';

/** A load result and the guardrails' warnings about it. */
export interface Validation {
  result: LoadResult;
  warnings: ConfigIssue[];
}

/**
 * What validate --live found of the references: none checked (`spec`: the
 * profile has no read; `none-named`: the config names nothing to check), or
 * the lists read, what the tenant lacks (`missing`), and whether they hold
 * (none missing, and under `strict` no list left unread for want of its scope).
 */
export type LiveReferences =
  | { kind: 'spec' }
  | { kind: 'none-named' }
  | {
      kind: 'read';
      desired: readonly DesiredResource[];
      read: ReferencesRead;
      strict: boolean;
      missing: readonly ConfigIssue[];
      holds: boolean;
    };

/** How a validate request ended: one config's validation (and its references after --live), or one per environment. */
export type ValidateResult =
  | { kind: 'one'; validation: Validation; references?: LiveReferences }
  | { kind: 'environments'; environments: { env: string | null; validation: Validation }[] };

/** The counts of a config that could not be read at all: zero of everything. */
export function noCounts(): ConfigCounts {
  return countResources([], 0);
}

/**
 * The config rules over a config that passed every other check: their
 * errors become the result's issues (the config is then invalid), their
 * warnings come apart. A config with issues is returned as it is.
 */
export function withGuardrails(result: LoadResult, settings: GuardrailSettings): Validation {
  if (result.issues.length > 0) return { result, warnings: [] };
  const findings = checkConfig(result.desired, settings);
  const issues = (severity: string) =>
    findings
      .filter((f) => f.severity === severity)
      .map(findingIssue)
      .sort(compareIssues);
  const errors = issues('error');
  return {
    result: errors.length > 0 ? { ...result, desired: [], issues: errors } : result,
    warnings: issues('warning'),
  };
}

/** One input loaded and checked, guardrails included; a malformed variable is an issue too. */
async function validateInput(request: ValidateRequest, input: ConfigInput, io: RunIO): Promise<Validation> {
  const { vars } = request;
  const result: LoadResult = vars.ok
    ? await loadInputConfig(input, vars.vars, io)
    : { desired: [], files: [], counts: noCounts(), issues: [vars.issue] };
  return withGuardrails(result, runSettings(input, request.strict));
}

/** Reads the lists the config refers to (a list the token may not read is skipped) and checks its references. */
async function checkLive(
  request: ValidateRequest & { live: NonNullable<ValidateRequest['live']> },
  input: ConfigInput,
  desired: readonly DesiredResource[],
  io: RunIO,
): Promise<LiveReferences> {
  const { referenceQueries } = await import('../plan/references.js');
  const queries = referenceQueries(desired);
  if (queries.length === 0) return { kind: 'none-named' };
  const api = await import('../api/index.js');
  const { openClient } = await import('./connection.js');
  const client = await openClient(request.live.connection, input, io);
  let read: ReferencesRead;
  try {
    read = await api.readReferences(client.call, queries, {
      concurrency: readConcurrency(10),
      skipDenied: true,
    });
  } finally {
    await client.close();
  }
  const { strict } = request;
  return { kind: 'read', desired, read, strict, ...(await checkReferencesRead(desired, read, strict)) };
}

/**
 * Runs a validate request: a project that cannot be read is reported as the
 * config's problems; one input is validated (and, live, its references
 * checked unless it has problems); several are validated one by one.
 */
export async function runValidate(request: ValidateRequest, io: RunIO): Promise<ValidateResult> {
  if (request.source.kind === 'broken-project') {
    const { issues } = request.source;
    return {
      kind: 'one',
      validation: { result: { desired: [], files: [], counts: noCounts(), issues }, warnings: [] },
    };
  }
  const { inputs } = request.source;
  if (!request.live && inputs.length > 1) {
    const environments = [];
    for (const input of inputs)
      environments.push({ env: input.env, validation: await validateInput(request, input, io) });
    return { kind: 'environments', environments };
  }
  const input = inputs[0]!;
  const validation = await validateInput(request, input, io);
  const { live } = request;
  // A config with problems is reported as it is, before any request.
  if (!live || validation.result.issues.length > 0) return { kind: 'one', validation };
  if (live.api !== 'full') return { kind: 'one', validation, references: { kind: 'spec' } };
  const references = await checkLive({ ...request, live }, input, validation.result.desired, io);
  return { kind: 'one', validation, references };
}
