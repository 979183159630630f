import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from './main.js';
import type { CommandIO } from './io.js';

const io = {
  stdout: new PassThrough(),
  stderr: new PassThrough(),
  env: {},
  cwd: '/',
} as unknown as CommandIO;
const names = (argv?: string[]) =>
  buildProgram(io, () => {}, argv)
    .commands.map((c) => c.name())
    .filter((n) => n !== 'help');

describe('buildProgram', () => {
  it('defines every command when the run names none of them, so help and suggestions list them all', () => {
    const all = names();
    expect(all.length).toBeGreaterThan(10);
    expect(names(['node', 'tenantform', '--help'])).toEqual(all);
    expect(names(['node', 'tenantform', 'aply'])).toEqual(all);
    expect(names(['node', 'tenantform', 'help', 'apply'])).toEqual(all);
  });

  it('defines only the command a run names (start-up), for every command', () => {
    for (const name of names()) expect(names(['node', 'tenantform', name, '--x'])).toEqual([name]);
  });

  it('gives apply and destroy the same run options, defaults shown as numbers', () => {
    for (const name of ['apply', 'destroy']) {
      const help = buildProgram(io, () => {}, ['node', 'tenantform', name]).commands[0]!.helpInformation();
      expect(help).toContain('--auto-approve');
      expect(help).toMatch(/--parallelism <N> +concurrent operations \(default: 10\)/);
      expect(help).toMatch(
        /--permission-batch-size <N> +permissions per request for one user[\s\S]*?\(default:\s+100\)/,
      );
    }
  });
});

describe('--token', () => {
  async function run(...args: string[]) {
    let stderr = '';
    const code = await main(['node', 'tenantform', ...args], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (stderr += s) },
      env: {},
      cwd: '/',
    });
    return { code, stderr };
  }

  it('is refused with a hint about --token-file: a token on the command line ends up in shell history and ps', async () => {
    const result = await run('apply', '.', '--token', 's3cret-token');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Error: unknown option '--token'");
    expect(result.stderr).toContain('pass --token-file FILE, or set TENANTFORM_TOKEN');
    expect(result.stderr).toContain('ends up in the shell history and in `ps`');
  });

  it('never repeats a token given as --token=VALUE', async () => {
    const result = await run('plan', '.', '--token=s3cret-token');
    expect(result.stderr).toContain("unknown option '--token=…'");
    expect(result.stderr).not.toContain('s3cret');
  });

  it('is named in the help of --token-file', () => {
    const help = buildProgram(io, () => {}, ['node', 'tenantform', 'apply']).commands[0]!.helpInformation();
    expect(help.replace(/\s+/g, ' ')).toMatch(
      /--token-file <FILE> .*there is no --token: a token on the command line ends up in shell history and `ps`/,
    );
  });
});
