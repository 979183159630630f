import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import {
  explainCommand,
  exportCommand,
  importCommand,
  simulateCommand,
  validateCommand,
} from './definitions.js';
import type { CommandIO } from './io.js';
import {
  parseExplainRequest,
  parseExportRequest,
  parseImportRequest,
  parseSimulateRequest,
  parseValidateRequest,
} from './read-requests.js';

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-read-requests-');
  for (const env of ['prod', 'dev']) {
    mkdirSync(join(work.dir, env));
    writeFileSync(join(work.dir, env, 'policies.yaml'), 'rate_limit_policies: []\n');
  }
  writeFileSync(
    join(work.dir, 'tenantform.yaml'),
    [
      'environments:',
      '  prod:',
      '    paths: [prod]',
      '    domain: prod.example.com',
      '    api: full',
      '    state: { backend: file, path: prod/prod.state.json }',
      '  dev:',
      '    paths: [dev]',
      '',
    ].join('\n'),
  );
  writeFileSync(join(work.dir, 'users.txt'), 'auth0|b\n# a comment\n\nauth0|a\n');
});
afterEach(() => work.cleanup());

const quiet = { write: () => true };
const io = (): CommandIO => ({ stdout: quiet, stderr: quiet, env: {}, cwd: work.dir });

/** The arguments and options commander hands the action of `define` for `args`. */
function parsed<F>(define: (parent: Command) => { opts(): F }, args: string[]) {
  const cmd = (define(new Command().exitOverride()) as unknown as Command).exitOverride();
  cmd.parse(args, { from: 'user' });
  return { args: cmd.args, flags: cmd.opts() as F };
}

describe('validate as a typed request', () => {
  it('takes every environment of a project, with the variables parsed and no tenant read', () => {
    const { args, flags } = parsed(validateCommand, ['.', '--var', 'A=1', '--strict', '--format', 'json']);
    const request = parseValidateRequest(args, flags, io());
    expect(request.source).toMatchObject({ kind: 'inputs', inputs: [{ env: 'prod' }, { env: 'dev' }] });
    expect(request).toMatchObject({ vars: { ok: true, vars: { A: '1' } }, strict: true, live: null });
    expect(request.output).toEqual({ format: 'json' });
  });

  it('keeps a malformed --var as a problem of the config, not an error', () => {
    const { args, flags } = parsed(validateCommand, ['.', '--var', 'NOVALUE']);
    const request = parseValidateRequest(args, flags, io());
    expect(request.vars).toMatchObject({
      ok: false,
      issue: { file: '', line: 0, message: '--var "NOVALUE" has no value: write --var NAME=VALUE' },
    });
  });

  it("keeps a broken tenantform.yaml's problems as the config's", () => {
    writeFileSync(join(work.dir, 'tenantform.yaml'), 'environments:\n  x: {paths: 3}\n');
    const { args, flags } = parsed(validateCommand, ['.']);
    const request = parseValidateRequest(args, flags, io());
    expect(request.source.kind).toBe('broken-project');
  });

  it('--live reads one environment, with its target and API profile', () => {
    const { args, flags } = parsed(validateCommand, ['.', '--env', 'prod', '--live', '--max-rps', '4']);
    const request = parseValidateRequest(args, flags, io());
    expect(request.live).toMatchObject({
      api: 'full',
      connection: { named: {}, target: { domain: 'prod.example.com' }, pacing: { maxRps: 4 } },
    });
    const all = parsed(validateCommand, ['.', '--live']);
    expect(() => parseValidateRequest(all.args, all.flags, io())).toThrow(/choose one with --env NAME/);
  });

  it('refuses an environment the project does not have', () => {
    const { args, flags } = parsed(validateCommand, ['.', '--env', 'nope']);
    expect(() => parseValidateRequest(args, flags, io())).toThrow(/^--env nope: .* has no such environment/);
  });
});

