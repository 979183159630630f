/**
 * The YAML library, loaded on first use. A config file in the plain subset
 * goes through the fast reader (fast-yaml.ts) and never needs it, so plan and
 * apply of such files skip the library's load time (its forty-odd modules).
 * Import its types from 'yaml' (`import type`) and reach its values through
 * `YAML` (YAML.isMap, new YAML.LineCounter(), …).
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

function load(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}

/** The library's exports; the first property read loads it. */
export const YAML: typeof Yaml = new Proxy({} as typeof Yaml, {
  get: (_target, key) => Reflect.get(load(), key) as unknown,
});

/** Whether the library has been loaded in this process (for the tests of start-up cost). */
export const yamlLoaded = (): boolean => loaded !== undefined;
