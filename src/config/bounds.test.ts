import { describe, expect, it } from 'vitest';
import { check, lines, marked } from '../../test/validate-helpers.js';

/**
 * Every bound of the spec's Limits table and every enum and variant rule, as
 * written in a config file: at the bound passes, one past fails, a wrong type
 * fails, and the failure points at the value ("@@" in the template).
 */

const policy = (selector: string, configuration: string) =>
  `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: ${configuration}
`;

const profile = (fields: { name?: string; stt?: string; actionId?: string; type?: string }) =>
  `token_exchange_profiles:
  - name: ${fields.name ?? 'Partner SSO'}
    subject_token_type: ${fields.stt ?? 'urn:partner:legacy-token'}
    action_id: ${fields.actionId ?? '6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c'}
    type: ${fields.type ?? 'custom_authentication'}
`;

const permissions = (list: string) =>
  `user_permissions:
  - user_id: "auth0|5f7c8ec7c33c6c004bbafe82"
    permissions: ${list}
`;

const ONE_PERMISSION =
  '[{ resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }]';

type Case = [title: string, template: string, message: string | null];

function expectCase(template: string, message: string | null): void {
  if (message === null) {
    const result = check(template);
    expect(lines(result)).toEqual([]);
    expect(result.desired.length).toBeGreaterThan(0);
    return;
  }
  const { text, line, col } = marked(template);
  expect(lines(check(text))).toContain(`${line}:${col}: ${message}`);
}

const limitCases: Case[] = (['block', 'log', 'redirect'] as const).flatMap((action): Case[] => {
  const extra = action === 'redirect' ? ', redirect_uri: "https://example.com/slow"' : '';
  const conf = (limit: string) => policy('default', `{ action: ${action}, limit: ${limit}${extra} }`);
  return [
    [`${action}: limit 0 passes`, conf('0'), null],
    [`${action}: limit 10000 passes`, conf('10000'), null],
    [`${action}: limit -1 fails`, conf('@@-1'), 'limit must be at least 0'],
    [`${action}: limit 10001 fails`, conf('@@10001'), 'limit must be at most 10000'],
    [`${action}: limit as a quoted string fails`, conf('@@"10"'), 'limit must be a whole number'],
    [`${action}: limit 2.5 fails`, conf('@@2.5'), 'limit must be a whole number'],
  ];
});

const selectorCases: Case[] = [
  [
    'consumer_selector of 255 characters passes',
    policy(`client_id:${'a'.repeat(245)}`, '{ action: allow }'),
    null,
  ],
  [
    'consumer_selector of 256 characters fails',
    policy(`@@client_id:${'a'.repeat(246)}`, '{ action: allow }'),
    'consumer_selector must be at most 255 characters long',
  ],
  [
    'consumer_selector as a number fails',
    policy('@@255', '{ action: allow }'),
    'consumer_selector must be a string',
  ],
  ...[
    'client_id:abc123',
    'client_id:https://cimd.example.com/client.json',
    'cimd_clients',
    'third_party_clients',
    'default',
  ].map((form): Case => [`consumer_selector form ${form} passes`, policy(form, '{ action: allow }'), null]),
  ...['client:abc', 'client_id:http://cimd.example.com/c.json', 'all', '"client_id:"'].map((form): Case => [
    `consumer_selector form ${form} fails`,
    policy(`@@${form}`, '{ action: allow }'),
    'consumer_selector must be client_id:<client_id>, client_id:<https CIMD URI>, cimd_clients, third_party_clients or default',
  ]),
  ...(
    [
      [
        'a Cyrillic look-alike',
        '"d\u0435fault"',
        'U+0435 "е" at character 2, a non-ASCII letter that may look like a Latin one',
      ],
      [
        'a no-break space',
        '"client_id:abc\u00a0"',
        'U+00A0 at character 14, a non-ASCII space (such as a no-break space)',
      ],
      [
        'a zero-width space',
        '"client_id:ab\u200bc"',
        'U+200B at character 13, an invisible (zero-width) character',
      ],
      [
        'a zero-width joiner in a CIMD URI',
        '"client_id:https://cimd.example.com/\u200dc.json"',
        'U+200D at character 36, an invisible (zero-width) character',
      ],
    ] as const
  ).map(([what, selector, named]): Case => [
    `consumer_selector with ${what} fails, naming the character`,
    policy(`@@${selector}`, '{ action: allow }'),
    `consumer_selector has ${named}; it must be client_id:<client_id>, client_id:<https CIMD URI>, cimd_clients, third_party_clients or default`,
  ]),
];

