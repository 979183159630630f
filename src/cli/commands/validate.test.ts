import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configKeys, countsWith, LATER_KINDS_ZERO } from '../../../test/helpers/kind-examples.js';
import { CliError, type CommandIO } from '../io.js';
import { parseVarArgs } from '../inputs.js';
import { githubAnnotation, summaryLine } from './validate.js';
import { validatePrinted as runValidate } from '../../../test/helpers/validate.js';
import { varsOrProblem } from '../read-requests.js';
import type { ConfigCounts } from '../../resources/index.js';

const VALID = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:\${CLIENT}
    configuration: { action: block, limit: 100 }
user_permissions:
  - user_id: "auth0|1"
    permissions:
      - { resource_server_identifier: "https://api.example.com/", permission_name: "read:reports" }
      - { resource_server_identifier: "https://api.example.com/", permission_name: "write:reports" }
`;

const INVALID = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 10001 }
extra: 1
`;

let root: string;
let out: string;
let err: string;

function io(env: Record<string, string> = {}): CommandIO {
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    cwd: root,
  };
}

async function put(files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), content);
  }
}

const opts = (
  format: 'text' | 'json' | 'github',
  vars: string[] = ['CLIENT=abc'],
  varFiles: string[] = [],
) => ({
  vars: varsOrProblem(vars),
  varFiles,
  format,
});

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-validate-'));
  out = '';
  err = '';
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('runValidate', () => {
  it('prints one summary line and exits 0 for a valid config', async () => {
    await put({ 'config/a.yaml': VALID, 'config/b.yaml': '' });
    expect(await runValidate('config', opts('text'), io())).toBe(0);
    expect(out).toMatch(
      new RegExp(
        `^Valid: 2 files, 1 rate limit policy, 2 user permissions \\(1 user\\), 0 token exchange profiles${LATER_KINDS_ZERO}\\.\\n$`,
      ),
    );
    // The one policy is a client's: nothing limits the other applications (a guardrail's warning).
    expect(err).toBe(
      "config/a.yaml:2:5: warning: no rate limit policy for default: an application no policy names (and not in a group that has one) has no limit but the tenant's own; add consumer_selector: default, in log first [no-default-policy]\n" +
        '1 warning.\n',
    );
  });

  it('prints every error as file:line:col: message on stderr, then the count, and exits 1', async () => {
    await put({ 'config/a.yaml': INVALID });
    expect(await runValidate(['config'], opts('text'), io())).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      'config/a.yaml:5:44: limit must be at most 10000\n' +
        `config/a.yaml:6:1: unknown top-level key "extra"; allowed: ${configKeys()}\n` +
        '2 errors.\n',
    );
  });

  it('defaults to the current directory when no path is given', async () => {
    await put({ 'a.yaml': VALID });
    expect(await runValidate([], opts('text'), io())).toBe(0);
  });

  it('takes variables from the environment io', async () => {
    await put({ 'a.yaml': VALID });
    expect(await runValidate('a.yaml', opts('text', []), io({ TENANTFORM_VAR_CLIENT: 'abc' }))).toBe(0);
  });

  it('prints one JSON object for --format json, valid or not', async () => {
    await put({ 'a.yaml': VALID, 'b.yaml': INVALID });
    expect(await runValidate('a.yaml', opts('json'), io())).toBe(0);
    expect(JSON.parse(out)).toEqual({
      valid: true,
      files: ['a.yaml'],
      counts: countsWith({ files: 1, rate_limit_policies: 1, user_permissions: 2, users: 1 }),
      errors: [],
      warnings: [expect.objectContaining({ file: 'a.yaml', line: 2, col: 5, code: 'no-default-policy' })],
    });
    out = '';
    expect(await runValidate('b.yaml', opts('json'), io())).toBe(1);
    const body = JSON.parse(out) as { valid: boolean; errors: unknown[] };
    expect(body.valid).toBe(false);
    expect(body.errors[0]).toEqual({
      file: 'b.yaml',
      line: 5,
      col: 44,
      message: 'limit must be at most 10000',
      code: 'SCHEMA_MAXIMUM',
    });
    expect(out.trim().split('\n')).toHaveLength(1);
  });

  it('prints GitHub annotations for --format github, then the summary', async () => {
    await put({ 'b.yaml': INVALID });
    expect(await runValidate('b.yaml', opts('github'), io())).toBe(1);
    expect(out.split('\n')).toEqual([
      '::error file=b.yaml,line=5,col=44::limit must be at most 10000',
      `::error file=b.yaml,line=6,col=1::unknown top-level key "extra"; allowed: ${configKeys()}`,
      '2 errors.',
      '',
    ]);
  });

  it('reports a malformed --var as an error, in every format', async () => {
    await put({ 'a.yaml': VALID });
    expect(await runValidate('a.yaml', opts('text', ['CLIENT']), io())).toBe(1);
    expect(err).toBe('--var "CLIENT" has no value: write --var NAME=VALUE\n1 error.\n');
    expect(await runValidate('a.yaml', opts('json', ['CLIENT']), io())).toBe(1);
    expect(JSON.parse(out).errors[0]).toMatchObject({ file: '', line: 0, col: 0, code: 'VAR_ARG_INVALID' });
  });

  it('reports a missing --var-file and exits 1', async () => {
    await put({ 'a.yaml': VALID });
    expect(await runValidate('a.yaml', opts('text', ['CLIENT=x'], ['prod.vars.yaml']), io())).toBe(1);
    expect(err).toBe('prod.vars.yaml: cannot read variable file: no such file or directory\n1 error.\n');
  });
});

