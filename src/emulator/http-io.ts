/**
 * Reading requests and writing responses: body size cap, content types,
 * JSON and form parsing, and the JSON response writer.
 *
 * Content types: application/json (also any application/…+json) everywhere a
 * body is read; application/x-www-form-urlencoded only where the route allows
 * it. A body with another type, with no Content-Type, or with a charset other
 * than UTF-8 is answered 415. An empty body is a 400. A body over the cap is a
 * 413 and the connection is closed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, HttpError } from './errors.js';
import { parseForm } from './forms.js';

export type BodyType = 'json' | 'form';

/** The path of a request target, without query or fragment, still percent-encoded. */
export function rawPath(url: string | undefined): string {
  const target = url ?? '/';
  const cut = target.search(/[?#]/);
  const path = cut < 0 ? target : target.slice(0, cut);
  return /^https?:\/\//i.test(path) ? path.replace(/^https?:\/\/[^/]*/i, '') || '/' : path;
}

/** The parameters of a request target's query string (none when it has no "?"). */
export function queryOf(url: string | undefined): URLSearchParams {
  const target = url ?? '/';
  const start = target.indexOf('?');
  if (start < 0) return new URLSearchParams();
  const end = target.indexOf('#', start);
  return new URLSearchParams(target.slice(start + 1, end < 0 ? undefined : end));
}

/**
 * Reads the whole body; resolves to a 413 HttpError instead when it is larger
 * than `maxBytes`, and to null when the client went away before sending all of it.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | HttpError | null> {
  const tooLarge = () =>
    new HttpError(413, `Request body is larger than ${maxBytes} bytes`, 'payload_too_large');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | HttpError | null) => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        finish(tooLarge());
      } else if (!done) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => finish(Buffer.concat(chunks)));
    req.on('error', () => finish(null));
    req.on('close', () => finish(req.complete ? Buffer.concat(chunks) : null));
  });
}

function mediaType(header: string | undefined): { type: string; charset?: string } | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [type, ...params] = header.split(';');
  const charset = params
    .map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return { type: type!.trim().toLowerCase(), charset: charset?.toLowerCase() };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a request body by its Content-Type. `integerPaths` name the fields a
 * form body carries as digits but the schema types as integers.
 */
export function parseBody(
  contentType: string | undefined,
  raw: Buffer,
  accepted: readonly BodyType[],
  integerPaths: readonly (readonly string[])[] = [],
): unknown {
  const media = mediaType(contentType);
  const allowed = accepted.map((t) =>
    t === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
  );
  const unsupported = () =>
    new HttpError(
      415,
      `Unsupported Content-Type ${JSON.stringify(contentType ?? '')}; send ${allowed.join(' or ')}`,
      'unsupported_media_type',
    );
  if (raw.length === 0) throw badRequest('Request body is required', 'invalid_body');
  if (!media) throw unsupported();
  const isJson = media.type === 'application/json' || /^application\/[^/]+\+json$/.test(media.type);
  const kind: BodyType | undefined = isJson
    ? 'json'
    : media.type === 'application/x-www-form-urlencoded'
      ? 'form'
      : undefined;
  if (!kind || !accepted.includes(kind)) throw unsupported();
  if (media.charset !== undefined && media.charset !== 'utf-8' && media.charset !== 'utf8')
    throw unsupported();
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw badRequest('Request body is not valid UTF-8', 'invalid_body');
  }
  if (kind === 'form') return parseForm(text, integerPaths);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('Request body is not valid JSON', 'invalid_json');
  }
}

/** Writes a JSON response (or an empty one when `body` is undefined). */
export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}
