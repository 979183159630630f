/**
 * An export request run: the source read (the tenant, a Terraform state or
 * a Deploy CLI export: export-sources.ts), its resources written into the
 * directory as config files (one per kind, with the $schema comment, the
 * schemas copied beside them when missing), then recorded in the state the
 * request names, under its lock, so that `validate` passes and `plan` has
 * nothing to do right after. Nothing is written when the source has a
 * problem. The events and the result are data; src/cli words them.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KINDS } from '../resources/index.js';
import { RunError } from './errors.js';
import { exportInput, type ExportSource, type IssuesView } from './export-source.js';
import { withLockedState } from './locked-state.js';
import type { ExportRequest } from './read-requests.js';
import type { RunIO, StateRequest } from './requests.js';
import { absolute, openStore, stateScopeOf } from './state-store.js';
import { guardTenant } from './tenant-binding.js';

export type { ExportOrigin, ExportSource } from './export-source.js';

const SCHEMA_PATH = './schemas/config.schema.json';

/** One config file written: its name in the directory and how many resources it declares. */
export interface ExportedFile {
  name: string;
  count: number;
}

/** What an export tells on the way: a peer's problems (nothing written), the source read, the files written. */
export type ExportEvent =
  | Parameters<IssuesView['event']>[0]
  | { kind: 'source-read'; source: ExportSource }
  | { kind: 'files-written'; source: ExportSource; files: readonly ExportedFile[] };

/** What an export tells, and the schema files it copies beside the config (src/cli has them: init's). */
export interface ExportView {
  event(event: ExportEvent): void;
  schemaFiles(): Promise<readonly { path: string; content: string }[]>;
}

/** How an export ended: written and recorded (in `state`, described), written only (no state), or stopped (told). */
export type ExportResult =
  | { status: 'source-invalid' }
  | { status: 'written'; source: ExportSource }
  | { status: 'recorded'; source: ExportSource; state: string };

/**
 * Refuses, unless `force`, a directory that already holds config: files of
 * the names export writes would be overwritten, and any other config file
 * would join the exported one (as init refuses, the next validate would find
 * every resource declared twice). Looked at before anything else.
 */
export async function checkExportTarget(
  dirArg: string,
  force: boolean,
  io: Pick<RunIO, 'cwd'>,
): Promise<void> {
  const dir = absolute(dirArg, io);
  if (force || !existsSync(dir)) return;
  const names = KINDS.map((kind) => kind.config.file);
  const same = names.filter((name) => existsSync(join(dir, name)));
  const { findConfigFiles, displayPath } = await import('../config/index.js');
  const found = await findConfigFiles([dir], io.cwd, new Set());
  const others = found.files
    .map((file) => displayPath(file, io.cwd))
    .filter((f) => !same.some((n) => f.endsWith(n)));
  if (same.length === 0 && others.length === 0) return;
  throw new RunError(
    { code: 'EXPORT_TARGET_HOLDS_CONFIG', dir: dirArg, overwritten: same, others },
    `${dirArg} already holds config; nothing was written`,
  );
}

/** Writes the config files (and the schemas beside them when missing); the files written. */
async function writeFiles(dir: string, source: ExportSource, view: ExportView): Promise<ExportedFile[]> {
  const { exportConfigFiles } = await import('../config/index.js');
  const files = exportConfigFiles(source.resources, SCHEMA_PATH);
  mkdirSync(dir, { recursive: true });
  for (const file of files) writeFileSync(join(dir, file.name), file.text);
  if (!existsSync(join(dir, 'schemas', 'config.schema.json'))) {
    mkdirSync(join(dir, 'schemas'), { recursive: true });
    for (const s of await view.schemaFiles()) writeFileSync(join(dir, s.path), s.content);
  }
  return files.map((f) => ({ name: f.name, count: f.count }));
}

/** Records the source's resources in the state the request names, under its lock; the state's description. */
async function record(
  request: ExportRequest,
  state: StateRequest,
  source: ExportSource,
  io: RunIO,
): Promise<string> {
  const { dir, connection } = request;
  const input = exportInput(request);
  const scope = await stateScopeOf(input, connection.named, io);
  const store = await openStore(state, dir, io, scope);
  const tenant = { ...connection.named, reassignTenant: connection.reassignTenant };
  try {
    const lock = { lockTimeoutMs: request.lockTimeoutMs };
    await withLockedState(store, 'export', lock, io, async (session) => {
      await guardTenant(session, { store, input, io, command: 'export' }, tenant, true);
      // One write of the whole document, not a journal entry per resource: an export of
      // 60,000 resources would otherwise wait for 60,000 fsyncs.
      const byAddress = new Map(session.doc.resources.map((r) => [r.address, r]));
      for (const resource of source.records) byAddress.set(resource.address, resource);
      await session.replace({ ...session.doc, resources: [...byAddress.values()] });
    });
    return store.description;
  } finally {
    await store.close();
  }
}

/** Runs an export request: the source read, the files written, the resources recorded. */
export async function runExport(request: ExportRequest, io: RunIO, view: ExportView): Promise<ExportResult> {
  const { readExportSource } = await import('./export-sources.js');
  const source = await readExportSource(request, io, view);
  if (source === null) return { status: 'source-invalid' };
  view.event({ kind: 'source-read', source });
  const files = await writeFiles(absolute(request.dir, io), source, view);
  view.event({ kind: 'files-written', source, files });
  if (request.state === null) return { status: 'written', source };
  return { status: 'recorded', source, state: await record(request, request.state, source, io) };
}
