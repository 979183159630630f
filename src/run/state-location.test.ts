import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { locateDefaultState, NO_SCOPE, type StateScope } from './state-location.js';

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-location-');
  mkdirSync(join(work.dir, 'repo'));
  writeFileSync(join(work.dir, 'repo', 'a.yaml'), '');
});
afterEach(() => work.cleanup());

const repo = () => join(work.dir, 'repo');
const at = (...parts: string[]) => join(repo(), '.tenantform', ...parts);
const TARGET = 'https://tenant.example.com/api/v2';
const LOCAL = 'http://127.0.0.1:4000/api/v2';

function state(path: string, tenant?: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const bound = tenant ? { tenant: { host: new URL(tenant).host, api_base: tenant } } : {};
  writeFileSync(
    path,
    JSON.stringify({ format_version: 2, lineage: 'l', serial: 1, ...bound, resources: [] }),
  );
}

describe('the default state location', () => {
  it.each<[string, string, StateScope, string[]]>([
    ['a directory, an environment', '', { env: 'prod', target: TARGET }, ['env-prod', 'state.json']],
    ['a directory, a target', '', { env: null, target: TARGET }, ['tenant.example.com', 'state.json']],
    [
      'a directory, a loopback target with a port',
      '',
      { env: null, target: LOCAL },
      ['127.0.0.1_4000', 'state.json'],
    ],
    ['a directory, neither', '', NO_SCOPE, ['state.json']],
    ['a file, an environment', 'a.yaml', { env: 'prod', target: null }, ['env-prod', 'a.yaml.state.json']],
    [
      'a file, a target',
      'a.yaml',
      { env: null, target: TARGET },
      ['tenant.example.com', 'a.yaml.state.json'],
    ],
    ['a file, neither', 'a.yaml', NO_SCOPE, ['a.yaml.state.json']],
  ])('is per config path and environment or target: %s', (_what, file, scope, parts) => {
    expect(locateDefaultState(join(repo(), file), scope)).toEqual({ path: at(...parts), moveTo: null });
  });

  it('keeps two configs of one directory apart', () => {
    writeFileSync(join(repo(), 'b.yaml'), '');
    const scope = { env: null, target: TARGET };
    expect(locateDefaultState(join(repo(), 'a.yaml'), scope).path).not.toBe(
      locateDefaultState(join(repo(), 'b.yaml'), scope).path,
    );
  });

  it('finds a state where earlier versions kept it, with where to move it while it is not bound', () => {
    state(at('state.json'));
    const found = locateDefaultState(join(repo(), 'a.yaml'), { env: null, target: TARGET });
    expect(found.path).toBe(at('state.json'));
    expect(found.moveTo).toBe(at('tenant.example.com', 'a.yaml.state.json'));
    state(at('state.json'), TARGET);
    expect(locateDefaultState(join(repo(), 'a.yaml'), { env: null, target: TARGET })).toEqual({
      path: at('state.json'),
      moveTo: null,
    });
  });

  it('finds the older state from its journal alone (a crash before the first compaction)', () => {
    mkdirSync(at(), { recursive: true });
    writeFileSync(`${at('state.json')}.journal`, '');
    expect(locateDefaultState(repo(), { env: 'prod', target: null }).path).toBe(at('state.json'));
  });

  it('passes over an older state bound to another tenant, and prefers the scoped one once it exists', () => {
    state(at('state.json'), LOCAL);
    expect(locateDefaultState(repo(), { env: null, target: TARGET }).path).toBe(
      at('tenant.example.com', 'state.json'),
    );
    state(at('127.0.0.1_4000', 'state.json'), LOCAL);
    expect(locateDefaultState(repo(), { env: null, target: LOCAL }).path).toBe(
      at('127.0.0.1_4000', 'state.json'),
    );
  });

  it('without a scope, takes the one state of the config, and asks when there are several', () => {
    expect(locateDefaultState(repo(), NO_SCOPE).path).toBe(at('state.json'));
    state(at('127.0.0.1_4000', 'state.json'), LOCAL);
    expect(locateDefaultState(repo(), NO_SCOPE).path).toBe(at('127.0.0.1_4000', 'state.json'));
    state(at('tenant.example.com', 'state.json'), TARGET);
    expect(() => locateDefaultState(repo(), NO_SCOPE)).toThrow(
      /has several states \(.*127\.0\.0\.1_4000.*tenant\.example\.com.*\) and nothing says which to use; give the target/,
    );
    // A config file's states are its own: the directory's do not count.
    expect(locateDefaultState(join(repo(), 'a.yaml'), NO_SCOPE).path).toBe(at('a.yaml.state.json'));
  });
});
