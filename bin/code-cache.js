// Kept to syntax that old Node versions parse, like the rest of bin/: this
// module is imported before the version check runs, so it names no export
// that an old Node lacks (namespaces, read when called).
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';

/**
 * Runs the CLI's CommonJS bundle (dist/bundle/cli.cjs) with V8's code for it
 * kept on disk between runs.
 *
 * Node's own compile cache keeps only the code V8 compiles when it first
 * reads a file: the top level of each module. V8 compiles a function only
 * when it is first called, so every run compiled again each function it
 * called. A cache made with createCachedData() after the run holds those
 * too: this module makes one when the process exits, loads the bundle from
 * it in the next run, and makes it again only when it was missing or
 * refused, or when the run may have compiled what the cache lacks: the
 * caller names what the run did as bits (runBits: the command, whether it
 * sent requests), and a run that did something no run behind the cache did
 * makes it again, holding both (V8 writes every function it has compiled,
 * those it read from the cache among them).
 *
 * The cache is a file in Node's compile cache directory (which is per Node
 * version and V8 flags; unset when NODE_DISABLE_COMPILE_CACHE=1), used only
 * when that directory belongs to this user and only they can write to it. A
 * header proves the file: its format, the checksum and length of the source
 * it was made from, and the checksum and length of V8's data; V8 then checks
 * its version and flags and refuses data that does not match. A file that
 * fails any of this is ignored and replaced. Anything the cache cannot do
 * (no directory, a full disk) costs only speed: the bundle then compiles as
 * it would without a cache.
 */

var MAGIC = 0x54464343; // "TFCC"
var FORMAT = 1;
var HEADER = 28;

/**
 * Loads `file` (a CommonJS module) compiled from the cache in `cacheDir` when
 * one is there and proven. Returns its exports, whether the cache served, and
 * `saveIfUseful(did, beforeSave)`, which writes the cache when it should be
 * made again (true when it did): `did` is what the run did, as bits; `beforeSave` runs first
 * (V8 refuses data made under other flag values than the reader's: a flag
 * set during the run must be put back).
 *
 * @param {string} file
 * @param {string | undefined} cacheDir
 * @param {{ uid?: number }} [who] the user whose directory may hold the cache (tests)
 */
export function loadWithCodeCache(file, cacheDir, who) {
  var bytes = fs.readFileSync(file);
  // Read as latin1, V8's cheapest: the bundle is ASCII outside its comments
  // (esbuild's charset 'ascii'; test/bundle.test.ts).
  var source = bytes.toString('latin1');
  var sourceSum = zlib.crc32(bytes);
  var cacheFile = cacheDir && ownDirectory(cacheDir, who) ? cachePath(cacheDir, file) : undefined;
  var cached = cacheFile ? readCache(cacheFile, sourceSum, bytes.length) : null;
  var script = new vm.Script(
    '(function (exports, require, module, __filename, __dirname) {' + source + '\n})',
    {
      filename: file,
      cachedData: cached ? cached.data : undefined,
    },
  );
  var refused = !cached || script.cachedDataRejected === true;
  var module = { exports: {} };
  script.runInThisContext()(module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    /** Whether V8 took the bundle's code from the cache. */
    fromCache: !refused,
    /**
     * @param {number} did
     * @param {() => void} [beforeSave]
     */
    saveIfUseful: function (did, beforeSave) {
      if (!cacheFile) return false;
      var covered = refused ? 0 : cached.covered;
      if (!refused && (did & ~covered) === 0) return false;
      if (beforeSave) beforeSave();
      return writeCache(cacheFile, script.createCachedData(), sourceSum, bytes.length, (covered | did) >>> 0);
    },
  };
}

/** The cache's file for `file`: one per bundle path, so installs side by side keep their own. */
function cachePath(cacheDir, file) {
  return path.join(cacheDir, 'tenantform-' + zlib.crc32(path.resolve(file)).toString(16) + '.v8cache');
}

/** True when `dir` is a directory of this user that no one else may write to. */
function ownDirectory(dir, who) {
  var uid =
    who && who.uid !== undefined ? who.uid : typeof process.getuid === 'function' ? process.getuid() : -1;
  if (uid < 0) return false;
  try {
    var stat = fs.statSync(dir);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 18) === 0; // 18 = 0o022
  } catch {
    return false;
  }
}

/** The cached data of `cacheFile` and what the runs it was made from did, when its header proves it; else null. */
export function readCache(cacheFile, sourceSum, sourceLength) {
  var buffer;
  try {
    buffer = fs.readFileSync(cacheFile);
  } catch {
    return null;
  }
  if (buffer.length < HEADER) return null;
  if (buffer.readUInt32LE(0) !== MAGIC || buffer.readUInt32LE(4) !== FORMAT) return null;
  if (buffer.readUInt32LE(8) !== sourceSum || buffer.readUInt32LE(12) !== sourceLength) return null;
  var data = buffer.subarray(HEADER);
  if (buffer.readUInt32LE(20) !== data.length || buffer.readUInt32LE(16) !== zlib.crc32(data)) return null;
  return { data: data, covered: buffer.readUInt32LE(24) };
}

/** Writes the cache whole or not at all (a new file renamed over the old one); false when it could not. */
export function writeCache(cacheFile, data, sourceSum, sourceLength, covered) {
  var header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(sourceSum, 8);
  header.writeUInt32LE(sourceLength, 12);
  header.writeUInt32LE(zlib.crc32(data), 16);
  header.writeUInt32LE(data.length, 20);
  header.writeUInt32LE(covered, 24);
  var temporary = cacheFile + '.' + process.pid + '.tmp';
  try {
    fs.writeFileSync(temporary, Buffer.concat([header, data]), { mode: 384 }); // 0o600
    fs.renameSync(temporary, cacheFile);
    return true;
  } catch {
    try {
      fs.unlinkSync(temporary);
    } catch {
      // nothing was written
    }
    return false;
  }
}

/**
 * What a run of the CLI did, as saveIfUseful's bits: one for the command word
 * (argv[2], hashed onto 31 bits: two words that share one only share a cache
 * refresh), and the lowest when undici was loaded (the run sent requests).
 *
 * @param {readonly string[]} argv
 * @param {Record<string, unknown>} loaded the require cache: module paths
 */
export function runBits(argv, loaded) {
  var word = argv[2] === undefined ? '' : String(argv[2]);
  var bits = 1 << (1 + (zlib.crc32(word) % 31));
  for (var name in loaded) {
    if (name.indexOf(path.sep + 'undici' + path.sep) >= 0) return (bits | 1) >>> 0;
  }
  return bits >>> 0;
}
