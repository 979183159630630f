/**
 * Process and emulator plumbing for the reliability suite: the built CLI run
 * as a child process (bounded by a timeout, killed in afterEach), an emulator
 * latency hook that can SIGKILL a child when the Nth request arrives (or run
 * something before every Nth request), and a chaos switch so a follow-up run
 * can go without faults.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { tempDir } from '../helpers/cli.js';
import { seededRandom } from './tenant-config.js';

/**
 * How many operations per worker (--parallelism) may be unrecorded at any moment:
 * one request in flight and the records of up to 16 answered operations being
 * synced (the executor overlaps the two: RECORDS_AHEAD in src/apply/executor.ts).
 * Bounds on what a crash or a store failure leaves open are this many times the
 * parallelism.
 */
export const OPEN_PER_WORKER = 17;

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'bin', 'tenantform.js');

/** The child processes run dist/ (npm test builds it first); say so plainly when it is missing. */
export function assertBuilt(): void {
  if (!existsSync(join(REPO, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` before the reliability suite');
  }
}

export interface ChildResult {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The run outlived its time limit and was killed: a hang. */
  timedOut: boolean;
  pid: number;
}

export interface RunningChild {
  pid: number;
  process: ChildProcess;
  result: Promise<ChildResult>;
}

/** A minimal environment: nothing from the test process leaks in (no stray TENANTFORM_* variables). */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { NO_COLOR: '1', PATH: process.env.PATH ?? '', ...extra };
}

/** Starts and tracks CLI child processes; killAll() ends every one still running. */
export class Children {
  private readonly running = new Set<ChildProcess>();

  start(
    args: string[],
    options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
  ): RunningChild {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    const result = new Promise<ChildResult>((resolveResult, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        this.running.delete(child);
        resolveResult({ code, signal, stdout, stderr, timedOut, pid: child.pid ?? -1 });
      });
    });
    return { pid: child.pid ?? -1, process: child, result };
  }

  run(
    args: string[],
    options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
  ): Promise<ChildResult> {
    return this.start(args, options).result;
  }

  /** SIGKILLs every child still running (by its own handle) and waits for each to be gone. */
  async killAll(): Promise<void> {
    const left = [...this.running];
    await Promise.all(
      left.map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('close', () => done());
            child.kill('SIGKILL');
          }),
      ),
    );
    this.running.clear();
  }
}

/**
 * An emulator `sleep` (its latency hook, called once per API request before
 * the request is handled) that counts requests and, once armed, runs
 * `onHit` when the Nth request since arming arrives: the kill lands while
 * that request, and any others in flight, wait for their answers.
 */
export class RequestTrap {
  private seen = 0;
  private target = 0;
  private onHit: (() => void) | null = null;
  private hook: { every: number; run: () => Promise<void> } | null = null;
  private hooking = false;
  private total = 0;

  readonly sleep = async (ms: number): Promise<void> => {
    this.seen += 1;
    this.total += 1;
    if (this.onHit && this.seen >= this.target) {
      const hit = this.onHit;
      this.onHit = null;
      hit();
    }
    // Requests the hook itself sends pass straight through.
    if (this.hook && !this.hooking && this.total % this.hook.every === 0) {
      this.hooking = true;
      try {
        await this.hook.run();
      } finally {
        this.hooking = false;
      }
    }
    await delay(ms);
  };

  arm(nth: number, onHit: () => void): void {
    this.seen = 0;
    this.target = nth;
    this.onHit = onHit;
  }

  /** Runs `run` before every `every`-th request is handled (null: stop); the request waits for it. */
  before(every: number, run: (() => Promise<void>) | null): void {
    this.hook = run ? { every, run } : null;
  }

  get fired(): boolean {
    return this.onHit === null && this.target > 0;
  }
}

/**
 * The emulator's chaos, switchable between runs: a seeded random source for
 * faults (off: it never draws one) and a clock that runs `clockSpeed` times
 * faster while on (tokens then expire early, as with a skewed clock).
 */
export class ChaosSwitch {
  private readonly draw: () => number;
  private active = false;
  private virtualMs = Date.now();
  private lastRealMs = Date.now();

  constructor(
    seed: number,
    private readonly clockSpeed = 1,
  ) {
    this.draw = seededRandom(seed);
  }

  get on(): boolean {
    return this.active;
  }

  set on(value: boolean) {
    this.now();
    this.active = value;
  }

  readonly random = (): number => (this.active ? this.draw() : 0.999_999);

  readonly now = (): number => {
    const real = Date.now();
    this.virtualMs += (real - this.lastRealMs) * (this.active ? this.clockSpeed : 1);
    this.lastRealMs = real;
    return Math.floor(this.virtualMs);
  };
}

/** Matches what the CLI prints for a bug rather than a user-facing error. */
export const INTERNAL_ERROR = /internal/i;

/** The partial-failure report apply prints on stderr. */
export const PARTIAL_REPORT = /(\d+) done, (\d+) failed, (\d+) not attempted/;

/** What each child-process test works with; fields are set anew before every test. */
export interface TrappedEmulator {
  emulator: EmulatorHandle;
  trap: RequestTrap;
  children: Children;
  dir: string;
}

/**
 * Per test: a temporary directory, an emulator whose latency goes through a
 * RequestTrap (so a test can act at the Nth request), and a Children set
 * that is killed afterwards. Requires the built CLI.
 */
export function useTrappedEmulator(prefix: string, latencyMs: number): TrappedEmulator {
  const ctx = {} as TrappedEmulator;
  let cleanup = (): void => {};
  beforeAll(assertBuilt);
  beforeEach(async () => {
    const tmp = tempDir(prefix);
    ctx.dir = tmp.dir;
    cleanup = tmp.cleanup;
    ctx.trap = new RequestTrap();
    ctx.emulator = await startEmulator({ latencyMs, sleep: ctx.trap.sleep });
    ctx.children = new Children();
  });
  afterEach(async () => {
    await ctx.children.killAll();
    await ctx.emulator.stop();
    cleanup();
  });
  return ctx;
}
