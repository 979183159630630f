import { describe, expect, it } from 'vitest';
import { liveResource } from '../resources/index.js';
import { exportConfigFiles, MAX_EXPORT_FILE_BYTES } from './export.js';
import { DEFAULT_LIMITS } from './types.js';
import { parseConfigText } from './parse-text.js';
import { formatConfigText } from './format.js';

const live = [
  liveResource(
    'rate_limit_policy',
    {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'default',
      configuration: { limit: 100, action: 'block' },
    },
    'rlp_1',
  ),
  liveResource(
    'rate_limit_policy',
    {
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'client_id:abc',
      configuration: { action: 'redirect', limit: 5, redirect_uri: 'https://example.com/${slow}' },
    },
    'rlp_2',
  ),
  liveResource(
    'user_permission',
    { user_id: 'auth0|2', resource_server_identifier: 'https://api/', permission_name: 'read' },
    null,
  ),
  liveResource(
    'user_permission',
    { user_id: 'auth0|1', resource_server_identifier: 'https://api/', permission_name: 'write' },
    null,
  ),
  liveResource(
    'user_permission',
    { user_id: 'auth0|1', resource_server_identifier: 'https://api/', permission_name: 'read' },
    null,
  ),
  liveResource(
    'token_exchange_profile',
    {
      name: 'Partner',
      subject_token_type: 'urn:partner:token',
      action_id: 'act-1',
      type: 'custom_authentication',
    },
    'tep_1',
  ),
];

describe('exportConfigFiles', () => {
  const files = exportConfigFiles(live, './schemas/config.schema.json');

  it('writes one file per kind, each with the $schema comment, in the canonical layout', () => {
    expect(files.map((f) => [f.name, f.count])).toEqual([
      ['rate-limit-policies.yaml', 2],
      ['user-permissions.yaml', 3],
      ['token-exchange-profiles.yaml', 1],
    ]);
    for (const f of files) {
      expect(f.text.startsWith('# yaml-language-server: $schema=./schemas/config.schema.json\n')).toBe(true);
      expect(formatConfigText(f.text, f.name).text).toBe(f.text);
    }
    expect(files[1]!.text).toBe(
      [
        '# yaml-language-server: $schema=./schemas/config.schema.json',
        'user_permissions:',
        '  - user_id: auth0|1',
        '    permissions:',
        '      - resource_server_identifier: https://api/',
        '        permission_name: read',
        '      - resource_server_identifier: https://api/',
        '        permission_name: write',
        '  - user_id: auth0|2',
        '    permissions:',
        '      - resource_server_identifier: https://api/',
        '        permission_name: read',
        '',
      ].join('\n'),
    );
  });

  it('declares exactly what was read: parsing the files gives back the same resources', () => {
    const parsed = files.flatMap((f) => {
      const result = parseConfigText(f.text, f.name, { vars: {} });
      expect(result.issues).toEqual([]);
      return result.resources;
    });
    const key = (r: { address: string }) => r.address;
    expect(parsed.map((r) => [r.address, r.attributes]).sort()).toEqual(
      live.map((r) => [r.address, r.attributes]).sort(),
    );
    expect(parsed.map(key).length).toBe(live.length);
  });

  it('writes nothing for a tenant with nothing', () => {
    expect(exportConfigFiles([], './schemas/config.schema.json')).toEqual([]);
  });

  it('splits a kind across files under the size limit, each a whole config file (issue 35, item 10)', () => {
    const many = Array.from({ length: 1200 }, (_, i) =>
      liveResource(
        'rate_limit_policy',
        {
          resource: 'oauth_authentication_api',
          consumer: 'client',
          consumer_selector: `client_id:app${String(i).padStart(4, '0')}`,
          configuration: { action: 'block', limit: 100 + i },
        },
        `rlp_${i}`,
      ),
    );
    const split = exportConfigFiles(many, './schemas/config.schema.json', 40_000);
    expect(split.length).toBeGreaterThan(3);
    expect(split.map((f) => f.name).slice(0, 3)).toEqual([
      'rate-limit-policies.yaml',
      'rate-limit-policies-2.yaml',
      'rate-limit-policies-3.yaml',
    ]);
    let parsed = 0;
    for (const f of split) {
      expect(Buffer.byteLength(f.text)).toBeLessThanOrEqual(40_000);
      expect(formatConfigText(f.text, f.name).text).toBe(f.text);
      const result = parseConfigText(f.text, f.name, { vars: {} });
      expect(result.issues).toEqual([]);
      expect(result.resources).toHaveLength(f.count);
      parsed += result.resources.length;
    }
    expect(parsed).toBe(1200);
    // The default leaves room under the limit validate and plan apply to one file.
    expect(MAX_EXPORT_FILE_BYTES).toBeLessThan(DEFAULT_LIMITS.maxFileBytes);
  });
});
