import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { Command } from '@commander-js/extra-typings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/cli.js';
import { AddressError } from '../resources/index.js';
import { JOURNAL_FORMAT_VERSION, rescueLines, type JournalEntry } from '../state/index.js';
import {
  emulatorCommand,
  envsCommand,
  fmtCommand,
  forceUnlockCommand,
  initCommand,
  showCommand,
  stateListCommand,
  stateMigrateCommand,
  stateRepairCommand,
  stateRescueCommand,
  stateRmCommand,
  stateShowCommand,
} from './definitions.js';
import { CliError, type CommandIO } from './io.js';
import {
  parseEmulatorSettings,
  parseEnvsRequest,
  parseFmtRequest,
  parseForceUnlockRequest,
  parseInitRequest,
  parseShowRequest,
  parseStateListRequest,
  parseStateMigrateRequest,
  parseStateRepairRequest,
  parseStateRescueRequest,
  parseStateRmRequest,
  parseStateShowRequest,
} from './local-requests.js';

const ADDRESS = 'token_exchange_profile["urn:partner:token"]';

const removal = { v: JOURNAL_FORMAT_VERSION, lineage: 'l-1', op: 'remove', address: ADDRESS };

let work: { dir: string; cleanup: () => void };
beforeEach(() => {
  work = tempDir('tenantform-local-requests-');
  mkdirSync(join(work.dir, 'prod'));
  writeFileSync(join(work.dir, 'prod', 'policies.yaml'), 'rate_limit_policies: []\n');
  writeFileSync(
    join(work.dir, 'tenantform.yaml'),
    [
      'environments:',
      '  prod:',
      '    paths: [prod]',
      '    state: { backend: file, path: prod/prod.state.json }',
      '  dev:',
      '    paths: [prod]',
      '',
    ].join('\n'),
  );
  writeFileSync(join(work.dir, 'state.json'), '{}');
  writeFileSync(join(work.dir, 'saved.tfplan'), '{}');
  writeFileSync(join(work.dir, 'ci.log'), `step 3\n${rescueLines([removal as JournalEntry]).join('\n')}\n`);
});
afterEach(() => work.cleanup());

const quiet = { write: () => true };
const io = (): CommandIO => ({ stdout: quiet, stderr: quiet, env: {}, cwd: work.dir });

/** What commander hands a command's action for `args`: its arguments and its flags. */
function parsed<O>(
  define: (parent: Command) => { parse(...a: never[]): unknown; args: string[]; opts(): O },
  args: string[],
) {
  const cmd = (define as unknown as (p: Command) => Command)(new Command().exitOverride()).exitOverride();
  cmd.parse(args, { from: 'user' });
  return { args: cmd.args, flags: cmd.opts() as O };
}