describe('parseVarArgs', () => {
  it('splits at the first = and lets a later flag win', () => {
    expect(parseVarArgs(['A=1', 'B=x=y', 'A=2', 'EMPTY='])).toEqual({ A: '2', B: 'x=y', EMPTY: '' });
  });

  it('keeps __proto__ as a plain entry', () => {
    const vars = parseVarArgs(['__proto__=x']);
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(Object.keys(vars)).toEqual(['__proto__']);
  });

  it.each([['NOVALUE'], ['=x'], ['1A=x'], ['A-B=x']])('refuses %j with a CliError', (arg) => {
    expect(() => parseVarArgs([arg])).toThrow(CliError);
  });
});

describe('githubAnnotation', () => {
  it('escapes % and newlines in the message, and also : and , in properties', () => {
    const line = githubAnnotation({
      file: 'a,b:c%.yaml',
      line: 2,
      col: 3,
      message: '50% off\r\nnow',
      code: 'X',
    });
    expect(line).toBe('::error file=a%2Cb%3Ac%25.yaml,line=2,col=3::50%25 off%0D%0Anow');
  });

  it('leaves out line and col for whole-file errors, and the file for command-line errors', () => {
    expect(githubAnnotation({ file: 'big.yaml', line: 0, col: 0, message: 'too big', code: 'X' })).toBe(
      '::error file=big.yaml::too big',
    );
    expect(githubAnnotation({ file: '', line: 0, col: 0, message: 'bad flag', code: 'X' })).toBe(
      '::error::bad flag',
    );
  });
});

describe('summaryLine', () => {
  it('uses singular and plural forms', () => {
    // The kinds after these three (none shipped yet) are counted 0.
    const counts = {
      files: 3,
      rate_limit_policies: 4,
      user_permissions: 12,
      users: 5,
      token_exchange_profiles: 2,
    };
    expect(summaryLine(counts as ConfigCounts)).toMatch(
      new RegExp(
        `^Valid: 3 files, 4 rate limit policies, 12 user permissions \\(5 users\\), 2 token exchange profiles${LATER_KINDS_ZERO}\\.$`,
      ),
    );
  });
});

