/**
 * Token exchange profiles: unique by subject_token_type (a second create is a
 * 409), ids `tep_` + 16 characters. Create → 201 and the profile; under API
 * profile full also update of name and subject_token_type → 200 and the
 * whole profile (a subject_token_type another profile has is a 409), delete
 * → 204 (also of an id that no longer exists), list (checkpoint pages) and
 * get; all observed. An unknown id is a 404 without errorCode (observed on a
 * get; the same for an update is a choice). Under full, a create
 * whose action_id is not a deployed Action bound to custom-token-exchange is
 * a 400 (references/action.ts).
 */
import { tokenExchangeProfile } from '../../resources/index.js';
import { matchesSchema, requiredFields } from '../../schemas/index.js';
import { HttpError } from '../errors.js';
import { parseBody } from '../http-io.js';
import { randomAlphanumeric } from '../ids.js';
import { checkpointPage } from '../pages.js';
import { Catalog } from './catalog.js';
import { completeItems, emulatorKind, hasTimes, listPage, validated, type TenantContext } from './kind.js';

/** A token exchange profile as the API returns it from POST /token-exchange-profiles. */
export interface TokenExchangeProfile {
  id: string;
  name: string;
  subject_token_type: string;
  action_id: string;
  type: string;
  created_at: string;
  updated_at: string;
}

export interface ProfileRequest {
  name: string;
  subject_token_type: string;
  action_id: string;
  type: string;
}

const typeOf = (p: TokenExchangeProfile) => p.subject_token_type;

/** The service's 404 for a profile (observed on a get): no errorCode. */
const gone = () => new HttpError(404, 'Token exchange profile not found.');

const conflict = () =>
  new HttpError(
    409,
    'A token exchange profile with the same subject_token_type already exists',
    'token_exchange_profile_conflict',
  );

/** The profiles of one tenant. */
class Profiles {
  private items = new Catalog<TokenExchangeProfile>(typeOf);

  constructor(private readonly tenant: TenantContext) {}

  /** The profiles in creation order. */
  list() {
    return this.items.ordered((p) => ({ ...p }));
  }

  private byId(id: string): TokenExchangeProfile {
    const profile = this.items.get(id);
    if (!profile) throw gone();
    return profile;
  }

  get(id: string): TokenExchangeProfile {
    return { ...this.byId(id) };
  }

  create(body: ProfileRequest): TokenExchangeProfile {
    if (this.items.withKey(body.subject_token_type)) throw conflict();
    const at = this.tenant.timestamp();
    const profile: TokenExchangeProfile = {
      id: `tep_${randomAlphanumeric(16)}`,
      name: body.name,
      subject_token_type: body.subject_token_type,
      action_id: body.action_id,
      type: body.type,
      created_at: at,
      updated_at: at,
    };
    this.items.add(profile);
    this.tenant.changed();
    return { ...profile };
  }

  /** Changes a profile's name and/or subject_token_type; a subject_token_type another profile has is a 409. */
  update(id: string, changes: { name?: string; subject_token_type?: string }): TokenExchangeProfile {
    const profile = this.byId(id);
    const type = changes.subject_token_type;
    if (type !== undefined && type !== profile.subject_token_type) {
      if (this.items.withKey(type)) throw conflict();
      this.items.rekey(profile, () => (profile.subject_token_type = type));
    }
    if (changes.name !== undefined) profile.name = changes.name;
    profile.updated_at = this.tenant.laterThan(profile.updated_at);
    this.tenant.changed();
    return { ...profile };
  }

  /** Removes a profile; one that does not exist (any more) is a success too (observed). */
  delete(id: string): void {
    if (!this.items.get(id)) return;
    this.items.remove(id);
    this.tenant.changed();
  }

  snapshot(): TokenExchangeProfile[] {
    return this.items.values().map((p) => ({ ...p }));
  }

  load(part: TokenExchangeProfile[]): void {
    this.items = new Catalog<TokenExchangeProfile>(typeOf);
    for (const p of part) this.items.add({ ...p });
  }
}

/** A stored profile has every field a create request requires (the response schema marks none required). */
let profileFields: string[] | undefined;

export const tokenExchangeProfiles = emulatorKind({
  kind: tokenExchangeProfile,
  key: 'tokenExchangeProfiles',
  shape: 'list',
  empty: (): TokenExchangeProfile[] => [],
  open: (tenant) => new Profiles(tenant),
  handlers: {
    createTokenExchangeProfile: (data, { contentType, body, checkReferences }) => {
      const request = validated<ProfileRequest>(
        'tokenExchangeProfileCreateRequest',
        parseBody(contentType, body, ['json']),
      );
      checkReferences(request);
      return { status: 201, body: data.create(request) };
    },
    updateTokenExchangeProfile: (data, { params, contentType, body }) => {
      const parsed = parseBody(contentType, body, ['json']);
      const changes = validated<Partial<Pick<ProfileRequest, 'name' | 'subject_token_type'>>>(
        'tokenExchangeProfileUpdateRequest',
        parsed,
      );
      return { status: 200, body: data.update(params.id!, changes) };
    },
    deleteTokenExchangeProfile: (data, { params }) => {
      data.delete(params.id!);
      return { status: 204 };
    },
    listTokenExchangeProfiles: (data, { op, query, nowMs }) => {
      const { key, size } = listPage(op);
      const page = checkpointPage(key, data.list(), query, nowMs, size);
      return { status: 200, body: { [key]: page.items, ...(page.next ? { next: page.next } : {}) } };
    },
    getTokenExchangeProfile: (data, { params }) => ({ status: 200, body: data.get(params.id!) }),
  },
  sources: [
    {
      operations: ['createTokenExchangeProfile'],
      facts: [
        [
          '201, the profile; 409 for a subject_token_type another profile has',
          'spec (fields), observed (201, ids `tep_` + 16)',
        ],
        [
          'under `full`, 400 for an Action that does not exist, is not deployed or is bound to another trigger',
          'docs (the rule), SDK (400 among the statuses)',
        ],
      ],
    },
    {
      operations: ['updateTokenExchangeProfile'],
      facts: [
        ["200, the whole updated profile (the SDK's type says 204)", 'observed'],
        ['404 without `errorCode` for an unknown id', 'choice (the body of the observed get)'],
      ],
    },
    {
      operations: ['deleteTokenExchangeProfile'],
      facts: [['204, empty, no `Content-Type`; 204 also when the profile no longer exists', 'observed']],
    },
    {
      operations: ['listTokenExchangeProfiles', 'getTokenExchangeProfile'],
      facts: [
        ['checkpoint pages as for policies; a cursor valid 24 hours', 'SDK, docs'],
        [
          '404 `{"statusCode":404,"error":"Not Found","message":"Token exchange profile not found."}`',
          'observed',
        ],
      ],
    },
  ],
  check(part) {
    if (!Array.isArray(part)) return 'tokenExchangeProfiles must be a list';
    profileFields ??= requiredFields('token-exchange-profile-create-request.schema.json');
    const types = new Set<string>();
    for (const p of part) {
      if (
        !matchesSchema('tokenExchangeProfile', p) ||
        !hasTimes(p) ||
        !profileFields.every((f) => typeof (p as Record<string, unknown>)[f] === 'string')
      ) {
        return 'a token exchange profile is malformed';
      }
      const type = (p as TokenExchangeProfile).subject_token_type;
      if (types.has(type)) return `subject_token_type ${type} is listed twice`;
      types.add(type);
    }
    return undefined;
  },
  complete: (part, now) => completeItems(part, 'tep_', 16, now),
});
