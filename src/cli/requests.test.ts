import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { RunError } from '../run/errors.js';
import { applyCommand, planCommand } from './definitions.js';
import type { CommandIO } from './io.js';
import { parseApplyRequest, parsePlanRequest } from './requests.js';
import { runErrorMessage } from './run-words.js';

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-requests-');
  mkdirSync(join(work.dir, 'prod'));
  writeFileSync(join(work.dir, 'prod', 'policies.yaml'), 'rate_limit_policies: []\n');
  writeFileSync(
    join(work.dir, 'tenantform.yaml'),
    [
      'environments:',
      '  prod:',
      '    paths: [prod]',
      '    domain: prod.example.com',
      '    api: full',
      '    state: { backend: file, path: prod/prod.state.json }',
      '',
    ].join('\n'),
  );
});
afterEach(() => work.cleanup());

const quiet = { write: () => true };
const io = (): CommandIO => ({ stdout: quiet, stderr: quiet, env: {}, cwd: work.dir });

/** The flags commander hands apply's action for `args`. */
function applyFlags(args: string[]) {
  const cmd = applyCommand(new Command().exitOverride()).exitOverride();
  cmd.parse(args, { from: 'user' });
  return { paths: cmd.args, flags: cmd.opts() };
}

function planFlags(args: string[]) {
  const cmd = planCommand(new Command().exitOverride()).exitOverride();
  cmd.parse(args, { from: 'user' });
  return { paths: cmd.args, flags: cmd.opts() };
}

const noPlanFile = () => false;

describe('apply as a typed request', () => {
  it('is parsed once from the flags and the environment of tenantform.yaml, every value typed', () => {
    const { paths, flags } = applyFlags([
      '.',
      '--env',
      'prod',
      '--parallelism',
      '4',
      '--lock-timeout',
      '30s',
      '--max-rps',
      '5',
      '--rate-limit-timeout',
      '2m',
      '--target',
      'rate_limit_policy["a","client","default"]',
      '--token-file',
      'token.txt',
      '--var',
      'A=1',
    ]);
    const request = parseApplyRequest(paths, flags, io(), noPlanFile);
    expect(request).toMatchObject({
      command: 'apply',
      source: { kind: 'config', input: { env: 'prod', paths: ['prod'] }, vars: { A: '1' } },
      state: { file: 'prod/prod.state.json', backend: 'file' },
      lockTimeoutMs: 30_000,
      connection: {
        named: {},
        target: { domain: 'prod.example.com' },
        tokenFile: join(work.dir, 'token.txt'),
        pacing: { maxRps: 5, retry: { rateLimitTimeoutMs: 120_000 } },
        reassignTenant: false,
        debug: false,
      },
      api: 'full',
      selection: { targets: ['rate_limit_policy["a","client","default"]'], replace: [], destroy: false },
      parallelism: 4,
      batchSize: 100,
      output: { json: false, verbose: false },
    });
  });

  it("takes the command line's target and state over the environment's", () => {
    const { paths, flags } = applyFlags([
      '.',
      '--env',
      'prod',
      '--base-url',
      'http://127.0.0.1:4000',
      '--state',
      'mine.json',
      '--api',
      'spec',
    ]);
    const request = parseApplyRequest(paths, flags, io(), noPlanFile);
    expect(request.connection.named).toEqual({ baseUrl: 'http://127.0.0.1:4000' });
    expect(request.connection.target).toEqual({ baseUrl: 'http://127.0.0.1:4000' });
    expect(request.state).toEqual({ file: 'mine.json', backendConfig: [] });
    expect(request.api).toBe('spec');
  });

  it('takes a saved plan with its environment, and reads no variables for it', () => {
    const { paths, flags } = applyFlags(['release.tfplan', '--env', 'prod', '--auto-approve']);
    const request = parseApplyRequest(paths, flags, io(), (p) => p.endsWith('.tfplan'));
    expect(request.source).toMatchObject({
      kind: 'plan-file',
      file: 'release.tfplan',
      input: { env: 'prod' },
    });
    expect(request.api).toBe('full');
    expect(request.autoApprove).toBe(true);
  });

  it('refuses, naming the flag, what a saved plan cannot take', () => {
    const { paths, flags } = applyFlags(['release.tfplan', '--var', 'A=1']);
    expect(() => parseApplyRequest(paths, flags, io(), (p) => p.endsWith('.tfplan'))).toThrow(
      /^--var cannot be used when applying a saved plan/,
    );
  });

  it('a destroy reads no config variables and plans the removal of everything', () => {
    const { paths, flags } = applyFlags(['.', '--env', 'prod']);
    const request = parseApplyRequest(paths, { ...flags, destroy: true }, io(), noPlanFile);
    expect(request).toMatchObject({
      command: 'destroy',
      source: { vars: null },
      selection: { destroy: true },
    });
  });
});

describe('plan as a typed request', () => {
  it('is parsed once, with the output and the plan file', () => {
    const { paths, flags } = planFlags(['.', '--env', 'prod', '--out', 'p.tfplan', '--format', 'json']);
    const request = parsePlanRequest(paths, flags, io(), () => {});
    expect(request).toMatchObject({
      input: { env: 'prod' },
      vars: {},
      api: 'full',
      out: 'p.tfplan',
      detailedExitcode: false,
      output: { format: 'json', verbose: false },
    });
  });

  it('refuses --refresh with --out, before anything is read', () => {
    const { paths, flags } = planFlags(['.', '--env', 'prod', '--refresh', '--out', 'p.tfplan']);
    expect(() => parsePlanRequest(paths, flags, io(), () => {})).toThrow(
      /--refresh cannot be saved with --out/,
    );
  });
});

describe("the run layer's problems in the command line's words", () => {
  it.each([
    [{ code: 'STATE_SETTINGS_NEED_PG' } as const, '--backend-config applies to --backend pg only'],
    [
      { code: 'STATE_IS_DIRECTORY', path: '/x/st', named: 'st' } as const,
      'the state path /x/st is a directory; --state takes a file, e.g. st/state.json',
    ],
    [
      { code: 'STATE_CONFIG_MISSING', configPath: 'cfg' } as const,
      'cfg does not exist, so it cannot locate the state (in .tenantform/ beside the config); check the path, or pass --state FILE',
    ],
  ])('words %o with its flags', (problem, words) => {
    const err = new RunError(problem, 'fallback');
    expect(runErrorMessage(err)).toBe(words);
    expect(err.message).not.toMatch(/--/);
  });
});
