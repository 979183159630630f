import { describe, expect, it } from 'vitest';
import { formatAddress, type RecordedResource } from '../resources/index.js';
import { recordIssues, recordProblems } from './integrity.js';

function policyRecord(i: number, configuration: Record<string, unknown>): RecordedResource {
  const identity = ['oauth_authentication_api', 'client', `client_id:c${i}`];
  return {
    kind: 'rate_limit_policy',
    address: formatAddress('rate_limit_policy', identity),
    identity,
    attributes: {
      resource: identity[0],
      consumer: identity[1],
      consumer_selector: identity[2],
      configuration,
    },
    id: `rlp_${String(i).padStart(21, '0')}`,
  };
}

function profileRecord(i: number): RecordedResource {
  const identity = [`urn:example:token:${i}`];
  return {
    kind: 'token_exchange_profile',
    address: formatAddress('token_exchange_profile', identity),
    identity,
    attributes: {
      name: `profile ${i}`,
      subject_token_type: identity[0],
      action_id: `a1b2c3d4-0000-4000-8000-${String(i).padStart(12, '0')}`,
      type: 'custom_authentication',
    },
    id: `tep_${i}`,
  };
}

describe('recordIssues: the config schema checked once per kind', () => {
  it('finds the one record among many that the schema refuses, with the words of its own check', () => {
    const bad = policyRecord(7, { action: 'block', limit: -5 });
    const records = [
      ...Array.from({ length: 50 }, (_, i) => policyRecord(i === 7 ? 1000 : i, { action: 'log', limit: 10 })),
      bad,
      ...Array.from({ length: 5 }, (_, i) => profileRecord(i)),
    ];
    const issues = recordIssues(records);
    expect(recordProblems(bad).length).toBeGreaterThan(0);
    expect(issues).toEqual(recordProblems(bad).map((problem) => ({ address: bad.address, problem })));
  });

  it('finds a refused record in any batch of a large state, and accepts one of good records', () => {
    const good = Array.from({ length: 600 }, (_, i) => policyRecord(i, { action: 'log', limit: 10 }));
    expect(recordIssues(good)).toEqual([]);
    for (const at of [0, 255, 256, 599]) {
      const bad = policyRecord(at, { action: 'block', limit: -5 });
      const records = good.map((r, i) => (i === at ? bad : r));
      expect(recordIssues(records).map((i) => i.address)).toEqual(recordProblems(bad).map(() => bad.address));
    }
  });

  it('names both records that carry one id, per kind', () => {
    const a = policyRecord(1, { action: 'log', limit: 10 });
    const b = { ...policyRecord(2, { action: 'log', limit: 10 }), id: a.id };
    const profile = { ...profileRecord(1), id: 'tep_1' };
    const other = { ...profileRecord(2), id: 'tep_1' };
    expect(recordIssues([a, b, profile, other])).toEqual([
      { address: b.address, problem: `id "${a.id}" is also recorded for ${a.address}` },
      { address: other.address, problem: `id "tep_1" is also recorded for ${profile.address}` },
    ]);
  });

  it('still checks the identity of records whose kind passed the schema as a whole', () => {
    const good = policyRecord(1, { action: 'log', limit: 10 });
    const identity = ['oauth_authentication_api', 'client', 'client_id:c9'];
    // Its attributes name client c2, its identity and address client c9.
    const moved = {
      ...policyRecord(2, { action: 'log', limit: 10 }),
      identity,
      address: formatAddress('rate_limit_policy', identity),
    };
    const issues = recordIssues([good, moved]);
    expect(issues.map((i) => i.address)).toEqual([moved.address]);
    expect(issues[0]!.problem).toMatch(/but the address says/);
  });
});
