import { describe, expect, it } from 'vitest';
import { desired, permission, policy, profile } from '../../test/plan-builders.js';
import type { ReferenceItem, ReferenceRead } from '../resources/index.js';
import { checkReferences, nearMiss, referenceQueries } from './references.js';

const at = (line: number) => ({ file: 'config/x.yaml', line, col: 5 });
const app = (key: string): ReferenceItem => ({ key, attributes: {} });
const boundAction = (key: string, trigger = 'custom-token-exchange'): ReferenceItem => ({
  key,
  attributes: { triggers: [trigger] },
});
const api = (key: string, members: string[], name?: string): ReferenceItem => ({
  key,
  members,
  ...(name ? { name } : {}),
  attributes: {},
});

const read: ReferenceRead = {
  items: {
    client: [app('Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC'), app('batch-partner-sync')],
    action: [boundAction('act-1'), boundAction('act-2', 'post-login')],
    resource_server: [api('https://api.example.com/', ['read:reports', 'write:reports'], 'Reports API')],
  },
};

describe('checkReferences', () => {
  it('passes a config whose every reference names something the tenant has', () => {
    const config = [
      desired('rate_limit_policy', policy('client_id:batch-partner-sync')),
      desired('rate_limit_policy', policy('default')),
      desired('token_exchange_profile', profile('urn:a:b', { action_id: 'act-1' })),
      desired('user_permission', permission('auth0|1', 'https://api.example.com/', 'write:reports')),
    ];
    expect(checkReferences(config, read)).toEqual([]);
  });

  it('names the closest client id for a typo, at the policy’s place in the config', () => {
    const config = [
      desired('rate_limit_policy', policy('client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xD'), at(7)),
    ];
    expect(checkReferences(config, read)).toEqual([
      {
        address: config[0]!.address,
        source: at(7),
        code: 'REFERENCE_UNKNOWN_CLIENT',
        message:
          'consumer_selector client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xD names no application of the tenant; did you mean Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC?',
      },
    ]);
  });

  it('names no id when none is close', () => {
    const config = [desired('rate_limit_policy', policy('client_id:zzzz'))];
    expect(checkReferences(config, read).map((p) => p.message)).toEqual([
      'consumer_selector client_id:zzzz names no application of the tenant',
    ]);
  });

  it('does not check a selector naming a Client ID Metadata Document URL', () => {
    const config = [desired('rate_limit_policy', policy('client_id:https://agent.example/client.json'))];
    expect(checkReferences(config, read)).toEqual([]);
  });

  it.each([
    ['does not exist', 'act-9'],
    ['is bound to another trigger', 'act-2'],
  ])('refuses an action_id that %s', (_case, id) => {
    const config = [desired('token_exchange_profile', profile('urn:a:b', { action_id: id }), at(3))];
    expect(checkReferences(config, read)).toEqual([
      expect.objectContaining({
        source: at(3),
        code: 'REFERENCE_UNKNOWN_ACTION',
        message: expect.stringContaining(
          `action_id ${id} is not a deployed Action bound to the custom-token-exchange trigger`,
        ),
      }),
    ]);
  });

  it('refuses a permission of an API the tenant lacks, and one its API does not define', () => {
    const config = [
      desired(
        'user_permission',
        permission('auth0|1', 'https://billing.example.com/', 'read:invoices'),
        at(4),
      ),
      desired('user_permission', permission('auth0|1', 'https://api.example.com/', 'read:report'), at(6)),
    ];
    expect(checkReferences(config, read)).toEqual([
      expect.objectContaining({
        source: at(4),
        code: 'REFERENCE_UNKNOWN_RESOURCE_SERVER',
        message:
          'resource_server_identifier https://billing.example.com/ names no API (resource server) of the tenant',
      }),
      expect.objectContaining({
        source: at(6),
        code: 'REFERENCE_UNKNOWN_PERMISSION',
        message:
          'permission_name read:report is not a permission of the API https://api.example.com/ (Reports API); did you mean read:reports?',
      }),
    ]);
  });

  it('checks only the lists the read holds', () => {
    const config = [
      desired('rate_limit_policy', policy('client_id:nobody')),
      desired('token_exchange_profile', profile('urn:a:b', { action_id: 'nothing' })),
    ];
    expect(checkReferences(config, { items: { action: [] } }).map((p) => p.code)).toEqual([
      'REFERENCE_UNKNOWN_ACTION',
    ]);
  });
});

describe('referenceQueries', () => {
  it('reads each list the config refers to once, and no other', () => {
    const config = [
      desired('rate_limit_policy', policy('client_id:a')),
      desired('rate_limit_policy', policy('client_id:b')),
      desired('user_permission', permission('auth0|1', 'https://y/', 'p')),
      desired('user_permission', permission('auth0|2', 'https://x/', 'p')),
    ];
    expect(referenceQueries(config).map((q) => [q.list.name, q.queries])).toEqual([
      ['client', [{ fields: 'client_id,name,is_first_party,app_type', include_fields: true }]],
      ['resource_server', [{ identifiers: ['https://x/', 'https://y/'] }]],
    ]);
  });
});

describe('nearMiss', () => {
  it.each([
    ['abcdef', ['abcdeg', 'zzz'], 'abcdeg'],
    ['abcdef', ['zzzzzz'], null],
    ['ab', ['xy'], null],
    ['ab', ['ax'], 'ax'],
    ['x', [], null],
  ])('%s among %o → %s', (input, candidates, expected) => {
    expect(nearMiss(input, candidates)).toBe(expected);
  });
});
