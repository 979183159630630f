// npm run demo: the newcomer's tour. Starts the local emulator on a free port,
// then runs the built CLI against examples/ (environment prod) exactly as a user
// would: validate → plan → apply → plan (no changes), then edits one limit in a
// copy of the examples and shows the replace, and last replays the tenant's
// logs (the emulator plays a day with a retry storm) against the policies. Every step's exit code is
// checked. The emulator and the temporary state are always removed, also on
// failure, on Ctrl-C and when the output is closed early (| head: exit 141). The emulator's token is passed through the
// environment (TENANTFORM_TOKEN) and never printed.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'tenantform.js');
const EMULATOR_START_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** A failure the demo explains in one line and exits 1 for. */
class DemoError extends Error {}

/** True once stdout's reader went away (`npm run demo | head -5`): nothing more is written to it. */
let outputClosed = false;
const out = (text) => {
  if (!outputClosed) process.stdout.write(text);
};

/** Shows a path the way a user in the repository root would type it. */
function shown(path) {
  const rel = relative(root, path);
  return rel && !rel.startsWith('..') ? rel.split('\\').join('/') : path;
}

/** Shell-quotes an argument for display when it needs it. */
function quote(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Environment for every child: no credentials or variables from the caller's shell. */
function childEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(TENANTFORM_|AUTH0_)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

const running = new Set();

function waitForExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within the grace time. */
async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
  }
  running.delete(child);
}

/** Starts the emulator and resolves with the JSON line it prints once listening. */
async function startEmulator() {
  const args = ['emulator', '--port', '0', '--api', 'full', '--traffic', 'retry-storm', '--json'];
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: childEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  const info = await new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new DemoError(`the emulator printed nothing within ${EMULATOR_START_MS / 1000}s`)),
      EMULATOR_START_MS,
    );
    const fail = (message) => {
      clearTimeout(timer);
      reject(new DemoError(message));
    };
    child.once('error', (err) => fail(`could not start the emulator: ${err.message}`));
    child.once('exit', (code) =>
      fail(`the emulator exited with code ${code} before listening\n${stderr.trim()}`),
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', function onData(chunk) {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout.off('data', onData);
      child.stdout.resume(); // keep draining whatever else it prints
      clearTimeout(timer);
      child.removeAllListeners('exit');
      try {
        const parsed = JSON.parse(buffered.slice(0, newline));
        if (typeof parsed.base_url !== 'string' || typeof parsed.token !== 'string')
          throw new Error('missing base_url or token');
        resolve(parsed);
      } catch (err) {
        reject(new DemoError(`the emulator's first line is not the expected JSON: ${err.message}`));
      }
    });
  });
  return { child, info };
}

/** Runs the CLI with `args`, prints the command and its output, returns the exit code. */
async function runCli(args, env, secret) {
  out(`$ node bin/tenantform.js ${args.map(quote).join(' ')}\n`);
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let text = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => (text += chunk));
  child.stderr.on('data', (chunk) => (text += chunk));
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status, signal) => resolve(status ?? (signal ? 128 : 1)));
  });
  running.delete(child);
  // The CLI never prints the token; this is a second belt for a demo people copy from.
  out(secret ? text.split(secret).join('***') : text);
  if (text && !text.endsWith('\n')) out('\n');
  return code;
}

async function step(title, args, expected, env, secret) {
  out(`\n== ${title}\n`);
  const code = await runCli(args, env, secret);
  if (code !== expected) throw new DemoError(`step "${title}" exited with ${code}, expected ${expected}`);
}

async function demo(tmp) {
  out('Starting the emulator (a local Tenant Management API) on a free port...\n');
  const { child: emulator, info } = await startEmulator();
  out(`Emulator (pid ${emulator.pid}) listening at ${info.base_url}\n`);
  out(`Temporary state: ${join(tmp, 'state.json')}\n`);
  out('The commands below get the emulator token from TENANTFORM_TOKEN in their environment.\n');

  const env = childEnv({ TENANTFORM_TOKEN: info.token });
  const state = join(tmp, 'state.json');
  const config = (dir) => [dir, '--env', 'prod'];
  const examples = config('examples');
  const withState = ['--state', state];
  const target = ['--base-url', info.base_url];

  await step('1. validate', ['validate', ...examples], 0, env, info.token);
  await step('2. plan', ['plan', ...examples, ...withState], 0, env, info.token);
  await step(
    '3. apply',
    ['apply', ...examples, ...withState, ...target, '--auto-approve'],
    0,
    env,
    info.token,
  );
  await step(
    '4. plan again: no changes (exit 0 with --detailed-exitcode)',
    ['plan', ...examples, ...withState, '--detailed-exitcode'],
    0,
    env,
    info.token,
  );

  // Edit a copy, so that the checked-in examples stay as they are.
  const copy = join(tmp, 'examples');
  for (const part of ['common', 'prod', 'vars', 'tenantform.yaml'])
    cpSync(join(root, 'examples', part), join(copy, part), { recursive: true });
  const edited = join(copy, 'prod', 'client-policies.yaml');
  const before = readFileSync(edited, 'utf8');
  const after = before.replace('limit: 1500', 'limit: 1200');
  if (after === before)
    throw new DemoError('step "5. edit" could not find "limit: 1500" in examples/prod/client-policies.yaml');
  writeFileSync(edited, after);
  const copied = config(shown(copy));
  out(
    `\n== 5. edit: in a copy of the examples (${shown(copy)}), the web app's limit goes from 1500 to 1200\n`,
  );
  await step(
    '6. plan shows the change (exit 2 with --detailed-exitcode)',
    ['plan', ...copied, ...withState, '--detailed-exitcode'],
    2,
    env,
    info.token,
  );
  await step(
    '7. apply the change',
    ['apply', ...copied, ...withState, ...target, '--auto-approve'],
    0,
    env,
    info.token,
  );
  await step(
    '8. plan again: no changes',
    ['plan', ...copied, ...withState, '--detailed-exitcode'],
    0,
    env,
    info.token,
  );
  await step(
    "9. simulate: what the policies would have done to the last 4 hours of the tenant's traffic (the emulator plays a retry storm of the Mobile app)",
    ['simulate', ...copied, '--logs', 'tenant', '--api', 'full', '--since', '4h', ...target],
    0,
    env,
    info.token,
  );
}

async function cleanup(tmp) {
  await Promise.all([...running].map(stop));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

async function mainDemo() {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
    process.stderr.write('The CLI is not built: run npm ci (or npm run build) first.\n');
    return 1;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'tenantform-demo-'));
  let interrupted = false;
  const onSignal = (signal) => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\nDemo interrupted (${signal}); stopping the emulator and removing ${tmp}.\n`);
    cleanup(tmp).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that stops early (| head) is no crash: the demo stops as on Ctrl-C, cleaning up, and
  // exits 141 as the CLI does when its output is closed.
  const onOutputError = (err) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
    if (outputClosed) return;
    outputClosed = true;
    interrupted = true;
    cleanup(tmp).finally(() => process.exit(141));
  };
  process.stdout.on('error', onOutputError);
  let code = 0;
  try {
    await demo(tmp);
  } catch (err) {
    const message = err instanceof DemoError ? err.message : `unexpected error: ${err?.stack ?? err}`;
    if (!interrupted) process.stderr.write(`\nDemo failed: ${message}\n`);
    code = 1;
  } finally {
    await cleanup(tmp);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (outputClosed) return 141;
  if (code === 0) out('\nDemo complete. The emulator is stopped and the temporary state removed.\n');
  return code;
}

process.exitCode = await mainDemo();
