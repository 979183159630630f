/**
 * tenantform validate --live: the config checked as validate checks it, then
 * its references checked against the tenant (API profile full), reading
 * nothing else and writing nothing: each reference list the config refers to
 * is read once (applications, Actions bound to custom-token-exchange, the
 * APIs it names), through one paced client, and every reference the tenant
 * lacks is an error at its file:line:col. Under the spec profile there is no
 * read operation: the config is validated and the output says once that
 * references were not checked.
 */
import type { LoadResult } from '../../config/index.js';
import {
  REFERENCE_LISTS,
  referencedKeys,
  type DesiredResource,
  type ReferenceRead,
} from '../../resources/index.js';
import type { ValidateFlags } from '../definitions.js';
import type { ConfigInput } from '../inputs.js';
import type { CommandIO } from '../io.js';
import { openClient, profileOf, readConcurrency, referenceIssues, referenceTitles } from '../tenant-read.js';
import { listed, plural } from '../words.js';
import { validateConfig, writeValidation, type ReferenceCheck, type ValidateOptions } from './validate.js';

const NOT_CHECKED =
  'References not checked against the tenant: the spec API profile has no read operation (use --api full, or api: full for the environment in tenantform.yaml).';

/** How many distinct items of the lists `names` the config refers to: "4 applications, 2 actions and 2 APIs". */
function namedCount(desired: readonly DesiredResource[], names: readonly string[]): string {
  return listed(
    REFERENCE_LISTS.filter((l) => names.includes(l.name)).map((l) =>
      plural(referencedKeys(l.references(desired)).length, l.title),
    ),
  );
}

/** Reads the lists the config refers to and checks its references; the result's issues gain the problems. */
async function checkLive(
  result: LoadResult,
  flags: ValidateFlags,
  input: ConfigInput,
  io: CommandIO,
): Promise<{ result: LoadResult; check: ReferenceCheck }> {
  const { referenceQueries } = await import('../../plan/references.js');
  const queries = referenceQueries(result.desired);
  if (queries.length === 0) {
    const note = 'References: the config names no application, Action or API; nothing to check.';
    return { result, check: { checked: true, requests: 0, note } };
  }
  const api = await import('../../api/index.js');
  const client = await openClient(flags, input, io);
  let read: ReferenceRead & { pages: number };
  try {
    read = await api.readReferences(client.call, queries, { concurrency: readConcurrency(10) });
  } finally {
    await client.close();
  }
  const issues = await referenceIssues(result.desired, read);
  const names = Object.keys(read.items);
  const checked = `References checked against the tenant's ${referenceTitles(names)} in ${plural(read.pages, 'request')}`;
  const note =
    issues.length === 0
      ? `${checked}: the ${namedCount(result.desired, names)} the config names exist.`
      : `${checked}.`;
  return {
    result: issues.length > 0 ? { ...result, desired: [], issues: [...result.issues, ...issues] } : result,
    check: { checked: true, requests: read.pages, note },
  };
}

/** Runs `validate --live` for one environment's config; returns the exit code (0 valid, 1 not). */
export async function runValidateLive(
  flags: ValidateFlags,
  input: ConfigInput,
  options: ValidateOptions,
  io: CommandIO,
): Promise<number> {
  const { result, warnings } = await validateConfig(input.paths, options, io);
  // A config with problems is reported as validate reports it, before any request.
  if (result.issues.length > 0) return writeValidation(result, flags.format, io, warnings);
  if ((await profileOf(flags, input)) !== 'full') {
    return writeValidation(result, flags.format, io, warnings, { checked: false, note: NOT_CHECKED });
  }
  const live = await checkLive(result, flags, input, io);
  return writeValidation(live.result, flags.format, io, warnings, live.check);
}
