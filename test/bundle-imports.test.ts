/**
 * The bundle's split (scripts/bundle.mjs, scripts/eager-imports.mjs): the
 * lazy imports inside a command are bundled as static ones, so that a run
 * loads a few dozen files of dist/bundle/ instead of most of them. The
 * rewrite is checked on its own; the built CLI's loaded files are the
 * evidence that the bundle uses it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eagerImports, KEEP_LAZY } from '../scripts/eager-imports.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'tf-bundle-imports-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

/** The files of dist/bundle/ that `node bin/tenantform.js ...args` loads, in a fresh process. */
function bundleFilesLoaded(args: string[]): { files: number; status: number | null; stderr: string } {
  const hook = join(work, 'count-loads.mjs');
  const out = join(work, 'loaded.json');
  writeFileSync(
    hook,
    [
      `import { registerHooks } from 'node:module';`,
      `import { writeFileSync } from 'node:fs';`,
      `const loaded = new Set();`,
      `registerHooks({ load(url, context, next) { if (url.includes('/dist/bundle/')) loaded.add(url); return next(url, context); } });`,
      `process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(loaded.size)));`,
    ].join('\n'),
  );
  const run = spawnSync(process.execPath, ['--import', hook, join(ROOT, 'bin', 'tenantform.js'), ...args], {
    encoding: 'utf8',
    cwd: work,
    env: { ...process.env, NO_COLOR: '1', NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  rmSync(join(work, 'state.json'), { force: true });
  return { files: Number(readFileSync(out, 'utf8')), status: run.status, stderr: run.stderr };
}

describe('the built CLI', () => {
  it('plans from the command, its config, state and plan code in a few dozen bundle files', () => {
    const dir = join(work, 'config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'policies.yaml'),
      'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n' +
        '    consumer_selector: "client_id:abc"\n    configuration:\n      action: block\n      limit: 10\n',
    );
    const run = bundleFilesLoaded(['plan', dir, '--state', join(work, 'state.json')]);
    expect(run.stderr).toContain('no state at state.json yet');
    expect(run.status).toBe(0);
    // 56 when each lazy import inside the plan command was a file of its own.
    expect(run.files).toBeLessThanOrEqual(40);
  });
});
