import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, type CommandIO } from '../io.js';
import { loadDesiredOrReport, parseVarArgs } from '../inputs.js';
import { githubAnnotation, runValidate, summaryLine } from './validate.js';

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
  vars,
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
    expect(out).toBe(
      'Valid: 2 files, 1 rate limit policy, 2 user permissions (1 user), 0 token exchange profiles.\n',
    );
    expect(err).toBe('');
  });

  it('prints every error as file:line:col: message on stderr, then the count, and exits 1', async () => {
    await put({ 'config/a.yaml': INVALID });
    expect(await runValidate(['config'], opts('text'), io())).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      'config/a.yaml:5:44: limit must be at most 10000\n' +
        'config/a.yaml:6:1: unknown top-level key "extra"; allowed: rate_limit_policies, user_permissions, token_exchange_profiles\n' +
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
      counts: { files: 1, rate_limit_policies: 1, user_permissions: 2, users: 1, token_exchange_profiles: 0 },
      errors: [],
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
      '::error file=b.yaml,line=6,col=1::unknown top-level key "extra"; allowed: rate_limit_policies, user_permissions, token_exchange_profiles',
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
    expect(
      summaryLine({
        files: 3,
        rate_limit_policies: 4,
        user_permissions: 12,
        users: 5,
        token_exchange_profiles: 2,
      }),
    ).toBe(
      'Valid: 3 files, 4 rate limit policies, 12 user permissions (5 users), 2 token exchange profiles.',
    );
  });
});

describe('loadDesiredOrReport', () => {
  it('returns the desired resources of a valid config', async () => {
    await put({ 'a.yaml': VALID });
    const desired = await loadDesiredOrReport(['a.yaml'], { vars: ['CLIENT=abc'], varFiles: [] }, io());
    expect(desired?.map((d) => d.kind)).toEqual(['rate_limit_policy', 'user_permission', 'user_permission']);
    expect(err).toBe('');
  });

  it('prints the issues as text and returns null for an invalid config', async () => {
    await put({ 'a.yaml': INVALID });
    expect(await loadDesiredOrReport('a.yaml', { vars: [], varFiles: [] }, io())).toBeNull();
    expect(err).toContain('a.yaml:5:44: limit must be at most 10000\n');
    expect(err).toMatch(/2 errors\.\n$/);
  });

  it('throws a CliError for a malformed --var', async () => {
    await expect(loadDesiredOrReport('.', { vars: ['oops'], varFiles: [] }, io())).rejects.toThrow(CliError);
  });
});
