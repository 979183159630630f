/**
 * The runtime check that bin/tenantform.js makes before it loads anything
 * else. It must parse and run on any Node that can load an ES module, so it
 * keeps to old syntax (no ?., ??, class fields or top-level await) and reads
 * the floor from package.json's engines.node instead of repeating it.
 */
import { readFileSync } from 'node:fs';

/** "22.19" → [22, 19, 0]; null for anything that is not a plain numeric version. */
function parseVersion(text) {
  var match = /^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(text);
  if (!match) return null;
  var parts = [match[1], match[2], match[3]];
  var numbers = [];
  for (var i = 0; i < parts.length; i++) {
    var part = parts[i];
    if (part === undefined || /^[xX*]$/.test(part)) break;
    numbers.push(Number(part));
  }
  return numbers;
}

function compare(a, b) {
  for (var i = 0; i < 3; i++) {
    var d = (a[i] || 0) - (b[i] || 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The version just above a partial one: [22] → [23], [22, 19] → [22, 20]. */
function bump(numbers) {
  var next = numbers.slice(0, Math.max(1, numbers.length));
  next[next.length - 1] += 1;
  return next;
}

/** One comparator ("> =22.19", "^22", "22.x") against a full version; null when it cannot be read. */
function satisfiesComparator(comparator, version) {
  var match = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(comparator);
  if (!match) return null;
  var op = match[1] || '';
  if (match[2] === '*' || /^[xX]$/.test(match[2])) return true;
  var bound = parseVersion(match[2]);
  if (!bound || bound.length === 0) return null;
  var c = compare(version, bound);
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      return bound.length === 3 ? c > 0 : compare(version, bump(bound)) >= 0;
    case '<':
      return c < 0;
    case '<=':
      return bound.length === 3 ? c <= 0 : compare(version, bump(bound)) < 0;
    case '^': {
      var caret = bound[0] > 0 || bound.length < 2 ? [bound[0] + 1] : bump(bound.slice(0, 2));
      return c >= 0 && compare(version, caret) < 0;
    }
    case '~':
      return c >= 0 && compare(version, bump(bound.slice(0, Math.min(2, bound.length)))) < 0;
    default:
      return bound.length === 3 ? c === 0 : c >= 0 && compare(version, bump(bound)) < 0;
  }
}

/**
 * Whether `version` ("20.20.2") meets an npm engines range such as ">=22.19",
 * ">=22.19 <25" or "^22.19 || >=24". A range this reader does not understand
 * counts as met: the check exists to stop a runtime that is clearly too old,
 * never to block one on a range it cannot read.
 */
export function satisfiesRange(range, version) {
  var actual = parseVersion(version);
  if (!actual || actual.length !== 3) return true;
  var alternatives = String(range).split('||');
  for (var i = 0; i < alternatives.length; i++) {
    var comparators = alternatives[i]
      .trim()
      .replace(/([<>=^~])\s+/g, '$1')
      .split(/\s+/);
    var met = true;
    for (var j = 0; j < comparators.length; j++) {
      if (comparators[j] === '') continue;
      var result = satisfiesComparator(comparators[j], actual);
      if (result === null) return true;
      if (!result) met = false;
    }
    if (met) return true;
  }
  return false;
}

/** The sentence to print and exit 1 with when this Node is below package.json's engines.node, else null. */
export function nodeVersionProblem(packageJsonUrl, version) {
  var range;
  try {
    var pkg = JSON.parse(readFileSync(packageJsonUrl, 'utf8'));
    range = pkg && pkg.engines && pkg.engines.node;
  } catch {
    return null; // no readable package.json: nothing to check against
  }
  if (typeof range !== 'string' || satisfiesRange(range, version)) return null;
  return 'tenantform needs Node ' + range + '; this is ' + version;
}