const redirectCases: Case[] = [
  [
    'redirect_uri https passes',
    policy('default', '{ action: redirect, limit: 1, redirect_uri: "https://example.com/x" }'),
    null,
  ],
  [
    'redirect_uri http fails',
    policy('default', '{ action: redirect, limit: 1, redirect_uri: @@"http://example.com/x" }'),
    'redirect_uri must be an absolute https:// URI (http and other schemes are refused)',
  ],
  [
    'redirect_uri without a host fails',
    policy('default', '{ action: redirect, limit: 1, redirect_uri: @@"https:///path" }'),
    'redirect_uri has no host: write https://HOST/path',
  ],
  [
    'redirect_uri with a user and password fails, saying so',
    policy('default', '{ action: redirect, limit: 1, redirect_uri: @@"https://user:pw@example.com/x" }'),
    'redirect_uri must not hold a user name or password (user:password@ before the host): a redirect URI is public',
  ],
  [
    'redirect_uri of 2048 characters passes',
    policy(
      'default',
      `{ action: redirect, limit: 1, redirect_uri: "https://example.com/${'x'.repeat(2028)}" }`,
    ),
    null,
  ],
  [
    'redirect_uri of 2049 characters fails, saying so',
    policy(
      'default',
      `{ action: redirect, limit: 1, redirect_uri: @@"https://example.com/${'x'.repeat(2029)}" }`,
    ),
    'redirect_uri is 2049 characters long; at most 2048 are allowed',
  ],
  [
    'redirect_uri as a number fails',
    policy('default', '{ action: redirect, limit: 1, redirect_uri: @@8443 }'),
    'redirect_uri must be a string',
  ],
];

const enumAndVariantCases: Case[] = [
  ['resource oauth_authentication_api passes', policy('default', '{ action: allow }'), null],
  [
    'another resource fails',
    policy('default', '{ action: allow }').replace(
      'resource: oauth_authentication_api',
      'resource: @@management_api',
    ),
    'resource must be one of: oauth_authentication_api',
  ],
  [
    'consumer other than client fails',
    policy('default', '{ action: allow }').replace('consumer: client', 'consumer: @@user'),
    'consumer must be one of: client',
  ],
  ['action allow without limit passes', policy('default', '{ action: allow }'), null],
  [
    'action allow with a limit fails',
    policy('default', '{ action: allow, @@limit: 5 }'),
    'unknown property "limit" for action allow; allowed: action',
  ],
  [
    'action block without limit fails',
    policy('default', '@@{ action: block }'),
    'missing required property "limit" for action block',
  ],
  [
    'action log without limit fails',
    policy('default', '@@{ action: log }'),
    'missing required property "limit" for action log',
  ],
  [
    'action redirect without redirect_uri fails',
    policy('default', '@@{ action: redirect, limit: 5 }'),
    'missing required property "redirect_uri" for action redirect',
  ],
  [
    'action block with a redirect_uri fails',
    policy('default', '{ action: block, limit: 5, @@redirect_uri: "https://example.com/" }'),
    'unknown property "redirect_uri" for action block; allowed: action, limit',
  ],
  [
    'an unknown action fails',
    policy('default', '{ action: @@throttle, limit: 5 }'),
    'action must be one of: allow, block, log, redirect',
  ],
  ['a missing action fails', policy('default', '@@{ limit: 5 }'), 'missing required property "action"'],
  [
    'a policy id (server-assigned, max 26) is refused in config',
    policy('default', '{ action: allow }') + '    @@id: rlp_abc\n',
    'unknown property "id" in a rate limit policy; allowed: resource, consumer, consumer_selector, configuration',
  ],
  ['type custom_authentication passes', profile({}), null],
  ['another type fails', profile({ type: '@@custom' }), 'type must be one of: custom_authentication'],
];

