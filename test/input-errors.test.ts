/**
 * Bad input a new user met, each with a clear error naming where and what:
 * config trees with broken links, YAML the parser cannot say much about,
 * states that are not what they should be, and mistyped flags.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers/cli.js';

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
`;

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config', 'nested'), { recursive: true });
  writeFileSync(join(dir, 'config', 'policies.yaml'), POLICY);
});

afterEach(() => cleanup());

const cli = (...args: string[]) => runCli(args, { cwd: dir });

describe('config trees', () => {
  it('reports a dangling symlink by its own path instead of skipping it', async () => {
    symlinkSync(join(dir, 'gone.yaml'), join(dir, 'config', 'nested', 'profiles.yaml'));
    const result = await cli('validate', 'config');
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'config/nested/profiles.yaml: dangling symlink: its target does not exist',
    );
  });

  it('reports a symlink loop by its own path', async () => {
    symlinkSync('loop.yaml', join(dir, 'config', 'nested', 'loop.yaml'));
    const result = await cli('validate', 'config');
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('config/nested/loop.yaml: symlink loop');
  });

  it('still follows a symlink to a file', async () => {
    writeFileSync(join(dir, 'elsewhere.yaml'), 'user_permissions: []\n');
    symlinkSync(join(dir, 'elsewhere.yaml'), join(dir, 'config', 'nested', 'linked.yaml'));
    const result = await cli('validate', 'config');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Valid: 2 files/);
  });
});

describe('YAML the parser explains badly', () => {
  it('says it is nested too deeply, once, for 100k nested [', async () => {
    writeFileSync(join(dir, 'deep.yaml'), `rate_limit_policies: ${'['.repeat(100_000)}\n`);
    const result = await cli('validate', 'deep.yaml');
    expect(result.code).toBe(1);
    const out = result.stdout + result.stderr;
    expect(out).toContain('deep.yaml:1:86: nested more than 64 levels deep');
    expect(out).not.toMatch(/Stack overflow|Maximum call stack|regular expression/);
    expect(out.match(/nested more than/g)).toHaveLength(1);
  });

  it('explains an unquoted ${LIMIT} inside a flow mapping', async () => {
    writeFileSync(
      join(dir, 'flow.yaml'),
      `rate_limit_policies:\n  - { resource: oauth_authentication_api, consumer: client, consumer_selector: default, configuration: { action: block, limit: \${LIMIT} } }\n`,
    );
    const result = await cli('validate', 'flow.yaml', '--var', 'LIMIT=5');
    expect(result.code).toBe(1);
    const out = result.stdout + result.stderr;
    expect(out).toContain(
      'flow.yaml:2:128: an unquoted ${…} inside a { … } or [ … ] flow collection reads as the start of a nested mapping',
    );
    expect(out).toContain('write the mapping in block style');
    expect(out).not.toContain('flow-map-start');
  });

  it('reads a file of empty documents (---, ---) as valid, like an empty file', async () => {
    writeFileSync(join(dir, 'dashes.yaml'), '---\n---\n');
    writeFileSync(join(dir, 'empty.yaml'), '');
    for (const file of ['dashes.yaml', 'empty.yaml']) {
      const result = await cli('validate', file);
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
  });
});

describe('state locations', () => {
  it('refuses a state list of a config path that does not exist', async () => {
    const result = await cli('state', 'list', 'typo/path');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: typo/path does not exist, so it cannot locate the state');
    expect(result.stderr).not.toContain('No resources recorded');
  });

  it('says that a --state path is a directory, without a raw EISDIR', async () => {
    mkdirSync(join(dir, 'statedir'));
    const result = await cli('plan', 'config', '--state', 'statedir');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the state path ${join(dir, 'statedir')} is a directory; --state takes a file`,
    );
    expect(result.stderr).not.toMatch(/EISDIR: illegal operation/);
  });

  it('says that a JSON array is not a state: it must be a JSON object', async () => {
    writeFileSync(join(dir, 'array.json'), '[]\n');
    const result = await cli('plan', 'config', '--state', 'array.json');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the document must be a JSON object');
    expect(result.stderr).toContain('(got an array)');
    expect(result.stderr).not.toContain('must be a mapping');
  });

  it('says why plan --out cannot write, without a raw ENOENT', async () => {
    const result = await cli('plan', 'config', '--out', 'missing-dir/x.tfplan');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Error: cannot write the plan to missing-dir/x.tfplan: no such file or directory (ENOENT)',
    );
    const isDir = await cli('plan', 'config', '--out', 'config');
    expect(isDir.stderr).toContain(
      'Error: cannot write the plan to config: it is a directory, not a file (EISDIR)',
    );
  });
});

describe('flags', () => {
  it('suggests --auto-approve for -auto-approve, with the same Error: prefix as every other error', async () => {
    const result = await cli('apply', 'config', '-auto-approve');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: unknown option '-auto-approve' \(did you mean --auto-approve\? long options take two dashes\)\n/,
    );
  });

  it('prints every error with "Error:", never "error:"', async () => {
    const result = await cli('plan', '--bogus');
    expect(result.stderr).toMatch(/^Error: unknown option '--bogus'/);
    expect(result.stderr).not.toMatch(/^error:/m);
  });

  it('shows numeric defaults as numbers', async () => {
    const apply = await cli('apply', '--help');
    apply.stdout = apply.stdout.replace(/\s+/g, ' ');
    expect(apply.stdout).toContain('(default: 10)');
    expect(apply.stdout).toContain('(default: 100)');
    expect(apply.stdout).toContain('(default: 0s, fail at once)');
    expect(apply.stdout).not.toMatch(/default: "\d/);
    const emulator = await cli('emulator', '--help');
    emulator.stdout = emulator.stdout.replace(/\s+/g, ' ');
    expect(emulator.stdout).toContain('(default: 0, a free one)');
    expect(emulator.stdout).not.toMatch(/default: "\d/);
  });

  it.each([
    // A negative --clock-skew is its value, not a flag: the run gets as far as the rate limit's check.
    [
      ['--clock-skew', '-2.5', '--rate-limit', '0.5'],
      '--rate-limit must be a whole number in the window model',
    ],
    [['--clock-skew', 'soon'], '--clock-skew must be a number (got "soon")'],
    [
      ['--rate-limit-tier', 'gold'],
      "argument 'gold' is invalid. Allowed choices are free, enterprise-nonprod,",
    ],
    [['--rate-limit-model', 'leaky'], "argument 'leaky' is invalid. Allowed choices are window, continuous"],
  ])('refuses emulator %j before listening', async (args, message) => {
    const result = await cli('emulator', ...args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('lists the published tiers and the documented meaning of the headers in emulator --help', async () => {
    const { stdout } = await cli('emulator', '--help');
    expect(stdout).toMatch(/\n {2}enterprise-nonprod +burst 10, 2\/s +Enterprise, non-production\n/);
    expect(stdout).toMatch(/\n {2}users-read-per-minute +burst 40, 500 per 60 s +reads of users, per minute/);
    expect(stdout).toMatch(
      /X-RateLimit-Reset the Unix second \(tenant's time\) at which requests are next\s+added/,
    );
  });

  it('shows examples in state --help', async () => {
    const result = await cli('state', '--help');
    expect(result.stdout).toMatch(/Examples:\n\s+\$ tenantform state list /);
  });
});
