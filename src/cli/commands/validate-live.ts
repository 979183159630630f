/**
 * tenantform validate --live: the config checked as validate checks it, then
 * its references checked against the tenant (API profile full), reading
 * nothing else and writing nothing: each reference list the config refers to
 * is read once (applications, Actions bound to custom-token-exchange, the
 * APIs it names), through one paced client, and every reference the tenant
 * lacks is an error at its file:line:col. A list the token may not read
 * (403) leaves its references unchecked: a warning naming the scope, an
 * error under --strict (live.uncheckedLists). Under the spec profile there is no
 * read operation: the config is validated and the output says once that
 * references were not checked.
 */
import type { ReferencesRead } from '../../api/index.js';
import type { ConfigIssue, LoadResult } from '../../config/index.js';
import { REFERENCE_LISTS, referencedKeys, type DesiredResource } from '../../resources/index.js';
import type { ConfigInput } from '../../run/requests.js';
import type { TenantReader } from '../../run/read-requests.js';
import { runIO } from '../context.js';
import type { CommandIO } from '../io.js';
import { readConcurrency, referenceIssues, referenceTitles, uncheckedLists } from '../tenant-read.js';
import { listed, plural } from '../words.js';
import {
  validateConfig,
  writeValidation,
  type ReferenceCheck,
  type ValidateFormat,
  type ValidateOptions,
} from './validate.js';

/** What validate --live adds to a validation: the tenant read, --strict for the lists left unchecked, the format. */
export interface LiveOptions {
  reader: TenantReader;
  strict: boolean;
  format: ValidateFormat;
}

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

/** What validate --live found: the result with the reference problems, the lists left unchecked, the sentence. */
interface LiveCheck {
  result: LoadResult;
  /** One per list the tenant refused to list (403): warnings, or the result's errors under --strict. */
  unchecked: ConfigIssue[];
  check: ReferenceCheck;
}

/** "References checked against the tenant's applications in 2 requests: …", or why none was. */
function checkNote(desired: readonly DesiredResource[], read: ReferencesRead, problems: number): string {
  const names = Object.keys(read.items);
  if (names.length === 0)
    return `References not checked against the tenant: the token may list none of the lists the config refers to (${plural(read.pages, 'request')}).`;
  const checked = `References checked against the tenant's ${referenceTitles(names)} in ${plural(read.pages, 'request')}`;
  return problems === 0
    ? `${checked}: the ${namedCount(desired, names)} the config names exist.`
    : `${checked}.`;
}

/**
 * Reads the lists the config refers to and checks its references; the
 * result's issues gain the problems. A list the token may not read (403) is
 * not checked: a warning, an error under --strict.
 */
async function checkLive(
  result: LoadResult,
  { reader, strict }: LiveOptions,
  input: ConfigInput,
  io: CommandIO,
): Promise<LiveCheck> {
  const { referenceQueries } = await import('../../plan/references.js');
  const queries = referenceQueries(result.desired);
  if (queries.length === 0) {
    const note = 'References: the config names no application, Action or API; nothing to check.';
    return { result, unchecked: [], check: { checked: true, requests: 0, note } };
  }
  const api = await import('../../api/index.js');
  const { openClient } = await import('../../run/connection.js');
  const client = await openClient(reader.connection, input, runIO(io));
  let read: ReferencesRead;
  try {
    read = await api.readReferences(client.call, queries, {
      concurrency: readConcurrency(10),
      skipDenied: true,
    });
  } finally {
    await client.close();
  }
  const unchecked = uncheckedLists(result.desired, read);
  const errors = [...(strict ? unchecked : []), ...(await referenceIssues(result.desired, read))];
  return {
    result: errors.length > 0 ? { ...result, desired: [], issues: [...result.issues, ...errors] } : result,
    unchecked: strict ? [] : unchecked,
    check: {
      checked: Object.keys(read.items).length > 0,
      requests: read.pages,
      note: checkNote(result.desired, read, errors.length),
    },
  };
}

/** Runs `validate --live` for one environment's config; returns the exit code (0 valid, 1 not). */
export async function runValidateLive(
  live: LiveOptions,
  input: ConfigInput,
  options: ValidateOptions,
  io: CommandIO,
): Promise<number> {
  const { format } = live;
  const { result, warnings } = await validateConfig(input.paths, options, io);
  // A config with problems is reported as validate reports it, before any request.
  if (result.issues.length > 0) return writeValidation(result, format, io, warnings);
  if (live.reader.api !== 'full') {
    return writeValidation(result, format, io, warnings, { checked: false, note: NOT_CHECKED });
  }
  const checked = await checkLive(result, live, input, io);
  return writeValidation(checked.result, format, io, [...checked.unchecked, ...warnings], checked.check);
}
