import { createdFields } from './rate-limit-policy.js';
import type { OperationDescriptor } from './operations.js';
import type { Attributes, KindModule } from './types.js';

/**
 * Token exchange profiles: created by POST; the API has no update or delete,
 * so a change is blocked and a removal is a forget. Attributes are the create
 * request body {name, subject_token_type, action_id, type}.
 */

const create: OperationDescriptor = {
  name: 'createTokenExchangeProfile',
  method: 'POST',
  path: '/token-exchange-profiles',
  params: {},
  scope: 'create:token_exchange_profiles',
  request: 'tokenExchangeProfileCreateRequest',
  response: 'tokenExchangeProfile',
  success: [201],
  outcomes: { 409: 'present' },
};

export const tokenExchangeProfile: KindModule = {
  name: 'token_exchange_profile',
  configKey: 'token_exchange_profiles',
  title: 'token exchange profile',
  identityFields: ['subject_token_type'],
  id: {
    format: 'token-exchange-profile-id',
    description: 'tep_ followed by letters, digits, _ or -',
    parseIdentity: (text) => [text],
  },
  operations: { create },
  requestBody: (resources: readonly Attributes[]) => resources[0],
  fromResponse: (body) => createdFields(body),
  fromLive: (item) => {
    const { id, name, subject_token_type, action_id, type } = item as Attributes & { id: string };
    return { id, attributes: { name, subject_token_type, action_id, type } };
  },
  limitation: 'the API has no operation to update or delete a token exchange profile',
};
