/**
 * runExport and checkExportTarget (src/run/export.ts): a typed request in,
 * what it read, wrote and recorded out (or a RunError with its code), with a
 * fake view; the tenant is the emulator over 127.0.0.1.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { problemOf, runBench } from '../../test/helpers/run-emulator.js';
import { checkExportTarget, runExport, type ExportEvent, type ExportView } from './export.js';
import type { ExportRequest } from './read-requests.js';

const PEERS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'peers');
const TFSTATE = join(PEERS, 'terraform', 'terraform.tfstate');

const bench = runBench('tenantform-run-export-');
const { io, connection } = bench;

function request(source: ExportRequest['source'], overrides: Partial<ExportRequest> = {}): ExportRequest {
  return {
    dir: 'out',
    source,
    state: { file: 'state.json' },
    lockTimeoutMs: 0,
    connection: connection(),
    api: 'full',
    parallelism: 2,
    ...overrides,
  };
}

/** A view that keeps what the run tells, and hands it one schema file. */
function fakeView() {
  const told: ExportEvent[] = [];
  const view: ExportView = {
    event: (e) => void told.push(e),
    schemaFiles: () => Promise.resolve([{ path: 'schemas/config.schema.json', content: '{}' }]),
  };
  return { view, told };
}

const recorded = () =>
  (
    JSON.parse(readFileSync(join(bench.work.dir, 'state.json'), 'utf8')) as {
      resources: { id: string | null }[];
    }
  ).resources;

describe('runExport', () => {
  it('from a Terraform state: tells what it read, writes the files and schemas, records every resource with its id', async () => {
    const { view, told } = fakeView();
    const result = await runExport(request({ kind: 'terraform', file: TFSTATE }), io(), view);
    expect(result.status).toBe('recorded');
    if (result.status !== 'recorded') return;
    expect(result.source.origin.kind).toBe('terraform');
    expect(result.state).toContain('state.json');
    expect(told.map((e) => e.kind)).toEqual(['source-read', 'files-written']);
    const written = told[1]!.kind === 'files-written' ? told[1]!.files : [];
    expect(written.reduce((n, f) => n + f.count, 0)).toBe(result.source.resources.length);
    expect(readdirSync(join(bench.work.dir, 'out')).sort()).toEqual(
      [...written.map((f) => f.name), 'schemas'].sort(),
    );
    expect(readFileSync(join(bench.work.dir, 'out', 'schemas', 'config.schema.json'), 'utf8')).toBe('{}');
    expect(recorded()).toHaveLength(result.source.records.length);
    expect(recorded().some((r) => r.id !== null)).toBe(true);
    expect(bench.emulator.stats().requests).toBe(0);
  });

  it('without a state: the files only', async () => {
    const result = await runExport(
      request({ kind: 'terraform', file: TFSTATE }, { state: null }),
      io(),
      fakeView().view,
    );
    expect(result.status).toBe('written');
    expect(existsSync(join(bench.work.dir, 'state.json'))).toBe(false);
  });

  it("a peer's file with problems: told as config issues, nothing written", async () => {
    writeFileSync(join(bench.work.dir, 'broken.tfstate'), 'not json');
    const { view, told } = fakeView();
    const result = await runExport(request({ kind: 'terraform', file: 'broken.tfstate' }), io(), view);
    expect(result).toEqual({ status: 'source-invalid' });
    expect(told.map((e) => e.kind)).toEqual(['config-issues']);
    expect(existsSync(join(bench.work.dir, 'out'))).toBe(false);
  });

  it("a peer's file that cannot be read, or holds nothing tenantform manages: PEER_FILE_UNREADABLE, PEER_SOURCE_EMPTY", async () => {
    const missing = runExport(request({ kind: 'terraform', file: 'no.tfstate' }), io(), fakeView().view);
    expect(await problemOf(missing)).toEqual({
      code: 'PEER_FILE_UNREADABLE',
      peer: 'terraform',
      path: 'no.tfstate',
      reason: 'no such file',
    });
    const dir = runExport(
      request({ kind: 'deploy-cli', path: 'nodir', actionIds: new Map() }),
      io(),
      fakeView().view,
    );
    expect(await problemOf(dir)).toMatchObject({ code: 'PEER_FILE_UNREADABLE', peer: 'deploy-cli' });
    writeFileSync(join(bench.work.dir, 'empty.yaml'), 'tenant: {}\n');
    const empty = runExport(
      request({ kind: 'deploy-cli', path: 'empty.yaml', actionIds: new Map() }),
      io(),
      fakeView().view,
    );
    expect(await problemOf(empty)).toMatchObject({ code: 'PEER_SOURCE_EMPTY', peer: 'deploy-cli' });
    expect(existsSync(join(bench.work.dir, 'out'))).toBe(false);
  });

  it('from the tenant (full): reads it through the emulator and records what it read', async () => {
    const { view } = fakeView();
    const result = await runExport(request({ kind: 'tenant', users: [] }), io(), view);
    expect(result.status).toBe('recorded');
    expect(result.status === 'recorded' && result.source.origin.kind).toBe('tenant');
    expect(bench.emulator.stats().requests).toBeGreaterThan(0);
  });
});

describe('checkExportTarget', () => {
  it('refuses a directory holding config unless forced; a missing or empty one passes', async () => {
    await checkExportTarget('out', false, io());
    mkdirSync(join(bench.work.dir, 'out'));
    await checkExportTarget('out', false, io());
    writeFileSync(join(bench.work.dir, 'out', 'rate-limit-policies.yaml'), 'rate_limit_policies: []\n');
    writeFileSync(join(bench.work.dir, 'out', 'mine.yaml'), 'rate_limit_policies: []\n');
    expect(await problemOf(checkExportTarget('out', false, io()))).toEqual({
      code: 'EXPORT_TARGET_HOLDS_CONFIG',
      dir: 'out',
      overwritten: ['rate-limit-policies.yaml'],
      others: ['out/mine.yaml'],
    });
    await checkExportTarget('out', true, io());
  });
});
