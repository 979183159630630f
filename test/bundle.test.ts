/**
 * The CLI's bundle (scripts/bundle.mjs): one CommonJS file, which
 * bin/code-cache.js runs as a script and reads as latin1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const file = join(root, 'dist', 'bundle', 'cli.cjs');

/** A line of a comment: JSDoc's middle lines and line comments (esbuild keeps some, and undici's). */
const COMMENT = /^\s*(\*|\/\*\*|\/\/)/;

describe.skipIf(!existsSync(file))('the built bundle', () => {
  const text = readFileSync(file, 'latin1');
  const code = text
    .split('\n')
    .filter((line) => !COMMENT.test(line))
    .join('\n');

  it("requires only Node's modules and the packages kept outside it, and imports nothing", () => {
    const required = new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!));
    const outside = [...required].filter((name) => !isBuiltin(name));
    // The YAML library loads through createRequire (src/config/yaml-lib.ts); undici is inside.
    expect(outside).toEqual(['pg']);
    expect(text).toContain('node_modules/undici/lib/dispatcher/agent.js');
    // undici's HTTP/2 loads node:http2 when it first connects (test/http2-target.test.ts).
    expect(required.has('node:http2') || required.has('http2')).toBe(false);
    expect(code).not.toMatch(/\bimport\(/);
  });

  it('is ASCII outside comments, so that reading it as latin1 changes no code', () => {
    expect(code).not.toMatch(/[\u0080-\uffff]/);
  });
});
