/** Fixtures and helpers shared by the StateStore contract and the state tests. */
import { expect } from 'vitest';
import { formatAddress, type RecordedResource } from '../../src/resources/index.js';
import { StateError } from '../../src/state/errors.js';
import { openState } from '../../src/state/session.js';
import {
  STATE_FORMAT_VERSION,
  type JournalEntry,
  type LockInfo,
  type StateDocument,
  type StateStore,
} from '../../src/state/types.js';

export const LINEAGE = 'contract-lineage-a';

export function profile(n: number, id: string | null = `tep_${n}`): RecordedResource {
  const type = `urn:example:token:${String(n).padStart(4, '0')}`;
  return {
    kind: 'token_exchange_profile',
    address: formatAddress('token_exchange_profile', [type]),
    identity: [type],
    attributes: {
      name: `profile ${n}`,
      subject_token_type: type,
      action_id: 'act_1',
      type: 'custom_authentication',
    },
    id,
  };
}

export function stateDoc(
  serial: number,
  resources: RecordedResource[] = [],
  lineage = LINEAGE,
): StateDocument {
  return { format_version: STATE_FORMAT_VERSION, lineage, serial, resources };
}

export function putEntry(resource: RecordedResource, lineage = LINEAGE): JournalEntry {
  return { v: 1, lineage, op: 'put', resource };
}

export const open = (store: StateStore, command = 'apply') =>
  openState(store, { command, host: 'ci-7', pid: 4242, lineage: () => LINEAGE });

export const holderInfo = (command: string): Omit<LockInfo, 'id'> => ({
  pid: 4242,
  host: 'ci-7',
  command,
  since: '2026-11-21T10:00:00.000Z',
});

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

export async function stateCode(promise: Promise<unknown>): Promise<string> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(StateError);
  return (err as StateError).code;
}
