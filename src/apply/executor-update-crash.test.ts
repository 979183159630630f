/**
 * An update acknowledged by the tenant but not recorded (the process dies, or
 * the store fails, between the PATCH and the journal) is repaired by the next
 * run: the state still holds the old attributes, so the next plan is the same
 * update, which sends the same PATCH again; the tenant ends as the config says
 * and the state records it under the same id. Against the emulator over
 * 127.0.0.1, through the real API client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, resolveTarget } from '../api/index.js';
import { startEmulator, type EmulatorHandle } from '../emulator/index.js';
import { planChanges } from '../plan/index.js';
import { formatAddress, operationsFor, rateLimitPolicy, type RecordedResource } from '../resources/index.js';
import type { StateDocument } from '../state/types.js';
import { applyPlan } from './executor.js';
import type { RecordEntry, Recorder } from './types.js';

const identity = ['oauth_authentication_api', 'client', 'default'];
const attrs = (limit: number) => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'default',
  configuration: { action: 'block', limit },
});

let emu: EmulatorHandle;
beforeEach(async () => {
  emu = await startEmulator({ api: 'full' });
});
afterEach(async () => {
  await emu.stop();
});

function client() {
  return createApiClient({
    target: resolveTarget({ baseUrl: emu.baseUrl }, {}),
    credentials: { kind: 'token', token: emu.token },
  });
}

describe('an update acknowledged but not recorded', () => {
  it('is sent again, unchanged, by the next run, which converges', async () => {
    const api = client();
    const create = operationsFor(rateLimitPolicy, 'full').create;
    const made = (await api.call(create, {}, attrs(100))) as { body: { id: string } };
    const id = made.body.id;
    const record: RecordedResource = {
      kind: 'rate_limit_policy',
      address: formatAddress('rate_limit_policy', identity),
      identity,
      attributes: attrs(100),
      id,
    };
    const doc: StateDocument = { format_version: 2, lineage: 'L', serial: 1, resources: [record] };
    const desired = [{ ...record, attributes: attrs(500) }];

    // First run: the tenant takes the PATCH, the recorder fails (as a kill before the journal would).
    const failing: Recorder = {
      record: () => Promise.reject(new Error('disk gone')),
    };
    const first = await applyPlan(planChanges(desired, doc, { api: 'full' }), {
      client: api,
      recorder: failing,
    });
    expect(first.unrecorded.map((u) => u.outcome)).toEqual(['updated']);
    expect(emu.snapshot().rateLimitPolicies[0]!.configuration).toEqual({ action: 'block', limit: 500 });

    // Next run from the same (unchanged) state: the same update, the same PATCH.
    const again = planChanges(desired, doc, { api: 'full' });
    expect(again.changes.map((c) => c.action)).toEqual(['update']);
    const entries: RecordEntry[] = [];
    const before = emu.stats().byRoute['PATCH /api/v2/rate-limit-policies/{id}'];
    const second = await applyPlan(again, {
      client: api,
      recorder: { record: async (e) => void entries.push(e) },
    });
    expect(second.done.map((d) => d.outcome)).toEqual(['updated']);
    expect(emu.stats().byRoute['PATCH /api/v2/rate-limit-policies/{id}']).toBe(before! + 1);
    expect(emu.snapshot().rateLimitPolicies).toEqual([
      expect.objectContaining({ id, configuration: { action: 'block', limit: 500 } }),
    ]);
    expect(entries).toEqual([
      { op: 'put', resource: expect.objectContaining({ id, attributes: attrs(500) }) },
    ]);
    await api.close();
  });
});
