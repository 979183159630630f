import { describe, expect, it } from 'vitest';
import {
  desired,
  everyActionPlan,
  permission,
  policy,
  recorded,
  riskyPlan,
  stateDoc,
} from '../../test/plan-builders.js';
import { planChanges } from './planner.js';
import { codeCell, escapeCell, MARKDOWN_LIMIT, renderMarkdown } from './render-markdown.js';

function sample() {
  const { desired: want, state } = everyActionPlan();
  return planChanges(want, state);
}

describe('renderMarkdown', () => {
  it('starts with a heading and the summary, then a table of every change', () => {
    const md = renderMarkdown(sample());
    const lines = md.split('\n');
    expect(lines.slice(0, 9)).toEqual([
      '### tenantform plan',
      '',
      '**Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked.**',
      '',
      '1 unchanged resource was adopted through 409 on create: settings not verified, no read operation exists.',
      '',
      '| Action | Kind | Change | What it does |',
      '| --- | --- | --- | --- |',
      '| `-`&nbsp;delete | rate&nbsp;limit&nbsp;policy | `cimd_clients`: removed (was block 100/s) | its applications fall back to default: block above 500/s |',
    ]);
    expect(lines.filter((l) => l.startsWith('| `')).map((l) => l.split(' | ')[0])).toEqual([
      '| `-`&nbsp;delete',
      '| `+`&nbsp;create',
      '| `-/+`&nbsp;replace',
      '| `+`&nbsp;create',
      '| `.`&nbsp;forget',
      '| `!`&nbsp;blocked',
    ]);
  });

  it('puts a diff of each replacement and blocked change in a details block', () => {
    const md = renderMarkdown(sample());
    expect(md).toContain(
      [
        '<details><summary>-/+ rate_limit_policy[&quot;oauth_authentication_api&quot;,&quot;client&quot;,&quot;default&quot;]</summary>',
        '',
        'Why: configuration.limit changed; rate limit policies have no update operation; a change deletes the policy and creates it again.<br>',
        'Note: the rate limit policy is absent between the delete and the create.<br>',
        'Does: allows five times as many requests: 100 → 500 per second; each application without a policy of its own is counted apart.',
        '',
        '```diff',
        '@@ -3,4 +3,4 @@',
        '  consumer_selector: "default"',
        '  configuration:',
        '    action: "block"',
        '-   limit: 100',
        '+   limit: 500',
        '```',
        '',
        '</details>',
      ].join('\n'),
    );
    expect(md).toContain('- name: "partner tokens"\n+ name: "new name"');
    expect(md.match(/<details>/g)).toHaveLength(6);
  });

  it('shows the values of every created, deleted and forgotten resource, so a reviewer can approve them', () => {
    const plan = planChanges(
      [
        desired(
          'rate_limit_policy',
          policy('client_id:abc', { action: 'redirect', limit: 7, redirect_uri: 'https://example.com/slow' }),
        ),
      ],
      stateDoc([
        recorded('rate_limit_policy', policy('default', { action: 'block', limit: 100 }), { id: 'rlp_1' }),
        recorded('user_permission', permission('auth0|u2', 'https://api', 'write')),
      ]),
    );
    const md = renderMarkdown(plan);
    expect(md).toContain(
      [
        '```diff',
        '+ resource: "oauth_authentication_api"',
        '+ consumer: "client"',
        '+ consumer_selector: "client_id:abc"',
        '+ configuration:',
        '+   action: "redirect"',
        '+   limit: 7',
        '+   redirect_uri: "https://example.com/slow"',
        '```',
      ].join('\n'),
    );
    expect(md).toContain(
      '- consumer_selector: "default"\n- configuration:\n-   action: "block"\n-   limit: 100',
    );
    expect(md).toContain('  user_id: "auth0|u2"\n  resource_server_identifier: "https://api"');
    expect(md.match(/<details>/g)).toHaveLength(3);
    expect(md).not.toContain('Truncated');
  });

  it('collapses to one sentence when nothing changes', () => {
    const plan = planChanges(
      [desired('rate_limit_policy', policy('default'))],
      stateDoc([recorded('rate_limit_policy', policy('default'), { id: 'rlp_1' })]),
    );
    expect(renderMarkdown(plan)).toBe(
      '### tenantform plan\n\nNo changes. The recorded state matches the configuration.\n',
    );
  });

  it('escapes pipes in addresses so the table keeps its columns', () => {
    const plan = planChanges(
      [desired('user_permission', permission('auth0|u1', 'https://api', 'a|b'))],
      null,
    );
    const row = renderMarkdown(plan)
      .split('\n')
      .find((l) => l.startsWith('| `+`'))!;
    expect(row).toBe(
      '| `+`&nbsp;create | user&nbsp;permission | `auth0\\|u1 a\\|b`: new | grants a\\|b on https://api to auth0\\|u1 |',
    );
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(4);
  });

  it.each([
    ['a|b', 'a\\|b'],
    ['use `x`', 'use \\`x\\`'],
    ['*bold* _em_ <b>', '\\*bold\\* \\_em\\_ \\<b\\>'],
    // A line break, like any control character, is shown escaped (its backslash escaped for the cell).
    ['two\nlines', 'two\\\\nlines'],
    ['bidi \u202e and ESC \u001b[31m', 'bidi \\\\u202e and ESC \\\\u001b\\[31m'],
  ])('escapes %j in a plain cell', (text, cell) => {
    expect(escapeCell(text)).toBe(cell);
  });

  it.each([
    ['plain', '`plain`'],
    ['a`b', '``a`b``'],
    ['`edge`', '`` `edge` ``'],
    ['x|y', '`x\\|y`'],
  ])('wraps %j in a code span that survives backticks and pipes', (text, cell) => {
    expect(codeCell(text)).toBe(cell);
  });

  it('stays under the GitHub comment limit and says what it left out', () => {
    const want = Array.from({ length: 3000 }, (_, i) =>
      desired(
        'user_permission',
        permission(`auth0|user-${i}`, 'https://api.example.com/long/identifier', `perm:${i}`),
      ),
    );
    const md = renderMarkdown(planChanges(want, null));
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    const note =
      /\*\*Truncated\*\* to fit GitHub's comment limit \(65,536 characters\): \d+ more change\(s\) and the values of 3000 change\(s\) not shown\./;
    expect(md.split('\n')[4]).toMatch(new RegExp(`^> ${note.source}`));
    expect(md.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^_${note.source}`));
    expect(md).toContain('**Plan: 3000 to create, 0 to replace, 0 to delete, 0 to forget, 0 blocked.**');
  });

  it('leaves out values before rows when only the values do not fit', () => {
    const big = 'x'.repeat(200);
    const want = Array.from({ length: 150 }, (_, i) =>
      desired(
        'rate_limit_policy',
        policy(`client_id:${i}`, { action: 'redirect', limit: 2, redirect_uri: `https://${big}` }),
      ),
    );
    const have = Array.from({ length: 150 }, (_, i) =>
      recorded('rate_limit_policy', policy(`client_id:${i}`, { action: 'block', limit: 1 }), {
        id: `rlp_${i}`,
      }),
    );
    const md = renderMarkdown(planChanges(want, stateDoc(have)));
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(md.split('\n').filter((l) => l.startsWith('| `-/+`'))).toHaveLength(150);
    expect(md).toMatch(/: the values of \d+ change\(s\) not shown/);
    expect(md).toContain('<details>');
  });
});

