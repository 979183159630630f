/**
 * The bundle's split (scripts/bundle.mjs, scripts/eager-imports.mjs): the
 * lazy imports inside a command are bundled as static ones, so that a run
 * loads a few dozen files of dist/bundle/ instead of most of them. The
 * rewrite is checked on its own, and the built bundle for what is left lazy.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eagerImports, KEEP_LAZY } from '../scripts/eager-imports.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const FILE = '/repo/dist/run/apply.js';

describe('eagerImports', () => {
  it("makes a relative import() the namespace of a static import, resolved from the module's folder", () => {
    const source =
      "export async function f() {\n  const { a } = await import('../plan/index.js');\n  return a;\n}\n";
    expect(eagerImports(source, FILE)).toBe(
      'import * as __eagerImport0 from "../plan/index.js";\nexport async function f() {\n  const { a } = await Promise.resolve(__eagerImport0);\n  return a;\n}\n',
    );
  });

  it('names each imported module once per import() call, in order', () => {
    const out = eagerImports('import(\'./a.js\'); import("../b/c.js");', FILE);
    expect(out).toBe(
      'import * as __eagerImport0 from "./a.js";\nimport * as __eagerImport1 from "../b/c.js";\n' +
        'Promise.resolve(__eagerImport0); Promise.resolve(__eagerImport1);',
    );
  });

  it('leaves the modules kept lazy, packages and computed specifiers alone', () => {
    expect(KEEP_LAZY).toContain('config/yaml-lib.js');
    expect(KEEP_LAZY).toContain('api/index.js');
    const source = [
      "await import('../config/yaml-lib.js');",
      "await import('../api/index.js');",
      "await import('yaml');",
      "await import('node:os');",
      'await import(name);',
    ].join('\n');
    expect(eagerImports(source, FILE)).toBeNull();
  });
});

/** The bundle's name for an entry module: esbuild names it after the file, or its folder for an index.js. */
function entryName(module: string): string {
  const parts = module.replace(/\.js$/, '').split('/');
  const last = parts[parts.length - 1]!;
  return last === 'index' ? parts[parts.length - 2]! : last;
}

describe('the built bundle', () => {
  it("imports lazily, outside the commands' split in main.js, only the modules kept lazy", () => {
    const dir = join(ROOT, 'dist', 'bundle');
    const lazy = new Set(KEEP_LAZY.map(entryName));
    const found = new Set<string>();
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.js') || file === 'main.js') continue;
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/\bimport\(\s*"\.\/([^"]+)-[A-Z0-9]{8}\.js"\s*\)/g)) found.add(m[1]!);
    }
    expect(found.size).toBeGreaterThan(0);
    expect([...found].filter((name) => !lazy.has(name))).toEqual([]);
  });
});