describe('validate and the guardrails', () => {
  const PROFILES = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 0 }
token_exchange_profiles:
  - name: Legacy tokens
    subject_token_type: urn:auth0:legacy
    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c
    type: custom_authentication
`;

  it('refuses a reserved subject_token_type at file:line:col with its rule code, and still reports warnings', async () => {
    await put({ 'a.yaml': PROFILES });
    expect(await runValidate('a.yaml', opts('text'), io())).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      'a.yaml:2:5: warning: default has limit 0 with block: every sign-in of every application no other policy names is refused [shared-limit-zero]\n' +
        '1 warning.\n' +
        'a.yaml:7:5: subject_token_type "urn:auth0:legacy" is in the namespace urn:auth0, which the service reserves and refuses: use one you own, such as urn:<your-company>:<token-name> [token-type-reserved]\n' +
        '1 error.\n',
    );
  });

  it('gives the rule code as the issue code in JSON, and GitHub annotations of both levels', async () => {
    await put({ 'a.yaml': PROFILES });
    expect(await runValidate('a.yaml', opts('json'), io())).toBe(1);
    const body = JSON.parse(out) as {
      errors: { code: string; line: number }[];
      warnings: { code: string }[];
    };
    expect(body.errors.map((e) => [e.code, e.line])).toEqual([['token-type-reserved', 7]]);
    expect(body.warnings.map((w) => w.code)).toEqual(['shared-limit-zero']);
    out = '';
    await runValidate('a.yaml', opts('github'), io());
    expect(out).toContain('::error file=a.yaml,line=7,col=5::subject_token_type "urn:auth0:legacy" is in');
    expect(out).toContain('[token-type-reserved]');
    expect(out).toContain('::warning file=a.yaml,line=2,col=5::default has limit 0 with block');
  });

  it('follows the settings: off drops a rule, --strict makes a warning an error', async () => {
    await put({ 'a.yaml': PROFILES });
    const settings = { rules: { 'token-type-reserved': 'off' as const } };
    expect(await runValidate('a.yaml', { ...opts('text'), guardrails: settings }, io())).toBe(0);
    expect(err).toContain('[shared-limit-zero]');
    err = '';
    out = '';
    const strict = { ...settings, strict: true };
    expect(await runValidate('a.yaml', { ...opts('text'), guardrails: strict }, io())).toBe(1);
    expect(err).toMatch(
      /^a\.yaml:2:5: default has limit 0 with block: .* \[shared-limit-zero\]\n1 error\.\n$/,
    );
  });

  it('takes the settings of each environment from tenantform.yaml, and --strict from the command line', async () => {
    await put({
      'tenantform.yaml': [
        'guardrails:',
        '  rules: { token-type-reserved: off }',
        'environments:',
        '  dev: { paths: [dev] }',
        '  prod:',
        '    paths: [prod]',
        '    guardrails: { rules: { token-type-reserved: error, shared-limit-zero: off } }',
        '',
      ].join('\n'),
      'dev/a.yaml': PROFILES,
      'prod/a.yaml': PROFILES,
    });
    const { runCli } = await import('../../../test/helpers/cli.js');
    const run = await runCli(['validate', '.', '--format', 'json'], { cwd: root });
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as {
      environments: {
        environment: string;
        valid: boolean;
        errors: { code: string }[];
        warnings: { code: string }[];
      }[];
    };
    expect(
      body.environments.map((e) => [
        e.environment,
        e.valid,
        e.errors.map((i) => i.code),
        e.warnings.map((i) => i.code),
      ]),
    ).toEqual([
      ['dev', true, [], ['shared-limit-zero']],
      ['prod', false, ['token-type-reserved'], []],
    ]);
    const strict = await runCli(['validate', '.', '--env', 'dev', '--strict'], { cwd: root });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('dev/a.yaml:2:5: default has limit 0 with block');
  });
});
