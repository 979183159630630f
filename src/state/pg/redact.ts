/**
 * Keeping the connection string's password out of every message: the
 * redacted form of a connection string, a description of the target, and the
 * scrubbing of driver errors (which can echo connection parameters).
 */
import { StateError } from '../errors.js';

const MASK = '***';

function parse(conn: string): URL | undefined {
  try {
    return new URL(conn);
  } catch {
    return undefined;
  }
}

/** The connection string with its password (in the user part or a password= parameter) replaced by ***. */
export function redactConnectionString(conn: string): string {
  const url = parse(conn);
  if (!url) {
    // Not a URL: mask anything that looks like user:password@ or password=…
    return conn
      .replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, `$1${MASK}@`)
      .replace(/(password=)[^&\s]*/gi, `$1${MASK}`);
  }
  if (url.password) url.password = MASK;
  for (const key of [...url.searchParams.keys()]) {
    if (key.toLowerCase() === 'password') url.searchParams.set(key, MASK);
  }
  return url.toString();
}

/** The secret strings a message must not contain: the password, raw and decoded. */
export function secretsOf(conn: string): string[] {
  const url = parse(conn);
  const found = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (!value) return;
    found.add(value);
    try {
      found.add(decodeURIComponent(value));
    } catch {
      // a malformed escape: the raw form is covered
    }
  };
  if (url) {
    add(url.password);
    for (const [key, value] of url.searchParams) if (key.toLowerCase() === 'password') add(value);
  } else {
    add(/\/\/[^:/@\s]*:([^@\s]*)@/.exec(conn)?.[1]);
    add(/password=([^&\s]*)/i.exec(conn)?.[1]);
  }
  found.add(conn);
  // Longest first, so that a secret containing another is masked whole.
  return [...found].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

/** Replaces every secret of the connection string in `text` (the whole string by its redacted form). */
export function scrub(text: string, conn: string): string {
  let out = text.split(conn).join(redactConnectionString(conn));
  for (const secret of secretsOf(conn)) {
    if (secret !== conn) out = out.split(secret).join(MASK);
  }
  return out;
}

/** "host:port/database" of a connection string, without user or password. */
export function describeTarget(conn: string): string {
  const url = parse(conn);
  if (!url) return 'an unparseable connection string';
  const socket = url.searchParams.get('host');
  const host = url.hostname ? url.hostname : socket || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const db =
    decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  return `${host}:${port}/${db}`;
}

interface DriverErrorFields {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
}

/** The driver's words for a connection that ended under a statement (it gives them no code). */
const LOST_CONNECTION = /Connection terminated|connection error and is not queryable|Client was closed/i;

/** Words that turn common driver failures into advice. */
function hint(code: string | undefined, message: string): string {
  if (code === undefined && LOST_CONNECTION.test(message)) code = 'ECONNRESET';
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
    case '57P01':
    case '57P02':
    case '57P03':
      return ' (the connection to the server was lost: it stopped, restarted or ended this session; once it answers again, run the command again)';
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return ' (is the server running and reachable? check host and port of the connection string)';
    case '28P01':
    case '28000':
      return ' (check user and password of the connection string)';
    case '3D000':
      return ' (create the database first, or fix its name in the connection string)';
    case '42501':
      return ' (the database user lacks a privilege tenantform needs)';
    default:
      return '';
  }
}

/**
 * Wraps a failure of the driver into StateError STATE_IO naming the action
 * and the target, with every secret scrubbed. The original error is not kept
 * as `cause`: its fields may carry connection parameters. Typed state errors
 * pass through unchanged.
 */
export function pgError(action: string, where: string, err: unknown, conn: string): Error {
  const fields = (err ?? {}) as DriverErrorFields;
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  // Typed errors of tenantform (StateError, LockError, PgConfigError…) carry no driver text.
  if (err instanceof StateError || (err instanceof Error && code?.startsWith('STATE_'))) return err;
  const message = err instanceof Error ? err.message : String(err);
  const detail = typeof fields.detail === 'string' ? ` (${fields.detail})` : '';
  const codeText = code ? ` [${code}]` : '';
  const text = `${where}: could not ${action}: ${message}${detail}${codeText}${hint(code, message)}`;
  return new StateError('STATE_IO', scrub(text, conn));
}
