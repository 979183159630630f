/**
 * Issue 29, item 4: a state is trusted only as far as its records can be.
 * The same id on two records, a record whose attributes name another
 * identity than its address, and rescue entries with a malformed identity
 * or empty attributes are refused on every read (file, journal, rescue
 * file), naming each bad record; state list shows them and state rm removes
 * them. Against the emulator: nothing is sent while the state is bad.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { formatAddress } from '../src/resources/index.js';
import type { JournalEntry, StateDocument } from '../src/state/index.js';
import { runCli, tempDir } from './helpers/cli.js';

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };

const policy = (selector: string) =>
  `  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration: { action: block, limit: 100 }\n`;
const addressOf = (selector: string) =>
  formatAddress('rate_limit_policy', ['oauth_authentication_api', 'client', selector]);

const config = () => join(work.dir, 'tenant.yaml');
const statePath = () => join(work.dir, 'state.json');
const readState = () => JSON.parse(readFileSync(statePath(), 'utf8')) as StateDocument;
const writeState = (doc: StateDocument) => writeFileSync(statePath(), JSON.stringify(doc, null, 2));

function cli(args: string[]) {
  return runCli([...args, '--state', statePath()], {
    cwd: work.dir,
    env: { TENANTFORM_TOKEN: emulator.token, TENANTFORM_BASE_URL: emulator.baseUrl },
  });
}

/** Applies policies a and b, then drops b from the config. */
async function appliedTwo(): Promise<StateDocument> {
  writeFileSync(config(), `rate_limit_policies:\n${policy('client_id:a')}${policy('client_id:b')}`);
  const run = await cli(['apply', config(), '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
  writeFileSync(config(), `rate_limit_policies:\n${policy('client_id:a')}`);
  return readState();
}

const idOf = (doc: StateDocument, selector: string) =>
  doc.resources.find((r) => r.address === addressOf(selector))!.id!;

beforeEach(async () => {
  work = tempDir('tenantform-integrity-');
  emulator = await startEmulator();
});
afterEach(async () => {
  await emulator.stop();
  work.cleanup();
});

describe('a state whose records cannot be trusted', () => {
  it("refuses the same id on two records: the delete of b is never sent to a's id", async () => {
    const doc = await appliedTwo();
    const aId = idOf(doc, 'client_id:a');
    writeState({
      ...doc,
      resources: doc.resources.map((r) => (r.address === addressOf('client_id:b') ? { ...r, id: aId } : r)),
    });
    const sent = emulator.requestCount();

    const plan = await cli(['plan', config()]);
    const apply = await cli(['apply', config(), '--auto-approve']);

    for (const run of [plan, apply]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('has 1 record tenantform cannot act on');
      expect(run.stderr).toContain(`${addressOf('client_id:b')}: id "${aId}" is also recorded for`);
      expect(run.stderr).toContain('tenantform state rm');
    }
    expect(emulator.requestCount()).toBe(sent);
    expect(emulator.snapshot().rateLimitPolicies.map((p) => p.id)).toContain(aId);
  });

  it('refuses a record whose attributes name another identity than its address', async () => {
    const doc = await appliedTwo();
    writeState({
      ...doc,
      resources: doc.resources.map((r) =>
        r.address === addressOf('client_id:b')
          ? { ...r, attributes: { ...r.attributes, consumer_selector: 'client_id:a' } }
          : r,
      ),
    });
    const run = await cli(['plan', config()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${addressOf('client_id:b')}: attributes.consumer_selector is "client_id:a" but the address says "client_id:b"`,
    );
  });

  it('refuses a bad record that arrives through the journal, naming the journal', async () => {
    const doc = await appliedTwo();
    const b = doc.resources.find((r) => r.address === addressOf('client_id:b'))!;
    const entry: JournalEntry = {
      v: 1,
      lineage: doc.lineage,
      op: 'put',
      resource: { ...b, attributes: { ...b.attributes, configuration: { action: 'block' } } },
    };
    writeFileSync(`${statePath()}.journal`, JSON.stringify(entry) + '\n');
    const run = await cli(['plan', config()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('with its journal replayed');
    expect(run.stderr).toContain(`${addressOf('client_id:b')}: attributes.configuration`);
  });

  it('lists the bad records, and state rm removes one so that plan works again', async () => {
    const doc = await appliedTwo();
    const aId = idOf(doc, 'client_id:a');
    writeState({
      ...doc,
      resources: doc.resources.map((r) => (r.address === addressOf('client_id:b') ? { ...r, id: aId } : r)),
    });
    const list = await cli(['state', 'list']);
    expect(list.code).toBe(1);
    expect(list.stdout).toContain(
      `${addressOf('client_id:b')}  (${aId}; BAD: id "${aId}" is also recorded for`,
    );

    const rm = await cli(['state', 'rm', addressOf('client_id:b')]);
    expect(rm.code, rm.stderr).toBe(0);
    const plan = await cli(['plan', config(), '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
  });
});

describe('state rescue', () => {
  it.each<[string, (r: Record<string, unknown>) => Record<string, unknown>, string]>([
    [
      'a malformed identity',
      (r) => ({
        ...r,
        identity: ['oauth_authentication_api', 'client'],
        address: 'rate_limit_policy["oauth_authentication_api","client"]',
      }),
      'attributes.consumer_selector is "client_id:b" but the address says undefined',
    ],
    ['empty attributes', (r) => ({ ...r, attributes: {} }), 'attributes.resource is undefined'],
  ])('refuses entries with %s and records nothing', async (_name, edit, problem) => {
    const doc = await appliedTwo();
    const b = doc.resources.find((r) => r.address === addressOf('client_id:b'))!;
    const resource = edit({ ...b, id: 'rlp_fromrescue' });
    const log = join(work.dir, 'ci.log');
    writeFileSync(
      log,
      `tenantform-rescue: ${JSON.stringify({ v: 1, lineage: doc.lineage, op: 'put', resource })}\n`,
    );
    const before = readFileSync(statePath(), 'utf8');

    const run = await cli(['state', 'rescue', log]);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('holds rescue entries tenantform cannot record');
    expect(run.stderr).toContain(problem);
    expect(readFileSync(statePath(), 'utf8')).toBe(before);
  });
});
