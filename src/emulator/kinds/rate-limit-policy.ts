/**
 * Rate limit policies: unique by resource + consumer + consumer_selector
 * (a second create is a 409), ids `rlp_` + 21 characters. Create → 201 and
 * the policy; delete → 204; under API profile full also update (the
 * configuration only) → 200 and the policy (same id, later updated_at), list
 * (checkpoint pages, filtered by the descriptor's filters) and get. A policy
 * id longer than 26 characters in a path is a 400 (invalid_uri); an unknown
 * one a 404.
 */
import { rateLimitPolicy } from '../../resources/index.js';
import { matchesSchema } from '../../schemas/index.js';
import { HttpError, notFound } from '../errors.js';
import { parseBody } from '../http-io.js';
import { randomAlphanumeric } from '../ids.js';
import { checkpointPage, single } from '../pages.js';
import { Catalog } from './catalog.js';
import { listPage, completeItems, emulatorKind, hasTimes, validated, type TenantContext } from './kind.js';

export type RateLimitAction = 'allow' | 'block' | 'log' | 'redirect';

export interface RateLimitPolicyConfiguration {
  action: RateLimitAction;
  limit?: number;
  redirect_uri?: string;
}

/** A rate limit policy as the API returns it from POST /rate-limit-policies. */
export interface RateLimitPolicy {
  id: string;
  resource: string;
  consumer: string;
  consumer_selector: string;
  configuration: RateLimitPolicyConfiguration;
  created_at: string;
  updated_at: string;
}

export interface PolicyRequest {
  resource: string;
  consumer: string;
  consumer_selector: string;
  configuration: RateLimitPolicyConfiguration;
}

/** Longest policy id the API accepts in a path (`rlp_` and up to 22 characters). */
export const MAX_POLICY_ID_LENGTH = 26;

function checkPolicyId(id: string): string {
  if (id.length > MAX_POLICY_ID_LENGTH) {
    throw new HttpError(
      400,
      `Path validation error: id must be at most ${MAX_POLICY_ID_LENGTH} characters long`,
      'invalid_uri',
    );
  }
  return id;
}

function policyKey(p: PolicyRequest): string {
  return `${p.resource}\u0000${p.consumer}\u0000${p.consumer_selector}`;
}

function copyConfiguration(c: RateLimitPolicyConfiguration): RateLimitPolicyConfiguration {
  const out: RateLimitPolicyConfiguration = { action: c.action };
  if (c.limit !== undefined) out.limit = c.limit;
  if (c.redirect_uri !== undefined) out.redirect_uri = c.redirect_uri;
  return out;
}

function copyPolicy(p: RateLimitPolicy): RateLimitPolicy {
  return { ...p, configuration: copyConfiguration(p.configuration) };
}

const gone = () => notFound('The rate limit policy does not exist', 'inexistent_rate_limit_policy');

/** The policies of one tenant. */
class Policies {
  private items = new Catalog<RateLimitPolicy>(policyKey);

  constructor(private readonly tenant: TenantContext) {}

  /** The policies in creation order; with filters, those whose attributes equal every filter given. */
  list(filter: Readonly<Record<string, string | undefined>>) {
    const given = Object.entries(filter).filter(([, value]) => value !== undefined);
    return this.items.ordered(copyPolicy, (p) =>
      given.every(([name, value]) => (p as unknown as Record<string, unknown>)[name] === value),
    );
  }

  get(id: string): RateLimitPolicy {
    const policy = this.items.get(id);
    if (!policy) throw gone();
    return copyPolicy(policy);
  }

  create(body: PolicyRequest): RateLimitPolicy {
    if (this.items.withKey(policyKey(body))) {
      throw new HttpError(
        409,
        'A rate limit policy with the same resource, consumer and consumer_selector already exists',
        'rate_limit_policy_conflict',
      );
    }
    const at = this.tenant.timestamp();
    const policy: RateLimitPolicy = {
      id: `rlp_${randomAlphanumeric(21)}`,
      resource: body.resource,
      consumer: body.consumer,
      consumer_selector: body.consumer_selector,
      configuration: copyConfiguration(body.configuration),
      created_at: at,
      updated_at: at,
    };
    this.items.add(policy);
    this.tenant.changed();
    return copyPolicy(policy);
  }

  delete(id: string): void {
    if (!this.items.get(id)) throw gone();
    this.items.remove(id);
    this.tenant.changed();
  }

  /** Replaces a policy's configuration; the id stays and updated_at moves on. */
  update(id: string, configuration: RateLimitPolicyConfiguration): RateLimitPolicy {
    const policy = this.items.get(id);
    if (!policy) throw gone();
    policy.configuration = copyConfiguration(configuration);
    policy.updated_at = this.tenant.laterThan(policy.updated_at);
    this.tenant.changed();
    return copyPolicy(policy);
  }

