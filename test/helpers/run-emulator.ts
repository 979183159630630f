/**
 * For the tests of src/run's runs: an emulator (API profile full) over
 * 127.0.0.1 for the file, a fresh temporary directory per test, the RunIO
 * and connection that point a request at them, and the problem a run's
 * RunError carries.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { RunError } from '../../src/run/errors.js';
import type { ConnectionRequest, RunIO } from '../../src/run/requests.js';
import { tempDir } from './cli.js';

export interface RunBench {
  emulator: EmulatorHandle;
  work: { dir: string; cleanup: () => void };
  /** The run's io: the emulator's token, the temporary directory as the working directory. */
  io(): RunIO;
  /** A connection to the emulator, named by its base URL. */
  connection(): ConnectionRequest;
}

/** Registers the hooks that start the emulator once and give each test a fresh directory and tenant. */
export function runBench(prefix: string): RunBench {
  const bench = {
    io: () => ({ env: { TENANTFORM_TOKEN: bench.emulator.token }, cwd: bench.work.dir, notice: () => {} }),
    connection: () => ({
      named: { baseUrl: bench.emulator.baseUrl },
      target: { baseUrl: bench.emulator.baseUrl },
      debug: false,
      pacing: {},
      reassignTenant: false,
    }),
  } as unknown as RunBench;
  beforeAll(async () => {
    bench.emulator = await startEmulator({ api: 'full' });
  });
  afterAll(() => bench.emulator.stop());
  beforeEach(() => {
    bench.work = tempDir(prefix);
    bench.emulator.reset();
  });
  afterEach(() => bench.work.cleanup());
  return bench;
}

/** The problem of the RunError `promise` rejects with (it must). */
export async function problemOf(promise: Promise<unknown>): Promise<unknown> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunError);
  return (err as RunError).problem;
}
