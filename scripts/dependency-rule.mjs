import path from 'node:path';

/**
 * The dependency rule of docs/architecture.md, as data: which folders of src/
 * each folder's modules may import (besides their own folder and packages).
 * Data flows one way, config → plan → apply → state; resources and schemas are
 * the vocabulary below everything; review (what a configuration does: policy
 * precedence, the guardrail rules) sits on them, below config and plan; api sits below apply (apply declares the
 * client interface it needs); the emulator stands apart (it serves the kinds'
 * operation descriptors but shares no code with api, config, plan, apply or
 * state); run (a command as a typed request, and what runs it) sits below cli
 * and above everything else (the emulator too: it starts `tenantform emulator`'s tenants); cli is on top and alone may
 * import everything. Test files are not bound by it.
 *
 * eslint.config.js runs it as the local rule `tenantform/dependency-rule`
 * (dependencyPlugin below, no third-party resolver needed), so an
 * upstream import fails `npm run lint` (and so `npm test`);
 * test/dependency-rule.test.ts proves that it does.
 */

/** Every folder of src/ the rule knows; a new folder must be added here. */
export const FOLDERS = [
  'generated',
  'schemas',
  'resources',
  'review',
  'simulate',
  'config',
  'state',
  'plan',
  'apply',
  'api',
  'emulator',
  'run',
  'cli',
];

const BASE = ['generated', 'schemas', 'resources'];

/**
 * Folder → the folders it may import. An entry "folder/file" allows that one
 * file only: plan reads the state document's type and nothing else of state.
 */
export const ALLOWED = {
  generated: [],
  schemas: ['generated'],
  resources: ['generated', 'schemas'],
  review: BASE,
  simulate: [...BASE, 'review'],
  config: [...BASE, 'review'],
  state: BASE,
  plan: [...BASE, 'review', 'state/types.ts'],
  apply: [...BASE, 'plan'],
  api: BASE,
  emulator: BASE,
  run: [...BASE, 'review', 'simulate', 'config', 'state', 'plan', 'apply', 'api', 'emulator'],
  cli: FOLDERS,
};

/**
 * Why `importer` (an absolute path of a file in src/) may not import
 * `specifier`, or undefined when it may. Only relative specifiers can reach
 * another folder of src/; packages are always allowed.
 */
export function dependencyViolation(root, importer, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const src = path.join(root, 'src');
  const from = path.relative(src, importer).split(path.sep);
  const to = path.relative(src, path.resolve(path.dirname(importer), specifier)).split(path.sep);
  if (from.length < 2 || to[0] === '..') return undefined;
  const [target, other] = [from[0], to[0]];
  if (target === other || !FOLDERS.includes(target) || !FOLDERS.includes(other)) return undefined;
  const allowed = ALLOWED[target];
  if (allowed.includes(other)) return undefined;
  const file = to.slice(1).join('/').replace(/\.js$/, '.ts');
  const files = allowed.filter((a) => a.startsWith(`${other}/`)).map((a) => a.slice(other.length + 1));
  if (files.includes(file)) return undefined;
  return (
    `src/${target} must not import src/${other}` +
    (files.length > 0 ? ` (only ${files.join(', ')})` : '') +
    `: see the dependency rule in docs/architecture.md and scripts/dependency-rule.mjs.`
  );
}

/**
 * The rule as an ESLint plugin: `tenantform/dependency-rule` checks static
 * imports, re-exports and import() calls with a literal specifier.
 */
export function dependencyPlugin(root) {
  const rule = {
    meta: {
      type: 'problem',
      schema: [],
      docs: { description: 'Data flows one way between the folders of src/.' },
    },
    create(context) {
      const check = (node, source) => {
        if (!source || typeof source.value !== 'string') return;
        const message = dependencyViolation(root, context.filename, source.value);
        if (message) context.report({ node, message });
      };
      return {
        ImportDeclaration: (node) => check(node, node.source),
        ExportNamedDeclaration: (node) => check(node, node.source),
        ExportAllDeclaration: (node) => check(node, node.source),
        ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : undefined),
      };
    },
  };
  return { rules: { 'dependency-rule': rule } };
}
