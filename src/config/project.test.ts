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
