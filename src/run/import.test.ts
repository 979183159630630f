/**
 * runImport (src/run/import.ts): a typed request in, what it recorded out
 * (or a RunError with its code), against the emulator over 127.0.0.1 and a
 * file state in a temporary directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { problemOf, runBench } from '../../test/helpers/run-emulator.js';
import { runImport } from './import.js';
import type { ImportRequest } from './read-requests.js';
import type { RunEvent } from './view.js';

const ADDRESS = 'rate_limit_policy["oauth_authentication_api","client","default"]';
const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: log, limit: 10 }
`;

const bench = runBench('tenantform-run-import-');
const { io, connection } = bench;
beforeEach(() => {
  mkdirSync(join(bench.work.dir, 'config'));
  writeFileSync(join(bench.work.dir, 'config', 'p.yaml'), POLICY);
});

function request(how: ImportRequest['how'], overrides: Partial<ImportRequest> = {}): ImportRequest {
  return {
    address: ADDRESS,
    kind: 'rate_limit_policy',
    how,
    input: { env: null, paths: ['config'], varFiles: [] },
    configPath: 'config',
    state: { file: 'state.json' },
    lockTimeoutMs: 0,
    connection: connection(),
    api: 'full',
    ...overrides,
  };
}

function recorded(): { address: string; id: string | null; adopted?: boolean; attributes: object }[] {
  const file = join(bench.work.dir, 'state.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { resources: [] }).resources : [];
}

/** A view that keeps what the run tells. */
function events() {
  const told: RunEvent[] = [];
  return { told, view: { event: (e: RunEvent) => void told.push(e) } };
}

/** Creates the config's policy on the tenant, as another client would; its id. */
async function createOnTenant(limit = 55): Promise<string> {
  const res = await fetch(`${bench.emulator.baseUrl}/rate-limit-policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bench.emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'default',
      configuration: { action: 'log', limit },
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('runImport', () => {
  it('attach: records the id with the config attributes, adopted, and sends nothing; again: unchanged', async () => {
    const id = 'rlp_000000000000000000001';
    const { view, told } = events();
    const first = await runImport(request({ kind: 'attach', id, vars: {} }), io(), view);
    expect(first).toEqual({
      status: 'attached',
      address: ADDRESS,
      id,
      unverified: 'no read operation exists',
    });
    expect(recorded()).toMatchObject([
      { address: ADDRESS, id, adopted: true, attributes: { configuration: { limit: 10 } } },
    ]);
    const again = await runImport(request({ kind: 'attach', id, vars: {} }), io(), view);
    expect(again).toEqual({ status: 'unchanged', address: ADDRESS, id });
    expect(told).toEqual([]);
    expect(bench.emulator.stats().requests).toBe(0);
  });

  it('attach with a config that has problems: told to the view, nothing recorded', async () => {
    writeFileSync(join(bench.work.dir, 'config', 'p.yaml'), POLICY.replace('limit: 10', 'limit: 99999'));
    const { view, told } = events();
    const result = await runImport(request({ kind: 'attach', id: 'rlp_1', vars: {} }), io(), view);
    expect(result).toEqual({ status: 'config-invalid' });
    expect(told.map((e) => e.kind)).toEqual(['config-issues']);
    expect(existsSync(join(bench.work.dir, 'state.json'))).toBe(false);
  });

  it('attach to an address neither recorded nor declared: IMPORT_UNKNOWN', async () => {
    const other = 'rate_limit_policy["oauth_authentication_api","client","third_party_clients"]';
    const run = runImport(
      request({ kind: 'attach', id: 'rlp_1', vars: {} }, { address: other }),
      io(),
      events().view,
    );
    expect(await problemOf(run)).toEqual({ code: 'IMPORT_UNKNOWN', address: other, configPath: 'config' });
    expect(recorded()).toEqual([]);
  });

  it('look-up: the id and live settings found by identity; none on the tenant: IMPORT_NOT_ON_TENANT', async () => {
    const missing = runImport(request({ kind: 'look-up' }), io(), events().view);
    expect(await problemOf(missing)).toEqual({
      code: 'IMPORT_NOT_ON_TENANT',
      title: 'rate limit policy',
      address: ADDRESS,
    });
    const id = await createOnTenant();
    const result = await runImport(request({ kind: 'look-up' }), io(), events().view);
    expect(result).toEqual({ status: 'imported', address: ADDRESS, id, how: 'look-up' });
    expect(recorded()).toMatchObject([
      { address: ADDRESS, id, attributes: { configuration: { limit: 55 } } },
    ]);
  });

  it('read: by its id; an id the tenant lacks is IMPORT_ID_UNKNOWN, one of another resource IMPORT_ID_OTHER', async () => {
    const id = await createOnTenant();
    const unknown = runImport(
      request({ kind: 'read', id: 'rlp_000000000000000000009' }),
      io(),
      events().view,
    );
    expect(await problemOf(unknown)).toMatchObject({ code: 'IMPORT_ID_UNKNOWN', status: 404 });
    const other = 'rate_limit_policy["oauth_authentication_api","client","third_party_clients"]';
    const wrong = runImport(request({ kind: 'read', id }, { address: other }), io(), events().view);
    expect(await problemOf(wrong)).toEqual({ code: 'IMPORT_ID_OTHER', id, found: ADDRESS, address: other });
    expect(recorded()).toEqual([]);
    const result = await runImport(request({ kind: 'read', id }), io(), events().view);
    expect(result).toEqual({ status: 'imported', address: ADDRESS, id, how: 'read' });
    expect(recorded()).toMatchObject([{ address: ADDRESS, id }]);
  });
});