describe('explain as a typed request', () => {
  it('takes the client ids without their prefix, once each, and the policies as given', () => {
    const { args, flags } = parsed(explainCommand, [
      '.',
      '--env',
      'dev',
      '--client',
      'client_id:abc',
      '--client',
      'abc',
      '--client',
      'tpa_1',
      '--policy',
      'default',
      '--format',
      'markdown',
    ]);
    expect(parseExplainRequest(args, flags, io())).toMatchObject({
      input: { env: 'dev' },
      vars: {},
      clients: ['abc', 'tpa_1'],
      policies: ['default'],
      allClients: null,
      output: { format: 'markdown' },
    });
  });

  it('--all-clients reads the tenant of the environment', () => {
    const { args, flags } = parsed(explainCommand, ['.', '--env', 'prod', '--all-clients', '--api', 'spec']);
    expect(parseExplainRequest(args, flags, io()).allClients).toMatchObject({
      api: 'spec',
      connection: { target: { domain: 'prod.example.com' } },
    });
  });

  it.each([
    [['--client', ' '], '--client needs a client id (got an empty value)'],
    [['--client', 'client_id:'], '--client client_id:: no client id after client_id:'],
    [['--var', '1X=2'], /^--var "1X=…": "1X" is not a variable name/],
  ])('refuses %j', (extra, message) => {
    const { args, flags } = parsed(explainCommand, ['.', '--env', 'dev', ...extra]);
    expect(() => parseExplainRequest(args, flags, io())).toThrow(message);
  });
});

describe('simulate as a typed request', () => {
  const NOW = Date.parse('2026-11-27T12:00:00Z');

  it('counts --since back from now, and takes the cap and the source', () => {
    const { args, flags } = parsed(simulateCommand, [
      '.',
      '--env',
      'prod',
      '--logs',
      'tenant',
      '--since',
      '24h',
      '--max-events',
      '500',
    ]);
    expect(parseSimulateRequest(args, flags, io(), NOW)).toMatchObject({
      input: { env: 'prod' },
      logs: 'tenant',
      since: NOW - 86_400_000,
      maxEvents: 500,
      reader: { api: 'full', connection: { target: { domain: 'prod.example.com' } } },
      output: { format: 'text' },
    });
    const dated = parsed(simulateCommand, ['.', '--env', 'dev', '--logs', 'x', '--since', '2026-11-20']);
    expect(parseSimulateRequest(dated.args, dated.flags, io(), NOW).since).toBe(Date.parse('2026-11-20'));
  });

  it.each([
    [['--since', 'yesterday'], /^--since must be a duration back from now/],
    [['--max-events', '0'], '--max-events must be a whole number from 1 to 1000000000 (got "0")'],
    [['--max-events', '2.5'], '--max-events must be a whole number from 1 to 1000000000 (got "2.5")'],
    [['--var', 'NOVALUE'], '--var "NOVALUE" has no value: write --var NAME=VALUE'],
  ])('refuses %j', (extra, message) => {
    const { args, flags } = parsed(simulateCommand, ['.', '--env', 'dev', '--logs', 'x', ...extra]);
    expect(() => parseSimulateRequest(args, flags, io(), NOW)).toThrow(message);
  });
});

describe('import as a typed request', () => {
  const importOf = (args: string[]) => {
    const { args: positional, flags } = parsed(importCommand, args);
    const [first, second, third] = positional as [string, string | undefined, string | undefined];
    return parseImportRequest([first, second, third], flags, io());
  };

  it('attaches a given id under spec, with the variables and the state of the environment', () => {
    const request = importOf([
      'rate_limit_policy',
      'oauth_authentication_api/client/default',
      'rlp_abc123',
      '--env',
      'dev',
      '--var',
      'A=1',
      '--lock-timeout',
      '2s',
    ]);
    expect(request).toMatchObject({
      address: 'rate_limit_policy["oauth_authentication_api","client","default"]',
      kind: 'rate_limit_policy',
      how: { kind: 'attach', id: 'rlp_abc123', vars: { A: '1' } },
      input: { env: 'dev' },
      configPath: '.',
      lockTimeoutMs: 2000,
      api: 'spec',
    });
  });

  it('reads a given id under full (no variables read) and looks one up without it', () => {
    const address = 'rate_limit_policy["oauth_authentication_api","client","default"]';
    const read = importOf([address, 'rlp_abc123', '--env', 'prod', '--var', 'NOVALUE']);
    expect(read).toMatchObject({
      how: { kind: 'read', id: 'rlp_abc123' },
      api: 'full',
      state: { backend: 'file', file: 'prod/prod.state.json' },
    });
    expect(importOf([address, '--env', 'prod']).how).toEqual({ kind: 'look-up' });
  });

  it.each([
    [
      ['rate_limit_policy["oauth_authentication_api","client","default"]', 'rlp_1', 'x'],
      /^usage: tenantform import ADDRESS \[ID\]$/,
    ],
    [['role', 'x'], /^unknown kind "role"; use .+, or a full address$/],
    [['rate_limit_policy'], /^usage: tenantform import KIND IDENTITY \[ID\]$/],
    [
      ['rate_limit_policy', 'nope'],
      /^rate limit policy identity must be resource\/consumer\/consumer_selector/,
    ],
    [['user_permission', 'x', 'y'], /have no id on the tenant; there is nothing to import$/],
    [
      ['rate_limit_policy', 'oauth_authentication_api/client/default', 'notanid'],
      /^"notanid" does not look like a rate_limit_policy id/,
    ],
    [
      ['rate_limit_policy', 'oauth_authentication_api/client/default'],
      /^import without an id reads the tenant, and the spec API profile/,
    ],
    [
      ['rate_limit_policy', 'oauth_authentication_api/client/default', 'rlp_abc123', '--var', 'Q'],
      /^--var "Q" has no value/,
    ],
  ])('refuses %j', (args, message) => {
    expect(() => importOf([...args, '--env', 'dev'])).toThrow(message);
  });
});

