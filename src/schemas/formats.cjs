/* eslint-disable @typescript-eslint/no-require-imports, no-control-regex */
'use strict';
// Named string formats from the Tenant Management API spec, shared by the
// build-time ajv compiler (scripts/gen-validators.mjs) and the generated
// standalone validators at run time. Plain CommonJS so that both can load it
// without a TypeScript step.
const { fullFormats } = require('ajv-formats/dist/formats');

/** An absolute https URI with a host and no whitespace or control characters. */
function strictHttpsUri(value) {
  if (typeof value !== 'string' || value.length > 2048) return false;
  if (!/^https:\/\/[^\s\u0000-\u001f\u007f]+$/i.test(value)) return false;
  let url;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname.length > 0 && url.username === '' && url.password === '';
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
  // Observed ids: "rlp_" followed by 21 characters (length capped at 26 by the schema).
  'rate-limit-policy-id': /^rlp_[A-Za-z0-9_-]{1,22}$/,
  // Observed ids: "tep_" followed by characters; the spec shows no length.
  'token-exchange-profile-id': /^tep_[A-Za-z0-9_-]+$/,
};
