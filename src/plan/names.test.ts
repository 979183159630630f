import { describe, expect, it } from 'vitest';
import { checkSchema } from '../schemas/index.js';
import { changeLabel } from '../review/index.js';
import { desired, permission, policy, profile, recorded, stateDoc } from '../../test/plan-builders.js';
import { knownNamesOf, mergeKnownNames } from '../resources/index.js';
import { labelParts, namedLabel, namesOf } from './names.js';
import { planChanges } from './planner.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import { tenantText } from './tenant-text.js';
import type { Plan } from './types.js';

const MOBILE = 'Vb4nM7qW0eR3tYuI';
const READ = {
  items: {
    client: [
      { key: MOBILE, name: 'Mobile app', attributes: {} },
      { key: 'other', name: 'Not referred to', attributes: {} },
    ],
    action: [{ key: 'act_2', name: 'Partner exchange', attributes: {} }],
    resource_server: [{ key: 'https://api.example.com/', name: 'Reports API', attributes: {} }],
  },
};
const AT = '2026-03-04T05:06:07.000Z';

function namedPlan(): Plan {
  const before = policy(`client_id:${MOBILE}`, { action: 'block', limit: 1500 });
  const after = policy(`client_id:${MOBILE}`, { action: 'block', limit: 3000 });
  const plan = planChanges(
    [
      desired('rate_limit_policy', after),
      desired('token_exchange_profile', profile('urn:partner:token', { action_id: 'act_2' })),
      desired('user_permission', permission('auth0|alice', 'https://api.example.com/', 'read:reports')),
    ],
    stateDoc([recorded('rate_limit_policy', before, { id: 'rlp_1' })]),
    { api: 'full' },
  );
  return { ...plan, names: namesOf(plan.changes, knownNamesOf(READ, AT))! };
}

describe('namesOf', () => {
  it('keeps the names of what the changes refer to, and when they were read', () => {
    expect(namedPlan().names).toEqual({
      read_at: AT,
      items: {
        action: { act_2: 'Partner exchange' },
        client: { [MOBILE]: 'Mobile app' },
        resource_server: { 'https://api.example.com/': 'Reports API' },
      },
    });
  });

  it('is undefined when the read names nothing the changes refer to, so the plan carries no names', () => {
    const plan = planChanges([desired('rate_limit_policy', policy('default'))], null);
    expect(namesOf(plan.changes, knownNamesOf(READ, AT))).toBeUndefined();
    expect(namesOf(plan.changes, knownNamesOf({ items: {} }, AT))).toBeUndefined();
    expect(namesOf(namedPlan().changes, null)).toBeUndefined();
  });

  it('names kept from several reads: the newest name of each item, and the oldest time of those shown', () => {
    const older = knownNamesOf(
      { items: { client: [{ key: MOBILE, name: 'Old mobile', attributes: {} }], action: READ.items.action } },
      '2026-01-01T00:00:00.000Z',
    );
    const newer = knownNamesOf({ items: { client: READ.items.client } }, AT);
    const known = mergeKnownNames(older, newer);
    expect(known.lists.client![MOBILE]).toEqual({ name: 'Mobile app', read_at: AT });
    expect(namesOf(namedPlan().changes, known)).toEqual({
      read_at: '2026-01-01T00:00:00.000Z',
      items: { action: { act_2: 'Partner exchange' }, client: { [MOBILE]: 'Mobile app' } },
    });
  });
});

describe('labels with names', () => {
  it.each([
    ['rate_limit_policy', `Mobile app (client_id:Vb4n…)`],
    ['token_exchange_profile', 'urn:partner:token (Action: Partner exchange)'],
    ['user_permission', 'auth0|alice read:reports (API: Reports API)'],
  ])('a %s reads "%s"', (kind, label) => {
    const plan = namedPlan();
    const change = plan.changes.find((c) => c.kind === kind)!;
    expect(namedLabel(labelParts(change, changeLabel(change), plan.names))).toBe(label);
    expect(namedLabel(labelParts(change, changeLabel(change), undefined))).toBe(changeLabel(change));
  });

  it('escapes control characters in a name, which is tenant data', () => {
    const read = { items: { client: [{ key: MOBILE, name: 'Evil\u001b[2J\nApp\u202e', attributes: {} }] } };
    const plan = namedPlan();
    const names = namesOf(plan.changes, knownNamesOf(read, AT));
    const text = renderText({ ...plan, ...(names ? { names } : {}) }, { color: false });
    expect(text).toContain('Evil\\x1b[2J\\nApp\\u202e (client_id:Vb4n…)');
    expect(text).not.toContain('\u001b');
    expect(tenantText('tab\there\u0000\u009b')).toBe('tab\\there\\x00\\x9b');
  });
});

describe('plans that know names', () => {
  it('text shows each name beside its selector, and a limit change in words', () => {
    const text = renderText(namedPlan(), { color: false });
    expect(text).toContain('~ rate limit policy Mobile app (client_id:Vb4n…): limit 1500 → 3000');
    expect(text).toContain('effect: allows twice as many requests: 1500 → 3000 per second');
    expect(text).toContain('+ token exchange profile urn:partner:token (Action: Partner exchange): new');
    expect(text).toContain('+ user permission auth0|alice read:reports (API: Reports API): new');
    expect(text).toContain(
      'Names of applications, Actions and APIs as the tenant gave them on 2026-03-04 at 05:06 UTC.',
    );
    expect(renderText({ ...namedPlan(), names: undefined }, { color: false })).not.toContain('Names of');
  });

  it('Markdown shows the name as text and the selector as code', () => {
    const md = renderMarkdown(namedPlan());
    expect(md).toContain(
      '| `~`&nbsp;update | rate&nbsp;limit&nbsp;policy | Mobile app (`client_id:Vb4n…`): limit 1500 → 3000 | allows twice as many requests: 1500 → 3000 per second |',
    );
    expect(md).toContain('`urn:partner:token` (Action: Partner exchange): new');
    expect(md).toContain(
      '<sub>Names of applications, Actions and APIs as the tenant gave them on 2026-03-04 at 05:06 UTC.</sub>',
    );
  });

  it('JSON lists the names with each change and the read they came from, and matches the plan schema', () => {
    const doc = JSON.parse(renderJson(namedPlan())) as {
      names: unknown;
      changes: { review: { names?: unknown } }[];
    };
    expect(checkSchema('plan', doc)).toEqual([]);
    expect(doc.names).toMatchObject({ read_at: AT });
    expect(doc.changes[0]!.review.names).toEqual([{ list: 'client', key: MOBILE, name: 'Mobile app' }]);
  });
});
