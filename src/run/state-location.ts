/**
 * Where a config's state lives by default (the file backend, no state named
 * by the command and no `state:` in its tenantform.yaml environment): per config path and per
 * environment or target, so that two configs in one directory, or one config
 * applied to two tenants, never share a state by accident.
 *
 *   DIR/.tenantform/SCOPE/state.json         for a config directory DIR
 *   DIR/.tenantform/SCOPE/NAME.state.json    for a config file DIR/NAME
 *
 * SCOPE is `env-NAME` for an environment of tenantform.yaml, else the host of
 * the target (`tenant.example.com`, `127.0.0.1_4000`); with neither, the state
 * sits in DIR/.tenantform/ itself. Of several config paths, the last counts.
 *
 * A state where earlier tenantform versions kept it (DIR/.tenantform/state.json,
 * also for a config file) keeps working: it is used while the scoped place
 * holds none, unless it is bound to another tenant than the target. Without
 * an environment or a target, the config's one state (unscoped, older or
 * scoped) is used; with several, the command must be told which.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RunError } from './errors.js';

/** What besides the config path decides the default state: the environment and the target (API base URL). */
export interface StateScope {
  env: string | null;
  target: string | null;
}

export const NO_SCOPE: StateScope = { env: null, target: null };

/**
 * The default state file chosen; `moveTo` is set when it is where an earlier
 * tenantform kept states and is bound to no tenant yet: the place this
 * scope's state goes, to say how to move it there.
 */
export interface LocatedState {
  path: string;
  moveTo: string | null;
}

const STATE_DIR = '.tenantform';

/** A scope directory name from free text: letters, digits, dots and dashes kept, anything else `_`. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9.-]/g, '_');
}

/** The directory under .tenantform/ of a scope, or null when it has none. */
export function scopeDirectory(scope: StateScope): string | null {
  if (scope.env !== null) return `env-${safeName(scope.env)}`;
  if (scope.target !== null) return safeName(new URL(scope.target).host);
  return null;
}

/** The config's directory and, for a config file, its name. */
function configPlace(configPath: string): { dir: string; file: string | null } {
  const isFile = existsSync(configPath) && statSync(configPath).isFile();
  return isFile ? { dir: dirname(configPath), file: basename(configPath) } : { dir: configPath, file: null };
}

function stateName(file: string | null): string {
  return file === null ? 'state.json' : `${file}.state.json`;
}

/** True when a state (its document or a journal left by a crash) exists at `path`. */
function hasState(path: string): boolean {
  return existsSync(path) || existsSync(`${path}.journal`);
}

/** The API base URL the state at `path` is bound to; null when unbound or unreadable (reading it will say). */
function boundTarget(path: string): string | null {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { tenant?: { api_base?: unknown } };
    return typeof doc.tenant?.api_base === 'string' ? doc.tenant.api_base : null;
  } catch {
    return null;
  }
}

/** The scoped states of this config (any scope), as [scope directory, path], in name order. */
function scopedStates(dir: string, name: string): [string, string][] {
  let entries: string[];
  try {
    entries = readdirSync(join(dir, STATE_DIR)).sort();
  } catch {
    return [];
  }
  return entries
    .map((entry): [string, string] => [entry, join(dir, STATE_DIR, entry, name)])
    .filter(([, path]) => hasState(path));
}

/**
 * The default state file of `configPath` (absolute) for `scope`; see the
 * module comment. Throws RunError STATE_AMBIGUOUS (with the states found)
 * when no target is given and the config has states for several.
 */
export function locateDefaultState(configPath: string, scope: StateScope): LocatedState {
  const { dir, file } = configPlace(configPath);
  const name = stateName(file);
  const unscoped = join(dir, STATE_DIR, name);
  const older = [...new Set([unscoped, join(dir, STATE_DIR, 'state.json')])];
  const scopeDir = scopeDirectory(scope);
  if (scopeDir !== null) {
    const scoped = join(dir, STATE_DIR, scopeDir, name);
    if (hasState(scoped)) return { path: scoped, moveTo: null };
    for (const path of older) {
      if (!hasState(path)) continue;
      const bound = boundTarget(path);
      if (bound !== null && scope.target !== null && bound !== scope.target) continue; // another tenant's
      return { path, moveTo: bound === null ? scoped : null };
    }
    return { path: scoped, moveTo: null };
  }
  const found = [...older.filter(hasState), ...scopedStates(dir, name).map(([, path]) => path)];
  if (found.length === 1) return { path: found[0]!, moveTo: null };
  if (found.length > 1) {
    throw new RunError(
      { code: 'STATE_AMBIGUOUS', configPath, states: found },
      `${configPath} has several states (${found.join(', ')}) and nothing says which to use; ` +
        'give the target, an environment of tenantform.yaml, or the state',
    );
  }
  return { path: unscoped, moveTo: null };
}
