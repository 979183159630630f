import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CommandIO } from '../../src/cli/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output; `env` replaces the process environment. */
export async function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; confirm?: CommandIO['confirm'] },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
    confirm: options.confirm,
  };
  const code = await main(['node', 'tenantform', ...args], io);
  return { code, stdout, stderr };
}

/** A temporary directory removed by the returned cleanup function. */
export function tempDir(prefix = 'tenantform-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
