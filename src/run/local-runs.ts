/**
 * What runs the local commands' requests (local-requests.ts) below the
 * command line: the state a state command locates, opened and closed
 * (withLocatedStore, readLocatedState), `state migrate`, the environments
 * `envs` lists, the scaffold `init` writes and the tenants `emulator` starts.
 * Each returns data; src/cli words it.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { Environment, Project } from '../config/project.js';
import type { EmulatorHandle, TenantHandle } from '../emulator/index.js';
import type { MigrateResult } from '../state/pg/index.js';
import type { StateDocument, StateStore } from '../state/types.js';
import type {
  EmulatorRequest,
  EnvsRequest,
  InitRequest,
  LocatedState,
  StateMigrateRequest,
} from './local-requests.js';
import type { RunIO } from './requests.js';
import { absolute, openInputStore, openStore } from './state-store.js';

/** Runs `fn` with the store of the located state open; closes it whatever happens. */
export async function withLocatedStore<T>(
  located: LocatedState,
  io: RunIO,
  fn: (store: StateStore) => Promise<T>,
): Promise<T> {
  const store = await openInputStore(located.state, {}, located.input, io);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The located state as stored, its journal applied (no lock, nothing written, no rescue file). */
export async function readLocatedState(located: LocatedState, io: RunIO): Promise<StateDocument | null> {
  const { readStateSnapshot } = await import('../state/index.js');
  return withLocatedStore(located, io, (store) => readStateSnapshot(store));
}

/** `state migrate`: the copy made, and where from and to (the stores' descriptions). */
export async function migrateStates(
  request: StateMigrateRequest,
  io: RunIO,
): Promise<MigrateResult & { from: string; to: string }> {
  const { migrateState } = await import('../state/pg/index.js');
  const from = await openStore(request.from, '.', io);
  try {
    const to = await openStore(request.to, '.', io);
    try {
      const result = await migrateState(from, to, {
        force: request.force,
        lockTimeoutMs: request.lockTimeoutMs,
      });
      return { ...result, from: from.description, to: to.description };
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

/** True when `file` is `path` or inside it (both absolute). */
function within(file: string, path: string): boolean {
  const rel = relative(path, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The environments a set of changed files affects, in project order. */
export function affectedEnvironments(
  project: Project,
  changed: readonly string[],
  io: Pick<RunIO, 'cwd'>,
): Environment[] {
  const files = changed.map((f) => absolute(f, io));
  const projectFile = absolute(project.file, io);
  if (files.includes(projectFile)) return project.environments;
  return project.environments.filter((env) =>
    files.some(
      (file) =>
        env.paths.some((p) => within(file, absolute(p, io))) ||
        env.varFiles.some((v) => absolute(v, io) === file),
    ),
  );
}

/**
 * `envs`: the project's environments (or those the changed files affect);
 * null when the path holds no project. A broken tenantform.yaml throws its
 * ProjectError.
 */
export async function listEnvironments(
  request: EnvsRequest,
  io: Pick<RunIO, 'cwd'>,
): Promise<Environment[] | null> {
  const { readProject } = await import('../config/project.js');
  const project = readProject(request.path, absolute(request.path, io));
  if (!project) return null;
  return request.changed ? affectedEnvironments(project, request.changed, io) : project.environments;
}

/** One file of the scaffold: a path relative to the target directory (with `/`) and its text. */
export interface ScaffoldFile {
  path: string;
  content: string;
}

/** What `init` did, or why it wrote nothing. */
export type InitOutcome =
  | { kind: 'not-a-directory' }
  /** The config files already below the directory, as the user would write them. */
  | { kind: 'holds-config'; config: string[] }
  | { kind: 'not-files'; paths: string[] }
  | { kind: 'files-exist'; paths: string[] }
  | { kind: 'written'; overwritten: string[] };

/** The config files already below `dir` (as validate and plan would read them), as the user would write them. */
async function configFilesIn(dir: string, io: Pick<RunIO, 'cwd'>): Promise<string[]> {
  const { findConfigFiles, displayPath } = await import('../config/index.js');
  const found = await findConfigFiles([dir], io.cwd, new Set());
  return found.files.map((file) => displayPath(file, io.cwd));
}

/**
 * `init`: writes `files` into the request's directory (created when
 * missing). Without force it writes nothing when the directory already
 * holds config files, or when any of the files exists.
 */
export async function writeScaffold(
  request: InitRequest,
  files: readonly ScaffoldFile[],
  io: Pick<RunIO, 'cwd'>,
): Promise<InitOutcome> {
  const target = request.dir;
  if (existsSync(target) && !statSync(target).isDirectory()) return { kind: 'not-a-directory' };
  const config = existsSync(target) ? await configFilesIn(target, io) : [];
  if (config.length > 0 && !request.force) return { kind: 'holds-config', config };
  const existing = files.filter((f) => existsSync(join(target, f.path))).map((f) => f.path);
  const notFiles = existing.filter((path) => !statSync(join(target, path)).isFile());
  if (notFiles.length > 0) return { kind: 'not-files', paths: notFiles };
  if (existing.length > 0 && !request.force) return { kind: 'files-exist', paths: existing };
  for (const file of files) {
    const path = join(target, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }
  return { kind: 'written', overwritten: existing };
}

/** The tenants an emulator request started: one, or several each on its own port. */
export type StartedEmulator =
  { kind: 'one'; handle: EmulatorHandle } | { kind: 'several'; handles: TenantHandle[] };

/** Starts what the request asks for; `log` takes the emulator's own lines. Throws EmulatorOptionError. */
export async function startEmulators(
  request: EmulatorRequest,
  log: (line: string) => void,
): Promise<StartedEmulator> {
  const { startEmulator, startTenants } = await import('../emulator/index.js');
  const options = { ...request.options, log };
  if (request.tenants) return { kind: 'several', handles: await startTenants(request.tenants, options) };
  return { kind: 'one', handle: await startEmulator(options) };
}
