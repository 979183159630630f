/**
 * The dependency rule of docs/architecture.md, as data: which folders of src/
 * each folder's modules may import (besides their own folder and packages).
 * Data flows one way, config → plan → apply → state; resources and schemas are
 * the vocabulary below everything; api sits below apply (apply declares the
 * client interface it needs); the emulator stands apart (it serves the kinds'
 * operation descriptors but shares no code with api, config, plan, apply or
 * state); cli is on top and alone may import everything. Test files are not
 * bound by it.
 *
 * eslint.config.js turns it into `import-x/no-restricted-paths` zones, so an
 * upstream import fails `npm run lint` (and so `npm test`);
 * test/dependency-rule.test.ts proves that it does.
 */

/** Every folder of src/ the rule knows; a new folder must be added here. */
export const FOLDERS = [
  'generated',
  'schemas',
  'resources',
  'config',
  'state',
  'plan',
  'apply',
  'api',
  'emulator',
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
  config: BASE,
  state: BASE,
  plan: [...BASE, 'state/types.ts'],
  apply: [...BASE, 'plan'],
  api: BASE,
  emulator: BASE,
  cli: FOLDERS,
};

/** The zones for import-x/no-restricted-paths (paths relative to the repository root). */
export function dependencyZones() {
  const zones = [];
  for (const target of FOLDERS) {
    const allowed = ALLOWED[target];
    for (const from of FOLDERS) {
      if (from === target || allowed.includes(from)) continue;
      const files = allowed
        .filter((a) => a.startsWith(`${from}/`))
        .map((a) => `./${a.slice(from.length + 1)}`);
      zones.push({
        target: `src/${target}`,
        from: `src/${from}`,
        ...(files.length > 0 ? { except: files } : {}),
        message:
          `src/${target} must not import src/${from}` +
          (files.length > 0 ? ` (only ${files.map((f) => f.slice(2)).join(', ')})` : '') +
          `: see the dependency rule in docs/architecture.md and scripts/dependency-rule.mjs.`,
      });
    }
  }
  return zones;
}
