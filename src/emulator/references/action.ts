/**
 * The tenant's Actions (API profile full): GET /actions/actions, offset pages
 * whose answer carries its counts unasked (`page` only when asked, `total`
 * only when something matched: observed), filtered by `triggerId` (an Action
 * whose supported_triggers has it), `deployed=true` (an Action with a
 * deployed_version) and `actionName`; GET /actions/actions/{id} reads one. The service runs a token exchange
 * profile's Action only when it is deployed and bound to the
 * custom-token-exchange trigger: a profile created with any other action_id
 * is refused with a 400. A fresh tenant has the Actions the examples and the
 * demo name (defaults), one bound to another trigger and one not deployed.
 */
import { action, TOKEN_EXCHANGE_TRIGGER } from '../../resources/index.js';
import { badRequest, notFound } from '../errors.js';
import { emulatorKind, isRecord, listPage } from '../kinds/kind.js';
import { flag, numberedPage, single } from '../pages.js';
import { itemsProblem, ReferenceData } from './reference-data.js';

/** An Action as GET /actions/actions lists it (the fields the emulator reads; a seed may add others). */
export interface TenantAction {
  id: string;
  name?: string;
  supported_triggers?: { id: string; version?: string }[];
  all_changes_deployed?: boolean;
  /** Present once the Action is deployed (SDK type ActionDeployedVersion). */
  deployed_version?: { id?: string; deployed?: boolean; number?: number };
  [field: string]: unknown;
}

const CREATED = '2025-01-01T00:00:00.000Z';

function tenantAction(id: string, name: string, trigger: string, deployed = true): TenantAction {
  return {
    id,
    name,
    supported_triggers: [{ id: trigger, version: 'v1' }],
    all_changes_deployed: deployed,
    ...(deployed ? { deployed_version: { id: `ver-${id.slice(0, 8)}`, deployed: true, number: 1 } } : {}),
    created_at: CREATED,
    updated_at: CREATED,
  };
}

/** The Actions of examples/ and of `tenantform init`'s example, bound to custom-token-exchange; and two that are not usable by a profile. */
const DEFAULT_ACTIONS: readonly TenantAction[] = [
  tenantAction(
    '3f6c2a1e-8b4d-4c7a-9e2f-1a5b6c7d8e90',
    'Partner portal token exchange',
    TOKEN_EXCHANGE_TRIGGER,
  ),
  tenantAction(
    '7b1e9d24-5c3a-4f8e-b6d0-2e4f6a8c0b13',
    'Legacy mobile session exchange',
    TOKEN_EXCHANGE_TRIGGER,
  ),
  tenantAction('c0d1e2f3-a4b5-4c6d-8e7f-9a0b1c2d3e4f', 'Test IdP token exchange', TOKEN_EXCHANGE_TRIGGER),
  tenantAction('5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170', 'Globex IdP token exchange', TOKEN_EXCHANGE_TRIGGER),
  tenantAction('00000000-0000-4000-8000-000000000000', 'Example token exchange', TOKEN_EXCHANGE_TRIGGER),
  tenantAction('9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', 'Add roles to tokens', 'post-login'),
  tenantAction('2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d', 'Draft token exchange', TOKEN_EXCHANGE_TRIGGER, false),
];

const isDeployed = (a: TenantAction) => isRecord(a.deployed_version) && a.deployed_version.deployed !== false;
const boundTo = (a: TenantAction, trigger: string) =>
  (a.supported_triggers ?? []).some((t) => t.id === trigger);

/** The Actions a list request asks for: its triggerId, deployed and actionName filters. */
function filterOf(query: URLSearchParams): (a: TenantAction) => boolean {
  const trigger = single(query, 'triggerId');
  const deployedOnly = flag(query, 'deployed');
  const name = single(query, 'actionName');
  return (a) =>
    (trigger === undefined || boundTo(a, trigger)) &&
    (!deployedOnly || isDeployed(a)) &&
    (name === undefined || a.name === name);
}

/** Why a token exchange profile cannot use this Action, or null when it can. */
function unusable(a: TenantAction | undefined, id: string): string | null {
  if (!a) return `The action ${id} does not exist`;
  if (!boundTo(a, TOKEN_EXCHANGE_TRIGGER))
    return `The action ${id} is not bound to the ${TOKEN_EXCHANGE_TRIGGER} trigger`;
  if (!isDeployed(a)) return `The action ${id} is not deployed`;
  return null;
}

export const actions = emulatorKind({
  kind: action,
  key: 'actions',
  shape: 'list',
  empty: (): TenantAction[] => [],
  defaults: (): TenantAction[] => structuredClone([...DEFAULT_ACTIONS]),
  open: () => new ReferenceData<TenantAction>((a) => a.id),
  handlers: {
    listActions: (data, { op, query }) => {
      const { key, size } = listPage(op);
      return { status: 200, body: numberedPage(key, data.list(filterOf(query)), query, size) };
    },
    getAction: (data, { params }) => {
      const found = data.find(params.id!);
      // The message and code are a choice: the service's 404 for an Action was not observed.
      if (!found) throw notFound('The action does not exist', 'inexistent_action');
      return { status: 200, body: structuredClone(found) };
    },
  },
  refuses: {
    createTokenExchangeProfile: (data, body) => {
      const id = String((body as { action_id: unknown }).action_id);
      const why = unusable(data.find(id), id);
      if (why) throw badRequest(why, 'invalid_action');
    },
  },
  sources: [
    {
      operations: ['listActions'],
      facts: [
        ['`{total, page, per_page, actions}`, 20 a page unless asked, no `include_totals`', 'SDK'],
        ['no `page` when not asked; no `total` when nothing matches', 'observed'],
        ['`deployed=true` means "has a `deployed_version`"', 'choice'],
      ],
    },
    {
      operations: ['getAction'],
      facts: [
        ['200, the Action', 'SDK'],
        ['404 `inexistent_action`, "The action does not exist"', 'choice'],
      ],
    },
  ],
  check: (part) => itemsProblem(part, 'actions', 'action', 'action', (a) => a.id),
});
