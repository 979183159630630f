import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { runErrorMessage } from '../cli/run-words.js';
import { RunError } from './errors.js';
import { runExplain } from './explain.js';
import type { ExplainRequest } from './read-requests.js';
import type { RunIO } from './requests.js';

const CONFIG = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: client_id:web
    configuration: { action: log, limit: 20 }
`;

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-run-explain-');
  mkdirSync(join(work.dir, 'config'));
  writeFileSync(join(work.dir, 'config', 'p.yaml'), CONFIG);
});
afterEach(() => work.cleanup());

const io = (): RunIO => ({ env: {}, cwd: work.dir, notice: () => {} });

const request = (over: Partial<ExplainRequest> = {}): ExplainRequest => ({
  input: { env: null, paths: ['config'], varFiles: [] },
  vars: {},
  clients: [],
  policies: [],
  allClients: null,
  output: { format: 'text' },
  ...over,
});

/** The RunError `run` throws. */
async function problemOf(run: Promise<unknown>): Promise<RunError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunError);
  return err as RunError;
}

describe('runExplain', () => {
  it('returns the report as data: every policy, the clients given, nothing read', async () => {
    const result = await runExplain(request({ clients: ['web', 'other'] }), io());
    expect(result).toMatchObject({ kind: 'report', applications: 2, read: null });
    if (result.kind !== 'report') return;
    expect(result.report.clients.map((c) => [c.application.client_id, c.policy?.selector])).toEqual([
      ['web', 'client_id:web'],
      ['other', 'default'],
    ]);
    expect(result.report.policies).toEqual([]);
    expect(result.report.from).toBeUndefined();
  });

  it("returns the config's problems, not an error", async () => {
    writeFileSync(join(work.dir, 'config', 'p.yaml'), 'rate_limit_policies: 3\n');
    const result = await runExplain(request(), io());
    expect(result.kind).toBe('config-issues');
  });

  it('says a policy the config does not declare as data, worded with the flag by the CLI', async () => {
    const err = await problemOf(runExplain(request({ policies: ['client_id:wbe'] }), io()));
    expect(err.problem).toEqual({
      code: 'POLICY_NOT_DECLARED',
      text: 'client_id:wbe',
      selector: 'client_id:wbe',
      closest: 'client_id:web',
      declared: 2,
    });
    expect(err.message).not.toMatch(/--/);
    expect(runErrorMessage(err)).toBe(
      '--policy client_id:wbe: the configuration declares no rate limit policy for client_id:wbe (did you mean client_id:web?)',
    );
    const other = await problemOf(runExplain(request({ policies: ['token_exchange_profile["x"]'] }), io()));
    expect(runErrorMessage(other)).toBe('--policy token_exchange_profile["x"]: not a rate limit policy');
  });

  it('refuses to read the applications under the spec profile, before any request', async () => {
    const connection = {
      named: { baseUrl: 'http://127.0.0.1:9/api/v2' },
      target: { baseUrl: 'http://127.0.0.1:9/api/v2' },
      debug: false,
      pacing: {},
      reassignTenant: false,
    };
    const err = await problemOf(runExplain(request({ allClients: { connection, api: 'spec' } }), io()));
    expect(err.problem).toEqual({ code: 'READ_NEEDS_FULL', read: 'all-clients' });
    expect(runErrorMessage(err)).toMatch(
      /^explain --all-clients reads the tenant, and the spec API profile has no read operation: .*--api full/,
    );
  });
});
