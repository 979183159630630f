/**
 * A tenant whose applications, Action and API have names, and a config that
 * refers to them: the fixture of test/e2e-names.test.ts and of the review
 * screenshot in docs/ci.md (scripts/review-screenshot.mjs).
 */
import type { EmulatorOptions } from '../../src/emulator/index.js';

const mobile = 'Vb4nM7qW0eR3tYuI9oP1aS2d';
const web = 'Kx7pL2mN9bV4cX1zQ8wE5rT6';
const action = '6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c';

export const NAMED_TENANT = {
  mobile,
  web,
  action,
  /** The users the emulator must have (its option `users`). */
  users: ['auth0|alice', 'auth0|bob'],
  /** The config files, the mobile app's limit being `mobileLimit`; Bob reads reports too with `bob`. */
  files(mobileLimit: number, more: { bob?: boolean; profileName?: string } = {}): Record<string, string> {
    const bob = more.bob
      ? `  - user_id: "auth0|bob"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
`
      : '';
    return {
      'policies.yaml': `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 800 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:${mobile}
    configuration: { action: block, limit: ${mobileLimit} }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:${web}
    configuration: { action: log, limit: 400 }
`,
      'permissions.yaml': `user_permissions:
  - user_id: "auth0|alice"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
${bob}`,
      'profiles.yaml': `token_exchange_profiles:
  - name: ${more.profileName ?? 'Partner SSO'}
    subject_token_type: urn:partner:legacy-token
    action_id: ${action}
    type: custom_authentication
`,
    };
  },
};

/** The emulator's seed: the two applications, the Action and the API, with their names. */
export function namedTenantSeed(): NonNullable<EmulatorOptions['seed']> {
  return {
    clients: [
      { client_id: mobile, name: 'Mobile app', app_type: 'native', is_first_party: true },
      { client_id: web, name: 'Customer portal', app_type: 'regular_web', is_first_party: true },
    ],
    actions: [
      {
        id: action,
        name: 'Partner token exchange',
        supported_triggers: [{ id: 'custom-token-exchange', version: 'v1' }],
        all_changes_deployed: true,
        deployed_version: { deployed: true },
      },
    ],
    resourceServers: [
      { identifier: 'https://api.example.com/', name: 'Reports API', scopes: [{ value: 'read:reports' }] },
    ],
  };
}
