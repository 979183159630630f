import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectError, readProject } from './project.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tenantform-project-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (text: string) => writeFileSync(join(dir, 'tenantform.yaml'), text);

describe('readProject', () => {
  it('returns null without a project file, or for a file path', () => {
    expect(readProject('cfg', dir)).toBeNull();
    writeFileSync(join(dir, 'a.yaml'), 'x: 1');
    expect(readProject('cfg/a.yaml', join(dir, 'a.yaml'))).toBeNull();
  });

  it('reads environments with paths and var files relative to the project', () => {
    write(
      'environments:\n  prod:\n    paths: [common, prod]\n    var_files: [vars/prod.yaml]\n  dev:\n    paths: [dev]\n',
    );
    const project = readProject('cfg', dir);
    expect(project?.environments).toEqual([
      {
        name: 'prod',
        paths: [join('cfg', 'common'), join('cfg', 'prod')],
        varFiles: [join('cfg', 'vars/prod.yaml')],
      },
      { name: 'dev', paths: [join('cfg', 'dev')], varFiles: [] },
    ]);
  });

  it.each([
    ['not a mapping', '- a\n- b\n', /must be a mapping/],
    ['unknown top-level key', 'environments: {a: {paths: [x]}}\nextra: 1\n', /unknown key "extra"/],
    ['no environments', 'environments: {}\n', /environments must map/],
    [
      'paths missing',
      'environments:\n  prod: {var_files: [v.yaml]}\n',
      /environments.prod.paths must be a non-empty list/,
    ],
    ['unknown environment key', 'environments:\n  prod: {paths: [p], vars: [v]}\n', /unknown key "vars"/],
    [
      'path escaping the project',
      'environments:\n  prod: {paths: [../elsewhere]}\n',
      /must be a path inside the project/,
    ],
    ['absolute path', 'environments:\n  prod: {paths: [/etc]}\n', /must be a path inside the project/],
    ['bad environment name', 'environments:\n  "pr od": {paths: [p]}\n', /not a valid environment name/],
    ['YAML syntax error', 'environments: [\n', /tenantform.yaml/],
    ['duplicate keys', 'environments:\n  a: {paths: [x]}\n  a: {paths: [y]}\n', /tenantform.yaml/],
  ])('refuses %s with a message naming the file', (_name, text, message) => {
    mkdirSync(join(dir, 'x'), { recursive: true });
    write(text);
    expect(() => readProject('cfg', dir)).toThrow(ProjectError);
    expect(() => readProject('cfg', dir)).toThrow(message);
  });
});

describe('environment entries: target, credentials, state', () => {
  it('reads domain or base_url, credential variable names and the state', () => {
    write(
      [
        'environments:',
        '  eu:',
        '    paths: [eu]',
        '    domain: eu.example.com',
        '    credentials: { client_id: EU_ID, client_secret: EU_SECRET }',
        '    state: { backend: pg, workspace: eu }',
        '  us:',
        '    paths: [us]',
        '    base_url: http://127.0.0.1:4001/api/v2',
        '    credentials: { token: US_TOKEN }',
        '    state: { path: states/us.json }',
        '',
      ].join('\n'),
    );
    const [eu, us] = readProject('cfg', dir)!.environments;
    expect(eu).toMatchObject({
      target: { domain: 'eu.example.com' },
      credentials: { clientId: 'EU_ID', clientSecret: 'EU_SECRET' },
      state: { backend: 'pg', workspace: 'eu' },
    });
    expect(us).toMatchObject({
      target: { baseUrl: 'http://127.0.0.1:4001/api/v2' },
      credentials: { token: 'US_TOKEN' },
      state: { backend: 'file', path: join('cfg', 'states/us.json') },
    });
  });

  const problems = (text: string): string[] => {
    write(text);
    try {
      readProject('cfg', dir);
    } catch (err) {
      if (err instanceof ProjectError) return err.issues.map((i) => `${i.line}:${i.col} ${i.message}`);
      throw err;
    }
    return [];
  };

  it.each([
    ['a domain with a scheme', '    domain: https://x.example.com\n', /^3:13 .*domain must be a host name/],
    [
      'http:// off loopback',
      '    base_url: http://tenant.example.com/api/v2\n',
      /^3:15 .*http:\/\/ only for a loopback/,
    ],
    ['an unknown credentials key', '    credentials: { password: P }\n', /^3:20 .*unknown key "password"/],
    ['client_id without client_secret', '    credentials: { client_id: ID }\n', /^3:18 .*go together/],
    ['pg without a workspace', '    state: { backend: pg }\n', /^3:12 .*workspace must be/],
    ['an unknown backend', '    state: { backend: s3 }\n', /^3:23 .*backend must be file or pg/],
    ['a state path outside the project', '    state: { path: ../x.json }\n', /^3:20 .*inside the project/],
  ])('reports %s at its line and column', (_name, line, message) => {
    const found = problems(`environments:\n  a:\n${line}    paths: [a]\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it('never repeats a value that is not a variable name: it may be a secret', () => {
    const found = problems(
      'environments:\n  a:\n    paths: [a]\n    credentials: { token: "s3cr3t-value!" }\n',
    );
    expect(found).toEqual([
      '4:27 environments.a.credentials.token must be the NAME of an environment variable (letters, digits and _), never the secret itself',
    ]);
  });

  it('refuses two environments sharing one state, naming both', () => {
    const found = problems(
      'environments:\n  a: { paths: [a], state: { backend: pg, workspace: w } }\n  b: { paths: [b], state: { backend: pg, workspace: w } }\n',
    );
    expect(found).toEqual([
      '3:3 environments.b uses the same pg workspace "w" as a: give each environment its own state',
    ]);
    expect(problems('environments:\n  a: { paths: [common, x] }\n  b: { paths: [common, x] }\n')[0]).toMatch(
      /^3:3 .*same state file/,
    );
  });

  it('reports every problem, not just the first', () => {
    expect(problems('environments:\n  a: { paths: [a], domain: "a b" }\n  b: { paths: [] }\n')).toHaveLength(
      2,
    );
  });
});
