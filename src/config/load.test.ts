import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countsWith } from '../../test/helpers/kind-examples.js';
import { loadConfig } from './load.js';
import { flagIssue } from '../cli/config-issues.js';

const policy = (selector: string) => `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: { action: block, limit: 100 }
`;
const profile = (stt: string) => `token_exchange_profiles:
  - { name: Partner SSO, subject_token_type: "${stt}", action_id: abc, type: custom_authentication }
`;

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantform-config-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), content);
  }
}

const load = (path: string | string[], options: Parameters<typeof loadConfig>[1] = {}) =>
  loadConfig(path, { cwd: root, env: {}, ...options });

describe('loadConfig: files and directories', () => {
  it('reads every .yaml and .yml file below a directory in sorted path order, skipping dot entries and node_modules', async () => {
    await put({
      'config/b.yaml': policy('client_id:b'),
      'config/a/z.yml': policy('client_id:az'),
      'config/a.yaml': policy('client_id:a'),
      'config/c/d/e.YAML': policy('client_id:cde'),
      'config/notes.txt': 'not yaml',
      'config/.tenantform/state.yaml': 'garbage: [',
      'config/.github/workflows/ci.yml': 'on: push\n',
      'config/.hidden.yaml': 'garbage: [',
      'config/node_modules/pkg/x.yaml': 'garbage: [',
    });
    const result = await load('config');
    expect(result.issues).toEqual([]);
    expect(result.files).toEqual(['config/a.yaml', 'config/a/z.yml', 'config/b.yaml', 'config/c/d/e.YAML']);
    expect(result.desired.map((r) => r.identity[2])).toEqual([
      'client_id:a',
      'client_id:az',
      'client_id:b',
      'client_id:cde',
    ]);
    expect(result.desired[1]!.source).toEqual({ file: 'config/a/z.yml', line: 2, col: 5 });
  });

  it('concatenates the lists of all files and counts them', async () => {
    await put({
      'c/policies.yaml': policy('default'),
      'c/profiles.yaml': profile('urn:partner:token'),
      'c/empty.yaml': '',
    });
    const result = await load('c');
    expect(result.counts).toEqual(
      countsWith({ files: 3, rate_limit_policies: 1, token_exchange_profiles: 1 }),
    );
  });

  it('reports a duplicate identity across files at the later one, naming the earlier', async () => {
    await put({
      'c/one.yaml': profile('urn:partner:token'),
      'c/two.yaml': `# second\n${profile('urn:partner:token')}`,
    });
    const result = await load('.');
    expect(result.issues).toEqual([
      {
        file: 'c/two.yaml',
        line: 3,
        col: 5,
        code: 'DUPLICATE_RESOURCE',
        message:
          'duplicate token exchange profile for subject_token_type urn:partner:token: also declared at c/one.yaml:2:5',
      },
    ]);
    expect(result.desired).toEqual([]);
  });

  it('merges several paths and reads a file named twice once', async () => {
    await put({ 'a.yaml': policy('client_id:a'), 'dir/b.yml': policy('client_id:b') });
    const result = await load(['a.yaml', 'dir', './a.yaml']);
    expect(result.issues).toEqual([]);
    expect(result.files).toEqual(['a.yaml', 'dir/b.yml']);
  });

  it('reads a file given by name whatever its extension', async () => {
    await put({ 'tenant.conf': policy('default') });
    expect((await load('tenant.conf')).counts.rate_limit_policies).toBe(1);
  });

  it('shows paths outside the working directory as absolute', async () => {
    await put({ 'outside/x.yaml': 'bogus: 1\n' });
    const result = await loadConfig(join(root, 'outside'), { cwd: join(root, 'elsewhere'), env: {} });
    expect(result.issues[0]!.file).toBe(join(root, 'outside', 'x.yaml'));
  });

  it('reports a missing path and a directory without config files', async () => {
    await put({ 'empty/readme.md': '# hi\n' });
    const result = await load(['missing', 'empty']);
    expect(result.issues).toEqual([
      {
        file: 'empty',
        line: 0,
        col: 0,
        code: 'NO_CONFIG_FILES',
        message: 'no .yaml or .yml config files in this directory',
      },
      {
        file: 'missing',
        line: 0,
        col: 0,
        code: 'PATH_NOT_FOUND',
        message: 'cannot read: no such file or directory',
      },
    ]);
  });

  it('refuses a file over the size limit without reading it, naming the file and its size', async () => {
    await put({ 'big.yaml': `# ${'x'.repeat(200)}\n` });
    const result = await load('big.yaml', { limits: { maxFileBytes: 100 } });
    expect(result.issues).toEqual([
      {
        file: 'big.yaml',
        line: 0,
        col: 0,
        code: 'FILE_TOO_LARGE',
        message: 'file is 203 bytes, over the 100 bytes limit for one file; split it into several files',
      },
    ]);
  });

  it('reads a file exactly at the size limit', async () => {
    await put({ 'edge.yaml': `# ${'x'.repeat(97)}\n` });
    expect((await load('edge.yaml', { limits: { maxFileBytes: 100 } })).issues).toEqual([]);
  });

  it('reports invalid UTF-8 at the line and column of the first bad byte', async () => {
    await put({
      'bad.yaml': Uint8Array.from([
        ...new TextEncoder().encode('token_exchange_profiles:\n  - name: Caf'),
        0xe9,
      ]),
    });
    const result = await load('bad.yaml');
    expect(result.issues).toEqual([
      {
        file: 'bad.yaml',
        line: 2,
        col: 14,
        code: 'FILE_NOT_UTF8',
        message: 'invalid UTF-8 (byte 0xe9); save the file as UTF-8',
      },
    ]);
  });
});

