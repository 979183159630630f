/**
 * Issue 18, file backend: the disk holding the journal fills up in the
 * middle of an apply of 400 policies. The failure is injected through the
 * file store's write seam (a short write, as a full tmpfs gives), so the test
 * runs anywhere. The apply must stop sending at once, print its summary, keep
 * the acknowledged-but-unrecorded operations (stderr lines and a rescue file
 * in the temp directory, since the state's disk is full), and the re-apply
 * must replay the rescue, adopt at most --parallelism resources and converge.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createFileStateStore } from '../../src/state/index.js';
import type { AppendFn } from '../../src/state/file-io.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CommandIO } from '../../src/cli/io.js';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index.js';
import { runCli, tempDir, type CliRun } from '../helpers/cli.js';
import { OPEN_PER_WORKER } from './harness.js';
import {
  adminSnapshot,
  adoptedCount,
  expectFailedApply,
  expectStateKnowsTenant,
  failedApplyReport,
  policiesConfig,
} from './store-failure.js';
import { readStateFile } from './tenant-config.js';

const PARALLELISM = 10;
const POLICIES = 400;
const ROOM_ENTRIES = 110;

let emulator: EmulatorHandle;
let work: { dir: string; cleanup: () => void };
beforeEach(async () => {
  emulator = await startEmulator({ latencyMs: 2 });
  work = tempDir('tenantform-disk-full-');
});
afterEach(async () => {
  await emulator.stop();
  work.cleanup();
});

/** A journal disk with room for `entries` lines: then every write is cut short, like a full tmpfs. */
function fullDiskAfter(entries: number) {
  let lines = 0;
  let full = false;
  return {
    append: async (handle: FileHandle, bytes: Buffer): Promise<number> => {
      const count = bytes.toString('utf8').split('\n').length - 1;
      if (!full && lines + count <= entries) {
        lines += count;
        return (await handle.write(bytes, 0, bytes.length)).bytesWritten;
      }
      full = true;
      const part = Math.floor(bytes.length / 3);
      if (part > 0) await handle.write(bytes, 0, part);
      return part;
    },
  };
}

async function applyWith(args: string[], disk?: { append: AppendFn }): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    env: { NO_COLOR: '1', TENANTFORM_TOKEN: emulator.token },
    cwd: work.dir,
    ...(disk ? { openFileStore: (path: string) => createFileStateStore(path, { append: disk.append }) } : {}),
  };
  const code = await main(['node', 'tenantform', ...args], io);
  return { code, stdout, stderr };
}

describe('apply when the journal disk fills up', () => {
  it('stops at once, keeps every acknowledged id, and the re-apply converges', async () => {
    const config = join(work.dir, 'tenant.yaml');
    policiesConfig(config, POLICIES);
    const statePath = join(work.dir, 'state', 'state.json');
    const args = [
      'apply',
      config,
      '--auto-approve',
      '--base-url',
      emulator.baseUrl,
      '--state',
      statePath,
      '--parallelism',
      String(PARALLELISM),
    ];

    const failed = await applyWith(args, fullDiskAfter(ROOM_ENTRIES));
    const { rescueLines } = expectFailedApply(failed, PARALLELISM);
    const sent = emulator.snapshot().rateLimitPolicies.length;
    // Nothing is sent after the first failure: the tenant holds what was recorded plus what was in flight.
    expect(sent).toBeLessThanOrEqual(ROOM_ENTRIES + OPEN_PER_WORKER * PARALLELISM);
    expect(rescueLines).toBeGreaterThanOrEqual(1);
    const { rescuePath } = failedApplyReport(failed);
    expect(rescuePath).not.toBeNull();
    expect(readFileSync(rescuePath!, 'utf8')).toContain('"tenantform_rescue": 1');
    // The journal (if the final commit could not clear it) holds only whole entries: no NUL padding.
    if (existsSync(`${statePath}.journal`))
      expect(readFileSync(`${statePath}.journal`, 'utf8')).not.toContain('\0');

    // Space is back: the re-apply replays the rescue file, then finishes the job.
    const again = await applyWith(args);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Rescue file ${rescuePath}`);
    expect(existsSync(rescuePath!)).toBe(false);
    const adopted = adoptedCount(again);
    expect(adopted).toBeLessThanOrEqual(OPEN_PER_WORKER * PARALLELISM);
    console.log(`disk full (seam, short write): ${rescueLines} rescued, ${adopted} adopted on re-apply`);

    const snapshot = await adminSnapshot(emulator.origin, emulator.adminKey);
    expect(snapshot.rateLimitPolicies).toHaveLength(POLICIES);
    expectStateKnowsTenant(snapshot, readStateFile(statePath).resources);
    const plan = await runCli(['plan', config, '--state', statePath, '--detailed-exitcode'], {
      cwd: work.dir,
    });
    expect(plan.code).toBe(0);
  }, 120_000);
});