describe('the state commands as typed requests', () => {
  it('locate the state once: PATH and --env as a config input, the state flags as a StateRequest', () => {
    const { flags } = parsed(stateListCommand, ['.', '--env', 'prod', '--backend', 'file']);
    const request = parseStateListRequest('.', flags, io());
    expect(request.located.input.env).toBe('prod');
    expect(request.located.state).toMatchObject({ backend: 'file' });
    expect(request.located.state.file).toBeUndefined();
  });

  it('refuse an environment tenantform.yaml does not have', () => {
    const { flags } = parsed(stateListCommand, ['.', '--env', 'nope']);
    expect(() => parseStateListRequest('.', flags, io())).toThrow(/--env nope: .* has no such environment/);
  });

  it('refuse a project with several environments and no --env', () => {
    const { flags } = parsed(stateListCommand, ['.']);
    expect(() => parseStateListRequest('.', flags, io())).toThrow(/choose one with --env NAME/);
  });

  it('state show and rm take the address in its canonical spelling and refuse a malformed one', async () => {
    const show = parsed(stateShowCommand, [ADDRESS, '.', '--env', 'prod']);
    const request = await parseStateShowRequest(ADDRESS, '.', show.flags, io());
    expect(request.address).toBe(ADDRESS);
    await expect(parseStateShowRequest('bogus[', '.', show.flags, io())).rejects.toBeInstanceOf(AddressError);
    const rm = parsed(stateRmCommand, [ADDRESS, '.', '--env', 'prod']);
    await expect(parseStateRmRequest('nokind["x"]', '.', rm.flags, io())).rejects.toBeInstanceOf(
      AddressError,
    );
  });

  it('rm, rescue and repair read --lock-timeout once, in ms, and refuse one that is not a duration', async () => {
    const rm = parsed(stateRmCommand, [ADDRESS, '.', '--env', 'prod', '--lock-timeout', '2m']);
    expect((await parseStateRmRequest(ADDRESS, '.', rm.flags, io())).lockTimeoutMs).toBe(120_000);
    const bad = parsed(stateRmCommand, [ADDRESS, '.', '--env', 'prod', '--lock-timeout', 'soon']);
    await expect(parseStateRmRequest(ADDRESS, '.', bad.flags, io())).rejects.toThrow(
      '--lock-timeout must be a duration such as 30s, 2m or 500ms (got "soon")',
    );
    const rescue = parsed(stateRescueCommand, ['r.json', '.', '--env', 'prod', '--lock-timeout', 'x']);
    await expect(parseStateRescueRequest('ci.log', '.', rescue.flags, io())).rejects.toBeInstanceOf(CliError);
    const repair = parsed(stateRepairCommand, ['.', '--env', 'prod', '--lock-timeout', '1h2']);
    expect(() => parseStateRepairRequest('.', repair.flags, io())).toThrow(/--lock-timeout/);
  });

  it('rescue reads its file first (a missing one is said before a bad --env); repair waits 0 ms without --lock-timeout', async () => {
    const rescue = parsed(stateRescueCommand, ['ci.log', '.', '--env', 'prod']);
    const request = await parseStateRescueRequest('ci.log', '.', rescue.flags, io());
    expect(request.rescue).toMatchObject({ path: join(work.dir, 'ci.log'), kind: 'log', entries: [removal] });
    const badEnv = parsed(stateRescueCommand, ['gone.json', '.', '--env', 'nope']);
    await expect(parseStateRescueRequest('gone.json', '.', badEnv.flags, io())).rejects.toThrow(
      `rescue file ${join(work.dir, 'gone.json')} does not exist`,
    );
    const repair = parsed(stateRepairCommand, ['.', '--env', 'prod']);
    expect(parseStateRepairRequest('.', repair.flags, io()).lockTimeoutMs).toBe(0);
  });

  it('force-unlock takes a state file (or its .lock) named as PATH, unless a state is named otherwise', () => {
    const byFile = parsed(forceUnlockCommand, ['state.json', '--env', 'prod']);
    const request = parseForceUnlockRequest('state.json', byFile.flags, io());
    expect(request.located.state.file).toBe(join(work.dir, 'state.json'));
    expect(request.force).toBe(false);
    writeFileSync(join(work.dir, 'state.json.lock'), '{}');
    const byLock = parseForceUnlockRequest('state.json.lock', byFile.flags, io());
    expect(byLock.located.state.file).toBe(join(work.dir, 'state.json'));
    // With --backend pg, PATH is a config path again.
    const pg = parsed(forceUnlockCommand, ['prod', '--backend', 'pg', '--force']);
    const located = parseForceUnlockRequest('prod', pg.flags, io());
    expect(located.located.input.paths).toEqual(['prod']);
    expect(located.located.state.file).toBeUndefined();
    expect(located.force).toBe(true);
  });

  it('state migrate reads file:PATH and pg[:WORKSPACE] and refuses anything else', () => {
    const { flags } = parsed(stateMigrateCommand, [
      '--from',
      'file:a.json',
      '--to',
      'pg',
      '--backend-config',
      'schema=s',
      '--lock-timeout',
      '5s',
    ]);
    expect(parseStateMigrateRequest(flags)).toEqual({
      from: { file: 'a.json', backend: 'file' },
      to: { backend: 'pg', backendConfig: ['schema=s'], workspace: 'default' },
      force: false,
      lockTimeoutMs: 5000,
    });
    const from = parsed(stateMigrateCommand, ['--from', 'bogus', '--to', 'pg:x']);
    expect(() => parseStateMigrateRequest(from.flags)).toThrow(
      '"bogus" is not a state location; use file:PATH or pg[:WORKSPACE]',
    );
    const to = parsed(stateMigrateCommand, ['--from', 'file:a.json', '--to', 'postgres']);
    expect(() => parseStateMigrateRequest(to.flags)).toThrow('"postgres" is not a state location');
    const wait = parsed(stateMigrateCommand, [
      '--from',
      'file:a.json',
      '--to',
      'pg:x',
      '--lock-timeout',
      'z',
    ]);
    expect(() => parseStateMigrateRequest(wait.flags)).toThrow(/--lock-timeout must be a duration/);
  });
});

