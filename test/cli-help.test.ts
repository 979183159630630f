import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers/cli.js';

const COMMANDS: string[][] = [
  ['validate'],
  ['fmt'],
  ['plan'],
  ['apply'],
  ['destroy'],
  ['import'],
  ['state', 'list'],
  ['state', 'show'],
  ['state', 'rm'],
  ['state', 'migrate'],
  ['force-unlock'],
  ['show'],
  ['emulator'],
  ['init'],
];

describe('help', () => {
  it('shows examples and exit codes at the top level', async () => {
    const { code, stdout } = await runCli(['--help'], { cwd: process.cwd() });
    expect(code).toBe(0);
    expect(stdout).toContain('Examples:');
    expect(stdout).toContain('Exit codes:');
  });

  it.each(COMMANDS.map((c) => [c.join(' '), c] as const))('shows examples for %s', async (_name, command) => {
    const { code, stdout } = await runCli([...command, '--help'], { cwd: process.cwd() });
    expect(code).toBe(0);
    expect(stdout).toMatch(/Examples?:\n\s+\$ .*tenantform /);
  });

  it('prints the version', async () => {
    const { stdout } = await runCli(['--version'], { cwd: process.cwd() });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('rejects an unknown flag with exit 1 and a pointer to --help', async () => {
    const { code, stderr } = await runCli(['plan', '--bogus'], { cwd: process.cwd() });
    expect(code).toBe(1);
    expect(stderr).toContain("unknown option '--bogus'");
  });

  it('offers --lock-timeout only on the commands that take the lock', async () => {
    const plan = await runCli(['plan', '--lock-timeout', '5s'], { cwd: process.cwd() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("unknown option '--lock-timeout'");
    const apply = await runCli(['apply', '--help'], { cwd: process.cwd() });
    expect(apply.stdout).toContain('--lock-timeout');
  });

  it('names the flag when a number is not one', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const { code, stderr } = await runCli(['apply', dir, '--parallelism', 'lots'], { cwd: dir });
      expect(code).toBe(1);
      expect(stderr).toContain('--parallelism must be a whole number');
    } finally {
      cleanup();
    }
  });
});
