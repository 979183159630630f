/**
 * The CLI as a user runs it: bin/tenantform.js (the built bundle) in a
 * process of its own, for tests of what only a separate process shows (a
 * CA trusted by environment alone, the bundle's own loading).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs node with `args` in the repository; `env` is all of its environment besides PATH and NO_COLOR. Killed after `limitMs`. */
export function runNode(
  args: string[],
  env: Record<string, string> = {},
  limitMs = 60_000,
): Promise<ProcessRun> {
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}

/** Writes one rate limit policy into `dir` and applies it to https://`domain` with the built CLI (state in `dir`). */
export function applyOnePolicy(
  dir: string,
  domain: string,
  env: Record<string, string>,
): Promise<ProcessRun> {
  const config = join(dir, 'tenant.yaml');
  writeFileSync(
    config,
    'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n    configuration: { action: block, limit: 10 }\n',
  );
  return runNode(
    [
      'bin/tenantform.js',
      'apply',
      config,
      '--auto-approve',
      '--domain',
      domain,
      '--state',
      join(dir, 'state.json'),
    ],
    env,
  );
}
