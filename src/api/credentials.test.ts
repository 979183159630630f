import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCredentials } from './credentials.js';

const dir = mkdtempSync(join(tmpdir(), 'tenantform-creds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('resolveCredentials', () => {
  it('reads a trimmed token from --token-file before any variable', () => {
    const path = file('token', '  tok-from-file\n');
    expect(resolveCredentials({ tokenFile: path }, { TENANTFORM_TOKEN: 'env-token' })).toEqual({
      kind: 'token',
      token: 'tok-from-file',
    });
  });

  it('accepts a token file holding "Bearer <token>"', () => {
    expect(resolveCredentials({ tokenFile: file('bearer', 'Bearer abc.def.ghi\n') }, {})).toEqual({
      kind: 'token',
      token: 'abc.def.ghi',
    });
  });

  it.each([
    [
      {
        TENANTFORM_TOKEN: 't1',
        AUTH0_ACCESS_TOKEN: 't2',
        TENANTFORM_CLIENT_ID: 'id',
        TENANTFORM_CLIENT_SECRET: 's',
      },
      {
        kind: 'token',
        token: 't1',
        source: 'TENANTFORM_TOKEN',
        unused: 'TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET',
      },
    ],
    [
      { AUTH0_ACCESS_TOKEN: 't2', TENANTFORM_CLIENT_ID: 'id', TENANTFORM_CLIENT_SECRET: 's' },
      {
        kind: 'token',
        token: 't2',
        source: 'AUTH0_ACCESS_TOKEN',
        unused: 'TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET',
      },
    ],
    [
      {
        TENANTFORM_CLIENT_ID: 'id1',
        TENANTFORM_CLIENT_SECRET: 's1',
        AUTH0_CLIENT_ID: 'id2',
        AUTH0_CLIENT_SECRET: 's2',
      },
      { kind: 'client_credentials', clientId: 'id1', clientSecret: 's1' },
    ],
    [
      { AUTH0_CLIENT_ID: 'id2', AUTH0_CLIENT_SECRET: 's2' },
      { kind: 'client_credentials', clientId: 'id2', clientSecret: 's2' },
    ],
    [
      { TENANTFORM_TOKEN: '', AUTH0_CLIENT_ID: 'id2', AUTH0_CLIENT_SECRET: 's2' },
      { kind: 'client_credentials', clientId: 'id2', clientSecret: 's2' },
    ],
  ])('picks credentials in order of precedence (%o)', (env, expected) => {
    expect(resolveCredentials({}, env)).toEqual(expected);
  });

  it.each([
    [{ TENANTFORM_CLIENT_ID: 'id' }, /TENANTFORM_CLIENT_ID is set but TENANTFORM_CLIENT_SECRET is not/],
    [{ AUTH0_CLIENT_SECRET: 'secret-value' }, /AUTH0_CLIENT_SECRET is set but AUTH0_CLIENT_ID is not/],
    [{}, /set TENANTFORM_TOKEN .*the token file FILE.*TENANTFORM_CLIENT_ID and TENANTFORM_CLIENT_SECRET/],
  ])('refuses incomplete credentials (%o)', (env, message) => {
    expect(() => resolveCredentials({}, env)).toThrow(message);
  });

  it('refuses a missing or empty token file without printing its content', () => {
    expect(() => resolveCredentials({ tokenFile: join(dir, 'nope') }, {})).toThrow(
      /cannot read the token file .*ENOENT/,
    );
    expect(() => resolveCredentials({ tokenFile: file('empty', ' \n') }, {})).toThrow(/is empty/);
    const twoWords = file('two', 'secret-one secret-two');
    let message = '';
    try {
      resolveCredentials({ tokenFile: twoWords }, {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/single token/);
    expect(message).not.toContain('secret-one');
  });

  it.each([
    [
      'TENANTFORM_TOKEN',
      'abc\ndef',
      /TENANTFORM_TOKEN holds a line break at character 4 .*set TENANTFORM_TOKEN again.*Nothing was sent/,
    ],
    ['AUTH0_ACCESS_TOKEN', 'abc\rdef', /AUTH0_ACCESS_TOKEN holds a line break at character 4/],
    [
      'TENANTFORM_TOKEN',
      'ab\u0000c',
      /TENANTFORM_TOKEN holds a control character \(U\+0000\) at character 3/,
    ],
    [
      'TENANTFORM_TOKEN',
      'ab\u2028c',
      /TENANTFORM_TOKEN holds a character an HTTP header cannot carry \(U\+2028\)/,
    ],
  ])(
    'names %s and the problem when the token holds a character no header can carry',
    (name, token, message) => {
      let thrown = '';
      try {
        resolveCredentials({}, { [name]: token });
      } catch (e) {
        thrown = (e as Error).message;
      }
      expect(thrown).toMatch(message);
      expect(thrown).not.toContain('def');
    },
  );
});