describe('show as a typed request', () => {
  const isPlan = (path: string) => path.endsWith('.tfplan');

  it('is a plan file, with the state flags that find its key, or the state PATH locates', () => {
    const plan = parsed(showCommand, ['saved.tfplan', '--format', 'markdown', '--state', 'state.json']);
    expect(parseShowRequest('saved.tfplan', plan.flags, io(), isPlan)).toEqual({
      kind: 'plan-file',
      file: 'saved.tfplan',
      state: expect.objectContaining({ file: 'state.json' }) as unknown,
      output: { format: 'markdown', verbose: false },
    });
    const state = parsed(showCommand, ['prod', '--format', 'json']);
    const request = parseShowRequest('prod', state.flags, io(), isPlan);
    expect(request.kind === 'state' && request.located.input.paths).toEqual(['prod']);
  });

  it('refuses a path that does not exist', () => {
    const { flags } = parsed(showCommand, ['gone']);
    expect(() => parseShowRequest('gone', flags, io(), isPlan)).toThrow(
      'gone does not exist: show takes a plan file saved by plan --out, or a config path locating the state',
    );
  });

  it('refuses --format terraform-json for the state', () => {
    const { flags } = parsed(showCommand, ['prod', '--format', 'terraform-json']);
    expect(() => parseShowRequest('prod', flags, io(), isPlan)).toThrow(
      '--format terraform-json shows a plan file saved by plan --out; prod is not one',
    );
    expect(() => parseShowRequest(undefined, flags, io(), isPlan)).toThrow(/; \. is not one/);
  });
});

describe('init, fmt and envs as typed requests', () => {
  it('init: the directory absolute, as given, and --force', () => {
    const { flags } = parsed(initCommand, ['new', '--force']);
    expect(parseInitRequest('new', flags, io())).toEqual({
      given: 'new',
      dir: join(work.dir, 'new'),
      force: true,
    });
  });

  it('fmt: "." without paths, --check and --diff', () => {
    const { flags } = parsed(fmtCommand, ['--check']);
    expect(parseFmtRequest([], flags)).toEqual({ paths: ['.'], check: true, diff: false });
  });

  it('envs: --changed without files is no file changed; without --changed, every environment', () => {
    const none = parsed(envsCommand, ['.', '--changed']);
    expect(parseEnvsRequest('.', none.flags).changed).toEqual([]);
    const all = parsed(envsCommand, ['.', '--format', 'github-matrix']);
    expect(parseEnvsRequest('.', all.flags)).toEqual({ path: '.', changed: null, format: 'github-matrix' });
  });
});

describe("the emulator's numbers, parsed once", () => {
  const settings = (args: string[]) => parseEmulatorSettings(parsed(emulatorCommand, args).flags);

  it('are typed: port, rate, burst, window, clock skew, front-end offset, traffic seed', () => {
    const s = settings([
      '--port',
      '4000',
      '--rate-limit',
      '2.5',
      '--burst',
      '10',
      '--rate-limit-window',
      '60',
      '--clock-skew',
      '-1.5',
      '--front-end-offset',
      '0.5',
      '--traffic-seed',
      '7',
    ]);
    expect(s).toMatchObject({
      port: 4000,
      rateLimit: 2.5,
      burst: 10,
      rateLimitWindow: 60,
      clockSkew: -1.5,
      frontEndOffset: 0.5,
      trafficSeed: 7,
      json: false,
      tls: false,
    });
    expect(settings([]).port).toBe(0);
  });

  it.each([
    [['--port', '70000'], '--port must be a whole number from 0 to 65535 (got "70000")'],
    [['--rate-limit', '0'], '--rate-limit must be a positive number at most 1000000 (got "0")'],
    [['--rate-limit', '2000000'], '--rate-limit must be a positive number at most 1000000'],
    [['--burst', '0'], '--burst must be a whole number from 1 to 1000000 (got "0")'],
    [['--rate-limit-window', '0'], '--rate-limit-window must be a whole number from 1 to'],
    [['--clock-skew', 'abc'], '--clock-skew must be a number (got "abc")'],
    [['--front-end-offset', ''], '--front-end-offset must be a number (got "")'],
    [['--traffic-seed', '-1'], '--traffic-seed must be a whole number from 0 to 4294967295 (got "-1")'],
  ])('refuse %j', (args, message) => {
    expect(() => settings(args)).toThrow(message);
  });
});

/** The functions of a module that take a parameter typed as a command's flags (`…Flags`). */
function functionsSeeingFlags(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && !ts.isFunctionTypeNode(node) && !ts.isMethodSignature(node)) {
      if (node.parameters.some((p) => p.type && /Flags\b/.test(p.type.getText(source))))
        found.push(node.name ? node.name.getText(source) : '(anonymous)');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the local commands see their flags once', () => {
  it.each(['state', 'show', 'init', 'envs', 'fmt', 'emulator-cli'])(
    'src/cli/commands/%s.ts: only the actions take the flags, and hand them to a parser',
    (name) => {
      const seeing = functionsSeeingFlags(join('src/cli/commands', `${name}.ts`));
      expect(seeing.length).toBeGreaterThan(0);
      expect(seeing.filter((f) => !f.endsWith('Action'))).toEqual([]);
    },
  );
});