  snapshot(): RateLimitPolicy[] {
    return this.items.values().map(copyPolicy);
  }

  load(part: RateLimitPolicy[]): void {
    this.items = new Catalog<RateLimitPolicy>(policyKey);
    for (const p of part) this.items.add(copyPolicy(p));
  }
}

const EMPTY_JSON = { 'Content-Type': 'application/json; charset=utf-8' };

/** A form body's limit is a number, as in JSON. */
const LIMIT = [['configuration', 'limit']] as const;

export const rateLimitPolicies = emulatorKind({
  kind: rateLimitPolicy,
  key: 'rateLimitPolicies',
  shape: 'list',
  empty: (): RateLimitPolicy[] => [],
  open: (tenant) => new Policies(tenant),
  handlers: {
    createRateLimitPolicy: (data, { contentType, body }) => {
      const parsed = parseBody(contentType, body, ['json', 'form'], LIMIT);
      return {
        status: 201,
        body: data.create(validated<PolicyRequest>('rateLimitPolicyCreateRequest', parsed)),
      };
    },
    updateRateLimitPolicy: (data, { params, contentType, body }) => {
      const id = checkPolicyId(params.id!);
      const parsed = parseBody(contentType, body, ['json', 'form'], LIMIT);
      const { configuration } = validated<Pick<PolicyRequest, 'configuration'>>(
        'rateLimitPolicyUpdateRequest',
        parsed,
      );
      return { status: 200, body: data.update(id, configuration) };
    },
    deleteRateLimitPolicy: (data, { params, profile }) => {
      data.delete(checkPolicyId(params.id!));
      // The service's 204 names a JSON body (observed); the spec does not say, so spec stays as it was.
      return profile === 'full' ? { status: 204, headers: EMPTY_JSON } : { status: 204 };
    },
    listRateLimitPolicies: (data, { op, query, nowMs }) => {
      // The filters the list descriptor names, each matching its attribute exactly.
      const { key, size } = listPage(op);
      const filter = Object.fromEntries((op.filters ?? []).map((name) => [name, single(query, name)]));
      const page = checkpointPage(key, data.list(filter), query, nowMs, size);
      return { status: 200, body: { [key]: page.items, ...(page.next ? { next: page.next } : {}) } };
    },
    getRateLimitPolicy: (data, { params }) => ({ status: 200, body: data.get(checkPolicyId(params.id!)) }),
  },
  sources: [
    {
      operations: ['createRateLimitPolicy'],
      facts: [
        [
          '201, the policy; 409 for the same resource + consumer + consumer_selector; 400 for a body the schema refuses',
          'spec',
        ],
        [
          'ids `rlp_` + 21 characters; error bodies `{statusCode, error, message, errorCode}`',
          'observed; the `errorCode` values are a choice',
        ],
      ],
    },
    {
      operations: ['deleteRateLimitPolicy'],
      facts: [
        [
          '204, empty; 404 for an unknown id; 400 for an id over 26 characters',
          "observed (the spec shows no status); the 400 follows the spec's 26-character bound",
        ],
        [
          'under `full`, `Content-Type: application/json; charset=utf-8` on the 204',
          'observed (under `spec` none, as before)',
        ],
      ],
    },
    {
      operations: ['updateRateLimitPolicy'],
      facts: [['200, the whole policy; only `configuration` may change', 'SDK, docs']],
    },
    {
      operations: ['listRateLimitPolicies', 'getRateLimitPolicy'],
      facts: [
        [
          'checkpoint pages (`take`, `from`, `next`), filters `resource`, `consumer`, `consumer_selector`; 50 a page unless asked',
          'SDK; 100 as the largest page is a choice',
        ],
      ],
    },
  ],
  check(part) {
    if (!Array.isArray(part)) return 'rateLimitPolicies must be a list';
    const identities = new Set<string>();
    for (const p of part) {
      // The response schema reads tolerantly; what the tenant holds must be a policy it could have created.
      const r = p as Record<string, string>;
      const { resource, consumer, consumer_selector, configuration } = r;
      const request = { resource, consumer, consumer_selector, configuration };
      if (
        !matchesSchema('rateLimitPolicy', p) ||
        !matchesSchema('rateLimitPolicyCreateRequest', request) ||
        !hasTimes(p)
      )
        return 'a rate limit policy is malformed';
      const key = `${r.resource}\u0000${r.consumer}\u0000${r.consumer_selector}`;
      if (identities.has(key) || identities.has(r.id!)) return `rate limit policy ${r.id} is listed twice`;
      identities.add(key).add(r.id!);
    }
    return undefined;
  },
  complete: (part, now) => completeItems(part, 'rlp_', 21, now),
});