describe('loadConfig: variables', () => {
  const selectorOf = async (options: Parameters<typeof loadConfig>[1]) => {
    const result = await load('c', options);
    expect(result.issues).toEqual([]);
    return result.desired[0]!.identity[2];
  };

  beforeEach(async () => {
    await put({ 'c/policy.yaml': policy('client_id:${CLIENT}') });
  });

  it('takes a variable from the environment as TENANTFORM_VAR_NAME', async () => {
    expect(await selectorOf({ env: { TENANTFORM_VAR_CLIENT: 'env' } })).toBe('client_id:env');
  });

  it('prefers a --var-file over the environment, and a later var file over an earlier one', async () => {
    await put({ 'one.yaml': 'CLIENT: one\n', 'two.yaml': 'CLIENT: two\n' });
    expect(await selectorOf({ env: { TENANTFORM_VAR_CLIENT: 'env' }, varFiles: ['one.yaml'] })).toBe(
      'client_id:one',
    );
    expect(await selectorOf({ varFiles: ['one.yaml', 'two.yaml'] })).toBe('client_id:two');
  });

  it('prefers --var over var files and the environment', async () => {
    await put({ 'one.yaml': 'CLIENT: one\n' });
    expect(
      await selectorOf({
        env: { TENANTFORM_VAR_CLIENT: 'env' },
        varFiles: ['one.yaml'],
        vars: { CLIENT: 'flag' },
      }),
    ).toBe('client_id:flag');
  });

  it('keeps numbers in a var file as written', async () => {
    await put({ 'vars.yaml': 'CLIENT: 007\n' });
    expect(await selectorOf({ varFiles: ['vars.yaml'] })).toBe('client_id:007');
  });

  it('does not read a var file inside the config directory as config', async () => {
    await put({ 'c/vars.yaml': 'CLIENT: inside\n' });
    expect(await selectorOf({ varFiles: ['c/vars.yaml'] })).toBe('client_id:inside');
  });

  it('reports an unset variable at its position, naming the settings that set one', async () => {
    const result = await load('c');
    expect(result.issues).toEqual([
      {
        file: 'c/policy.yaml',
        line: 4,
        col: 34,
        code: 'VAR_UNRESOLVED',
        message:
          'variable CLIENT is not set: pass a variable setting CLIENT=VALUE, put it in a variable file, or set TENANTFORM_VAR_CLIENT',
        wording: expect.anything(),
      },
    ]);
    // On the command line, each setting by its flag, and the issue shown without its wording.
    expect(flagIssue(result.issues[0]!)).toEqual({
      file: 'c/policy.yaml',
      line: 4,
      col: 34,
      message:
        'variable CLIENT is not set: pass --var CLIENT=VALUE, put it in a --var-file, or set TENANTFORM_VAR_CLIENT',
      code: 'VAR_UNRESOLVED',
    });
  });

  it('reports a missing var file', async () => {
    const result = await load('c', { varFiles: ['nope.yaml'], vars: { CLIENT: 'x' } });
    expect(result.issues).toEqual([
      {
        file: 'nope.yaml',
        line: 0,
        col: 0,
        code: 'VAR_FILE_NOT_FOUND',
        message: 'cannot read variable file: no such file or directory',
      },
    ]);
  });

  it.each([
    ['a list', '- CLIENT\n', '1:1: a variable file must be a mapping of NAME: value'],
    [
      'a bad name',
      'CLIENT: x\nbad-name: y\n',
      '2:1: "bad-name" is not a variable name: use letters, digits and _, not starting with a digit',
    ],
    [
      'a nested value',
      'CLIENT:\n  a: 1\n',
      '2:3: variable CLIENT must be a single value (text, a number or true/false)',
    ],
    ['a syntax error', 'CLIENT: [x\n', '2:1: YAML syntax error'],
  ])('reports a var file that is %s at the position', async (_title, content, expected) => {
    await put({ 'vars.yaml': content });
    const result = await load('c', { varFiles: ['vars.yaml'], vars: { CLIENT: 'x' } });
    expect(result.issues.map((i) => `${i.line}:${i.col}: ${i.message}`).join('\n')).toContain(expected);
    expect(result.issues.every((i) => i.file === 'vars.yaml')).toBe(true);
  });
});
