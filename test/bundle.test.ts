/**
 * The CLI's bundle (scripts/bundle.mjs): one CommonJS file, which
 * bin/code-cache.js runs as a script and reads as latin1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const file = join(root, 'dist', 'bundle', 'cli.cjs');

describe.skipIf(!existsSync(file))('the built bundle', () => {
  const text = readFileSync(file, 'latin1');

  it("requires only Node's modules and the packages kept outside it, and imports nothing", () => {
    const required = new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!));
    const outside = [...required].filter((name) => !builtinModules.includes(name.replace(/^node:/, '')));
    // undici and the YAML library load through createRequire (src/api/transport.ts, src/config/yaml-lib.ts).
    expect(outside).toEqual(['pg']);
    expect(text).not.toMatch(/\bimport\(/);
  });

  it('is ASCII outside comments, so that reading it as latin1 changes no code', () => {
    const lines = text.split('\n');
    const other = lines.filter((line) => /[\u0080-\uffff]/.test(line) && !/^\s*(\*|\/\*\*|\/\/)/.test(line));
    expect(other).toEqual([]);
  });
});
