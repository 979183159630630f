/**
 * The guardrails end to end, against the emulator (spec profile): what the
 * service would refuse, and risky changes under --strict, stop plan and
 * apply before any request; risky changes come first in the plan, with the
 * "Review these" block in Markdown; tenantform.yaml settings and a saved
 * plan's warnings (show, apply --strict).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';

const policy = (selector: string, configuration: string) => `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: ${configuration}
`;

const PROFILE_RESERVED = `token_exchange_profiles:
  - name: Legacy tokens
    subject_token_type: urn:auth0:legacy
    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
    type: custom_authentication
`;

const ws = useEmulatorWorkspace({});

function config(...policies: string[]): void {
  ws.write('p.yaml', `rate_limit_policies:\n${policies.join('')}`);
}

describe('guardrails against the emulator', () => {
  it('stops plan and apply on a reserved subject_token_type before any request, at file:line:col', async () => {
    config(policy('default', '{ action: log, limit: 100 }'));
    ws.write('profiles.yaml', PROFILE_RESERVED);
    const plan = await ws.cli('plan', 'config');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toBe('');
    expect(plan.stderr).toContain(
      'config/profiles.yaml:2:5: subject_token_type "urn:auth0:legacy" is in the namespace urn:auth0, which the service reserves and refuses',
    );
    expect(plan.stderr).toContain('[token-type-reserved]');
    const apply = await ws.cli('apply', 'config', '--auto-approve', '--base-url', ws.emulator.baseUrl);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('[token-type-reserved]\n1 error.\nNothing was sent.');
    expect(ws.emulator.requestCount()).toBe(0);
    expect(existsSync(join(ws.dir, 'config', '.tenantform', 'state.json'))).toBe(false);
  });

  it('catches the risky changes of the issue before any request under --strict', async () => {
    config(policy('default', '{ action: block, limit: 0 }'));
    const run = await ws.cli(
      'apply',
      'config',
      '--auto-approve',
      '--strict',
      '--base-url',
      ws.emulator.baseUrl,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'config/p.yaml:2:5: default has limit 0 with block: every sign-in of every application no other policy names is refused [shared-limit-zero]',
    );
    expect(ws.emulator.requestCount()).toBe(0);
  });

  it('lists risky changes first, and applies them when warnings are allowed', async () => {
    config(
      policy('default', '{ action: log, limit: 100 }'),
      policy('client_id:web', '{ action: log, limit: 50 }'),
    );
    expect((await ws.cli('apply', 'config', '--auto-approve', '--base-url', ws.emulator.baseUrl)).code).toBe(
      0,
    );
    config(
      policy('default', '{ action: block, limit: 100 }'),
      policy('client_id:web', '{ action: log, limit: 40 }'),
      policy('third_party_clients', '{ action: block, limit: 0 }'),
    );
    const plan = await ws.cli('plan', 'config', '--format', 'markdown');
    expect(plan.code).toBe(0);
    const md = plan.stdout;
    expect(md).toContain('#### Review these (2)');
    expect(md).toContain(
      '| `-/+`&nbsp;replace | rate&nbsp;limit&nbsp;policy | `default`: log → block | from log to enforcing (block at 100/s) |',
    );
    expect(md).toContain(
      '| `+`&nbsp;create | rate&nbsp;limit&nbsp;policy | `third_party_clients`: new, block 0/s | blocks every sign-in of all third-party applications; its applications leave default (log 100/s); ⚠ `shared-limit-zero`; ⚠ `enforce-without-log` |',
    );
    expect(md).toContain('#### Other changes (1)');
    expect(md.indexOf('`client_id:web`: limit 50 → 40')).toBeGreaterThan(md.indexOf('#### Other changes'));
    const text = await ws.cli('plan', 'config');
    // The gravest first: blocking every request, then starting to enforce.
    expect(text.stdout).toMatch(
      /Review these \(2\):\n\n {2}\+ rate limit policy third_party_clients: new, block 0\/s\n[^]*\n-\/\+ rate limit policy default: log → block\n[^]*Other changes \(1\):/,
    );
    const apply = await ws.cli('apply', 'config', '--auto-approve', '--base-url', ws.emulator.baseUrl);
    expect(apply.code).toBe(0);
  });

  it('keeps a plan’s warnings in the saved plan: show prints them, apply --strict refuses it', async () => {
    config(policy('default', '{ action: block, limit: 100 }'));
    const saved = await ws.cli('plan', 'config', '--out', 'p.tfplan', '--format', 'json');
    expect(saved.code).toBe(0);
    const printed = JSON.parse(saved.stdout) as { findings: { rule: string }[] };
    expect(printed.findings.map((f) => f.rule)).toEqual(['enforce-without-log']);
    const show = await ws.cli('show', 'p.tfplan', '--format', 'json');
    expect(show.stdout).toBe(saved.stdout);
    // apply takes the state the plan was made from only when the command names it (ws.dir's default is not config's).
    const state = [
      '--state',
      (JSON.parse(readFileSync(join(ws.dir, 'p.tfplan'), 'utf8')) as { state_location: { path: string } })
        .state_location.path,
    ];
    const strict = await ws.cli(
      'apply',
      'p.tfplan',
      '--auto-approve',
      '--strict',
      '--base-url',
      ws.emulator.baseUrl,
      ...state,
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(
      'default starts enforcing (block at 100/s) with no log stage recorded first',
    );
    expect(ws.emulator.requestCount()).toBe(0);
    const apply = await ws.cli(
      'apply',
      'p.tfplan',
      '--auto-approve',
      '--base-url',
      ws.emulator.baseUrl,
      ...state,
    );
    expect(apply.code, apply.stderr).toBe(0);
  });

  it('takes each environment’s settings from tenantform.yaml', async () => {
    config(policy('default', '{ action: block, limit: 100 }'));
    writeFileSync(
      join(ws.dir, 'tenantform.yaml'),
      [
        'environments:',
        '  relaxed:',
        '    paths: [config]',
        '    guardrails: { rules: { enforce-without-log: off } }',
        '    state: { path: relaxed.json }',
        '  careful:',
        '    paths: [config]',
        '    guardrails: { rules: { enforce-without-log: error } }',
        '    state: { path: careful.json }',
        '',
      ].join('\n'),
    );
    const relaxed = await ws.cli('plan', '.', '--env', 'relaxed', '--strict');
    expect(relaxed.code, relaxed.stderr).toBe(0);
    expect(relaxed.stdout).not.toContain('warning');
    const careful = await ws.cli('plan', '.', '--env', 'careful');
    expect(careful.code).toBe(1);
    expect(careful.stderr).toContain('config/p.yaml:2:5: default starts enforcing (block at 100/s)');
    expect(careful.stderr).toContain('[enforce-without-log]');
  });
});