describe('renderMarkdown: "Review these" for the pull request', () => {
  it('lists the risky changes and the warnings first, then the other changes, each row short', () => {
    const md = renderMarkdown(riskyPlan());
    const lines = md.split('\n');
    const review = lines.indexOf('#### Review these (3)');
    const others = lines.indexOf('#### Other changes (1)');
    expect(review).toBeGreaterThan(0);
    expect(lines.slice(review, others + 5)).toEqual([
      '#### Review these (3)',
      '',
      '| Action | Kind | Change | What it does |',
      '| --- | --- | --- | --- |',
      '| `~`&nbsp;update | rate&nbsp;limit&nbsp;policy | `default`: limit 100 → 0 | blocks every sign-in of every application no other policy names; ⚠ `shared-limit-zero`; ⚠ `limit-cut` |',
      '| `~`&nbsp;update | rate&nbsp;limit&nbsp;policy | `third_party_clients`: log → block | from log to enforcing (block at 20/s) |',
      '',
      "- ⚠ `no-default-policy`: no rate limit policy for default: an application no policy names (and not in a group that has one) has no limit but the tenant's own; add consumer\\_selector: default, in log first",
      '',
      '#### Other changes (1)',
      '',
      '| Action | Kind | Change | What it does |',
      '| --- | --- | --- | --- |',
      '| `~`&nbsp;update | rate&nbsp;limit&nbsp;policy | `client_id:web`: limit 1500 → 1200 | allows 20% fewer requests: 1500 → 1200 per second |',
    ]);
    // The details blocks follow in the same order, risky first, with the full address and the warnings' sentences.
    const summaries = lines.filter((l) => l.startsWith('<details>'));
    expect(summaries.map((l) => /&quot;([^&]*)&quot;\]<\/summary>/.exec(l)![1])).toEqual([
      'default',
      'third_party_clients',
      'client_id:web',
    ]);
    expect(md).toContain('⚠ p.yaml:2:5: default: limit 100 → 0/s, under half the recorded value [limit-cut]');
  });

  it('cuts long names in rows: the full address is in the details block', () => {
    const plan = planChanges(
      [
        desired(
          'rate_limit_policy',
          policy('client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC', { action: 'log', limit: 5 }),
        ),
      ],
      null,
    );
    const md = renderMarkdown(plan);
    expect(md).toContain(
      '| `+`&nbsp;create | rate&nbsp;limit&nbsp;policy | `client_id:Wq2eR5tY8uI1oP…`: new, log 5/s |',
    );
    expect(md).toContain('client_id:Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC&quot;]</summary>');
  });

  it('keeps every row inside the comment limit when many changes are risky', () => {
    const want = Array.from({ length: 1500 }, (_, i) =>
      desired('rate_limit_policy', policy(`client_id:app-${i}`, { action: 'block', limit: 10 })),
    );
    const md = renderMarkdown(planChanges(want, null));
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(md).toContain('#### Review these (1500)');
    expect(md).toMatch(
      /> \*\*Truncated\*\* .*: \d+ more change\(s\) and the values of 1500 change\(s\) not shown/,
    );
  });
});
