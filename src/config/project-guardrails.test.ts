import { describe, expect, it } from 'vitest';
import { parseProject, ProjectError } from './project.js';

const parse = (text: string) => parseProject(text, 'tenantform.yaml', '.');

function issues(text: string): string[] {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof ProjectError) return err.issues.map((i) => `${i.line}:${i.col} ${i.message}`);
    throw err;
  }
  return [];
}

describe('tenantform.yaml guardrails', () => {
  it('applies the top-level settings to every environment, and an environment’s own over them', () => {
    const project = parse(
      [
        'guardrails:',
        '  rules: { no-default-policy: off, limit-cut: error }',
        '  redirect_hosts: [status.acme.example]',
        'environments:',
        '  dev: { paths: [dev] }',
        '  prod:',
        '    paths: [prod]',
        '    guardrails:',
        '      rules: { limit-cut: warning, enforce-without-log: error }',
        '      redirect_hosts: ["*.acme.example"]',
        '',
      ].join('\n'),
    );
    const [dev, prod] = project.environments;
    expect(dev!.guardrails).toEqual({
      rules: { 'no-default-policy': 'off', 'limit-cut': 'error' },
      redirectHosts: ['status.acme.example'],
    });
    expect(prod!.guardrails).toEqual({
      rules: { 'no-default-policy': 'off', 'limit-cut': 'warning', 'enforce-without-log': 'error' },
      redirectHosts: ['*.acme.example'],
    });
  });

  it('leaves an environment without settings when the file declares none', () => {
    expect(parse('environments:\n  dev: { paths: [dev] }\n').environments[0]!.guardrails).toBeUndefined();
  });

  it.each([
    [
      'an unknown rule, naming the closest',
      'guardrails:\n  rules:\n    limit-cuts: off\n',
      /^3:5 guardrails.rules: unknown rule "limit-cuts" \(did you mean limit-cut\?/,
    ],
    [
      'a severity that is none',
      'guardrails:\n  rules:\n    limit-cut: fatal\n',
      /^3:16 guardrails.rules.limit-cut must be error, warning or off/,
    ],
    [
      'rules that are no mapping',
      'guardrails:\n  rules: [limit-cut]\n',
      /^2:10 guardrails.rules must map rule codes/,
    ],
    [
      'a host with a scheme',
      'guardrails:\n  redirect_hosts: [https://a.example]\n',
      /^2:20 guardrails.redirect_hosts entries must be host names/,
    ],
    [
      'hosts that are no list',
      'guardrails:\n  redirect_hosts: a.example\n',
      /^2:19 guardrails.redirect_hosts must be a list/,
    ],
    ['an unknown key', 'guardrails:\n  strict: true\n', /^2:3 guardrails has unknown key "strict"/],
    ['guardrails that are no mapping', 'guardrails: yes\n', /^1:13 guardrails must be a mapping/],
  ])('refuses %s at its line and column', (_name, head, message) => {
    const found = issues(`${head}environments:\n  dev: { paths: [dev] }\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it('refuses a mistake in an environment’s guardrails, naming the environment', () => {
    const found = issues(
      'environments:\n  prod:\n    paths: [prod]\n    guardrails: { rules: { nope: off } }\n',
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^4:28 environments\.prod\.guardrails\.rules: unknown rule "nope" \(the rules are: token-type-scheme,/,
      ),
    ]);
  });
});
