/**
 * Import cycles among the modules below one folder (src/: no module imports
 * itself round a circle, inside a folder or across; in src/cli the command
 * table, fleet and the commands must not call each other). Every import
 * counts: static, `export … from`, type-only and `import()` with a literal
 * specifier ("no import cycles, not even lazy ones").
 * test/dependency-rule.test.ts runs it over src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each module of `dir` (a path relative to it) → the modules of `dir` it imports. */
export function importGraph(dir) {
  const root = resolve(dir);
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target));
    graph.set(relative(root, file), new Set(targets.map((t) => relative(root, t))));
  }
  return graph;
}

/** Every cycle found (each as the modules around it, the first repeated at the end); empty when none. */
export function importCycles(dir) {
  const graph = importGraph(dir);
  const cycles = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}
