/* eslint-disable @typescript-eslint/no-require-imports, no-control-regex */
'use strict';
// Named string formats from the Tenant Management API spec, shared by the
// build-time ajv compiler (scripts/gen-validators.mjs) and the generated
// standalone validators at run time. Plain CommonJS so that both can load it
// without a TypeScript step.
const { fullFormats } = require('ajv-formats/dist/formats');

/** The longest redirect URI accepted (a common limit of browsers and servers). */
const MAX_URI_LENGTH = 2048;

/** Characters nobody means to type in an identifier: control, invisible (zero-width) and non-ASCII spaces. */
const INVISIBLE = /[\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u;

/**
 * One character in words, with its code point and 1-based position, for
 * messages: `U+0435 "е" at character 4, a non-ASCII letter that may look
 * like a Latin one`. Invisible characters are named, never printed.
 */
function describeCharacter(char, position) {
  const code = `U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const at = `at character ${position}`;
  if (char === ' ') return `a space ${at}`;
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(char)) return `${code} ${at}, a control character`;
  if (/\p{Cf}/u.test(char)) return `${code} ${at}, an invisible (zero-width) character`;
  if (/\s/u.test(char)) return `${code} ${at}, a non-ASCII space (such as a no-break space)`;
  if (/\p{L}/u.test(char))
    return `${code} "${char}" ${at}, a non-ASCII letter that may look like a Latin one`;
  return `${code} "${char}" ${at}, a non-ASCII character`;
}

/** The first character of `value` that matches `pattern`, described; null when none does. */
function findCharacter(value, pattern) {
  let position = 0;
  for (const char of value) {
    position += 1;
    if (pattern.test(char)) return describeCharacter(char, position);
  }
  return null;
}

/**
 * Why `value` is not an absolute https URI with a host (and no user name,
 * password, whitespace, control or invisible character, at most 2048
 * characters), in words that follow its field's name; null when it is one.
 */
function httpsUriProblem(value) {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_URI_LENGTH)
    return `is ${value.length} characters long; at most ${MAX_URI_LENGTH} are allowed`;
  if (!/^https:\/\//i.test(value))
    return 'must be an absolute https:// URI (http and other schemes are refused)';
  const odd = findCharacter(value, INVISIBLE);
  if (odd) return `must not contain ${odd}`;
  const authority = /^https:\/\/([^/?#]*)/i.exec(value)[1];
  if (authority.includes('@'))
    return 'must not hold a user name or password (user:password@ before the host): a redirect URI is public';
  if (authority === '' || authority.startsWith(':')) return 'has no host: write https://HOST/path';
  let url;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URI: its host or port cannot be read';
  }
  return url.protocol === 'https:' && url.hostname.length > 0 ? null : 'has no host: write https://HOST/path';
}

/** An absolute https URI with a host, see httpsUriProblem. */
function strictHttpsUri(value) {
  return httpsUriProblem(value) === null;
}

/** Values remembered by uri(); past this many, new values are checked every time. */
const URI_MEMO_SIZE = 1000;
const uriMemo = new Map();

/**
 * ajv-formats' uri, remembered per value: a config names the same few API
 * identifiers on thousands of permissions, and the check is a long regex.
 */
function uri(value) {
  let ok = uriMemo.get(value);
  if (ok === undefined) {
    ok = fullFormats.uri(value);
    if (uriMemo.size < URI_MEMO_SIZE) uriMemo.set(value, ok);
  }
  return ok;
}

module.exports = {
  uri,
  'date-time': fullFormats['date-time'],
  'strict-https-uri': strictHttpsUri,
};

// Not formats (the validators register every enumerable export as one): the
// words behind them, for messages (src/schemas/index.ts).
Object.defineProperty(module.exports, 'explain', {
  value: { httpsUriProblem, findCharacter, INVISIBLE },
  enumerable: false,
});
