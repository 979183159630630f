import { describe, expect, it } from 'vitest';
import {
  desired,
  everyActionPlan,
  permission,
  policy,
  recorded,
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
      '| Action | Kind | Address | Reason |',
      '| --- | --- | --- | --- |',
      '| `-` delete | rate limit policy | `rate_limit_policy["oauth_authentication_api","client","cimd_clients"]` | no longer in the configuration |',
    ]);
    expect(lines.filter((l) => l.startsWith('| `')).map((l) => l.split(' | ')[0])).toEqual([
      '| `-` delete',
      '| `+` create',
      '| `-/+` replace',
      '| `+` create',
      '| `.` forget',
      '| `!` blocked',
    ]);
  });

  it('puts a diff of each replacement and blocked change in a details block', () => {
    const md = renderMarkdown(sample());
    expect(md).toContain(
      [
        '<details><summary>-/+ rate_limit_policy[&quot;oauth_authentication_api&quot;,&quot;client&quot;,&quot;default&quot;]</summary>',
        '',
        'Note: the rate limit policy is absent between the delete and the create.',
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
      '| `+` create | user permission | `user_permission["auth0\\|u1","https://api","a\\|b"]` | not in state |',
    );
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(4);
  });

  it.each([
    ['a|b', 'a\\|b'],
    ['use `x`', 'use \\`x\\`'],
    ['*bold* _em_ <b>', '\\*bold\\* \\_em\\_ \\<b\\>'],
    ['two\nlines', 'two lines'],
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