const profileCases: Case[] = [
  ['name of 3 characters passes', profile({ name: 'abc' }), null],
  ['name of 50 characters passes', profile({ name: 'n'.repeat(50) }), null],
  ['name of 2 characters fails', profile({ name: '@@ab' }), 'name must be at least 3 characters long'],
  [
    'name of 51 characters fails',
    profile({ name: '@@' + 'n'.repeat(51) }),
    'name must be at most 50 characters long',
  ],
  ['name as a number fails', profile({ name: '@@12345' }), 'name must be a string'],
  ['subject_token_type of 8 characters passes', profile({ stt: 'urn:a:bc' }), null],
  ['subject_token_type of 100 characters passes', profile({ stt: 'urn:a:' + 'b'.repeat(94) }), null],
  [
    'subject_token_type of 7 characters fails',
    profile({ stt: '@@urn:a:b' }),
    'subject_token_type must be at least 8 characters long',
  ],
  [
    'subject_token_type of 101 characters fails',
    profile({ stt: '@@urn:a:' + 'b'.repeat(95) }),
    'subject_token_type must be at most 100 characters long',
  ],
  [
    'subject_token_type that is not a URI fails',
    profile({ stt: '@@"legacy token type"' }),
    'subject_token_type must be an absolute URI (for example urn:example:token or https://example.com/token)',
  ],
  [
    'subject_token_type as a number fails',
    profile({ stt: '@@123456789' }),
    'subject_token_type must be a string',
  ],
  ['action_id of 1 character passes', profile({ actionId: 'a' }), null],
  ['action_id of 36 characters passes', profile({ actionId: 'a'.repeat(36) }), null],
  [
    'action_id of 0 characters fails',
    profile({ actionId: '@@""' }),
    'action_id must be at least 1 character long',
  ],
  [
    'action_id of 37 characters fails',
    profile({ actionId: '@@' + 'a'.repeat(37) }),
    'action_id must be at most 36 characters long',
  ],
  ['action_id as a number fails', profile({ actionId: '@@42' }), 'action_id must be a string'],
  ['type of 21 characters (custom_authentication) passes', profile({ type: 'custom_authentication' }), null],
  [
    'type of 22 characters fails',
    profile({ type: '@@custom_authentication_' }),
    'type must be at most 21 characters long',
  ],
  ['type of 0 characters fails', profile({ type: '@@""' }), 'type must be at least 1 character long'],
  ['type as a number fails', profile({ type: '@@1' }), 'type must be a string'],
];

const permissionCases: Case[] = [
  ['permissions with 1 item passes', permissions(ONE_PERMISSION), null],
  ['permissions with 0 items fails', permissions('@@[]'), 'permissions must list at least 1 item'],
  ['permissions as a string fails', permissions('@@"read:reports"'), 'permissions must be a list'],
  [
    'a permission item without permission_name fails',
    permissions('[@@{ resource_server_identifier: "https://api.example.com/" }]'),
    'missing required property "permission_name"',
  ],
  [
    'an empty resource_server_identifier fails',
    permissions('[{ resource_server_identifier: @@"", permission_name: "read:reports" }]'),
    'resource_server_identifier must be at least 1 character long',
  ],
  [
    'a permission_name that is a number fails',
    permissions('[{ resource_server_identifier: "https://api.example.com/", permission_name: @@7 }]'),
    'permission_name must be a string',
  ],
];

describe('spec bounds in config files', () => {
  it.each(limitCases)('%s', (_title, template, message) => expectCase(template, message));
  it.each(selectorCases)('%s', (_title, template, message) => expectCase(template, message));
  it.each(redirectCases)('%s', (_title, template, message) => expectCase(template, message));
  it.each(enumAndVariantCases)('%s', (_title, template, message) => expectCase(template, message));
  it.each(profileCases)('%s', (_title, template, message) => expectCase(template, message));
  it.each(permissionCases)('%s', (_title, template, message) => expectCase(template, message));
});
