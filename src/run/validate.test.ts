/**
 * runValidate (src/run/validate.ts): a typed request in, the validation as
 * data out; with live, the references read against the emulator over
 * 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../../test/helpers/run-emulator.js';
import type { ValidateRequest } from './read-requests.js';
import type { ConfigInput } from './requests.js';
import { runValidate } from './validate.js';

const POLICY = (selector: string, limit = 10) => `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: ${selector}
    configuration: { action: log, limit: ${limit} }
`;

const bench = runBench('tenantform-run-validate-');
const { io, connection } = bench;

function put(dir: string, text: string): ConfigInput {
  mkdirSync(join(bench.work.dir, dir), { recursive: true });
  writeFileSync(join(bench.work.dir, dir, 'p.yaml'), text);
  return { env: dir, paths: [dir], varFiles: [] };
}

function request(inputs: ConfigInput[], overrides: Partial<ValidateRequest> = {}): ValidateRequest {
  return {
    source: { kind: 'inputs', inputs },
    vars: { ok: true, vars: {} },
    strict: false,
    live: null,
    output: { format: 'text' },
    ...overrides,
  };
}

const live = (api: 'spec' | 'full') => ({
  connection: connection(),
  api,
});

describe('runValidate', () => {
  it('one input: its counts, no issue, no reference check, nothing sent', async () => {
    const result = await runValidate(request([put('a', POLICY('default'))]), io());
    expect(result.kind).toBe('one');
    if (result.kind !== 'one') return;
    expect(result.validation.result.issues).toEqual([]);
    expect(result.validation.result.counts.rate_limit_policies).toBe(1);
    expect(result.references).toBeUndefined();
    expect(bench.emulator.stats().requests).toBe(0);
  });

  it('a problem with the variables is the config issue, and nothing is loaded', async () => {
    const issue = { file: '', line: 0, col: 0, message: 'bad', code: 'VAR_ARG_INVALID' };
    const result = await runValidate(
      request([put('a', POLICY('default'))], { vars: { ok: false, issue } }),
      io(),
    );
    expect(result.kind === 'one' && result.validation.result).toMatchObject({ issues: [issue], files: [] });
  });

  it('several inputs: one validation per environment, in order, the invalid one with its issue', async () => {
    const result = await runValidate(
      request([put('a', POLICY('default')), put('b', POLICY('default', 99999))]),
      io(),
    );
    expect(result.kind).toBe('environments');
    if (result.kind !== 'environments') return;
    expect(result.environments.map((e) => [e.env, e.validation.result.issues.length])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('a tenantform.yaml that cannot be read: its problems as the config issues', async () => {
    const issues = [{ file: 'tenantform.yaml', line: 1, col: 1, message: 'bad', code: 'PROJECT_INVALID' }];
    const result = await runValidate({ ...request([]), source: { kind: 'broken-project', issues } }, io());
    expect(result.kind === 'one' && result.validation.result.issues).toEqual(issues);
  });

  it('live under spec: validated, the references left unchecked, nothing sent', async () => {
    const result = await runValidate(
      request([put('a', POLICY('client_id:abc'))], { live: live('spec') }),
      io(),
    );
    expect(result.kind === 'one' && result.references).toEqual({ kind: 'spec' });
    expect(bench.emulator.stats().requests).toBe(0);
  });

  it('live under full, a config that names nothing: no request', async () => {
    const result = await runValidate(request([put('a', POLICY('default'))], { live: live('full') }), io());
    expect(result.kind === 'one' && result.references).toEqual({ kind: 'none-named' });
    expect(bench.emulator.stats().requests).toBe(0);
  });

  it('live under full: reads the applications and names the client id the tenant lacks', async () => {
    const result = await runValidate(
      request([put('a', POLICY('client_id:abc'))], { live: live('full') }),
      io(),
    );
    const references = result.kind === 'one' ? result.references : undefined;
    expect(references?.kind).toBe('read');
    if (references?.kind !== 'read') return;
    expect(references.holds).toBe(false);
    expect(references.missing.map((i) => `${i.file}:${i.line}`)).toEqual(['a/p.yaml:2']);
    expect(Object.keys(references.read.items)).toEqual(['client']);
    expect(bench.emulator.stats().requests).toBeGreaterThan(0);
  });

  it('live with a config issue: reported before any request', async () => {
    const result = await runValidate(
      request([put('a', POLICY('client_id:abc', 99999))], { live: live('full') }),
      io(),
    );
    expect(result.kind === 'one' && result.references).toBeUndefined();
    expect(bench.emulator.stats().requests).toBe(0);
  });
});