describe('export as a typed request', () => {
  const exportOf = (args: string[]) => {
    const { flags } = parsed(exportCommand, ['out', ...args]);
    return parseExportRequest('out', flags, io());
  };

  it("reads the tenant's lists with the users of --user and --users-file, once each, into a state", () => {
    const request = exportOf([
      '--api',
      'full',
      '--user',
      'auth0|a',
      '--users-file',
      'users.txt',
      '--state',
      's.json',
      '--parallelism',
      '3',
      '--domain',
      't.example.com',
    ]);
    expect(request).toMatchObject({
      dir: 'out',
      source: { kind: 'tenant', users: ['auth0|a', 'auth0|b'] },
      state: { file: 's.json' },
      connection: { named: { domain: 't.example.com' } },
      api: 'full',
      parallelism: 3,
    });
  });

  it('takes a peer source, and no state with --no-state', () => {
    expect(exportOf(['--from-terraform', 'tf.tfstate', '--no-state'])).toMatchObject({
      source: { kind: 'terraform', file: 'tf.tfstate' },
      state: null,
      api: 'spec',
    });
    const deploy = exportOf(['--from-deploy-cli', 'd.yaml', '--action-id', 'a=b=c', '--action-id', 'x=1']);
    expect(deploy.source).toEqual({
      kind: 'deploy-cli',
      path: 'd.yaml',
      actionIds: new Map([
        ['a=b', 'c'],
        ['x', '1'],
      ]),
    });
  });

  it.each([
    [
      ['--from-terraform', 't', '--from-deploy-cli', 'd'],
      'give one of --from-terraform and --from-deploy-cli',
    ],
    [
      ['--from-terraform', 't', '--user', 'u'],
      /^--user and --users-file name users to read on the tenant; --from-terraform reads a file instead$/,
    ],
    [['--from-deploy-cli', 'd', '--users-file', 'users.txt'], /; --from-deploy-cli reads a file instead$/],
    [
      ['--action-id', 'a=b', '--api', 'full'],
      /^--action-id gives the ids of the Actions a Deploy CLI export names/,
    ],
    [
      ['--from-deploy-cli', 'd', '--action-id', 'a='],
      "--action-id a=: expected NAME=ID, the Action's name and its id",
    ],
    [
      ['--from-deploy-cli', 'd', '--action-id', '=b'],
      "--action-id =b: expected NAME=ID, the Action's name and its id",
    ],
    [[], /^export reads the tenant, and the spec API profile has no read operation/],
    [['--api', 'full', '--users-file', 'nothere.txt'], /^--users-file nothere.txt: ENOENT/],
    [['--api', 'full', '--parallelism', '0'], '--parallelism must be a whole number from 1 to 256 (got "0")'],
  ])('refuses %j', (args, message) => {
    expect(() => exportOf(args)).toThrow(message);
  });
});
