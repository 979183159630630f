import { describe, expect, it } from 'vitest';
import { idProblem, isKindId } from './check.js';
import { KINDS } from './kinds.js';
import { rateLimitPolicy } from './rate-limit-policy.js';
import { tokenExchangeProfile } from './token-exchange-profile.js';
import { userPermission } from './user-permission.js';

describe('a kind’s server id, as its create answer’s schema shapes it', () => {
  it.each([
    [rateLimitPolicy, 'rlp_abc123', true],
    [rateLimitPolicy, `rlp_${'a'.repeat(23)}`, false], // the schema caps the length at 26
    [rateLimitPolicy, 'tep_abc123', false],
    [tokenExchangeProfile, 'tep_abc123', true],
    [tokenExchangeProfile, 'rlp_abc123', false],
    [userPermission, 'anything', false],
  ] as const)('%#: %s', (kind, id, ok) => {
    expect(isKindId(kind, id)).toBe(ok);
  });

  it.each(KINDS.filter((k) => k.id !== null).map((k) => [k.name, k] as const))(
    '%s: its create answer has a schema that says what an id looks like',
    (_name, kind) => {
      expect(kind.operations.create.response).toBeDefined();
      expect(isKindId(kind, '')).toBe(false);
      expect(idProblem(kind, 'x y')).toContain(`is not a ${kind.title.one} id`);
    },
  );
});
