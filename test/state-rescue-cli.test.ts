/**
 * The state commands around durability, through the CLI: state rescue (a
 * rescue file or a CI log), state repair, force-unlock given the state file,
 * and the automatic replay of a rescue file left beside the state.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileStateStore, openState, rescueLines, writeRescueFile } from '../src/state/index.js';
import type { JournalEntry } from '../src/state/index.js';
import { profile, putEntry } from './helpers/state-contract-fixtures.js';
import { runCli, tempDir } from './helpers/cli.js';

let work: { dir: string; cleanup: () => void };
let statePath: string;
beforeEach(() => {
  work = tempDir('tenantform-rescue-cli-');
  statePath = join(work.dir, 'state.json');
});
afterEach(() => work.cleanup());

/** A state holding profile 1; returns its lineage. */
async function seedState(): Promise<string> {
  const store = createFileStateStore(statePath);
  try {
    const session = await openState(store, { command: 'test' });
    await session.record({ op: 'put', resource: profile(1) });
    await session.commit();
    await session.release();
    return session.doc.lineage;
  } finally {
    await store.close();
  }
}

const list = (args: string[] = []) =>
  runCli(['state', 'list', '--state', statePath, ...args], { cwd: work.dir });

describe('state rescue', () => {
  it('records the tenantform-rescue lines of a CI log and leaves the log', async () => {
    const lineage = await seedState();
    const entries: JournalEntry[] = [putEntry(profile(2), lineage), putEntry(profile(3), lineage)];
    const log = join(work.dir, 'ci.log');
    writeFileSync(
      log,
      [
        '2026-11-23T04:00:00Z apply started',
        ...rescueLines(entries).map((l) => `2026-11-23T04:00:01Z ${l}`),
      ].join('\n'),
    );
    const run = await runCli(['state', 'rescue', log, '--state', statePath], { cwd: work.dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Recorded 2 acknowledged operation(s)');
    expect(existsSync(log)).toBe(true);
    expect((await list()).stdout).toContain('tep_3');
  });

  it('refuses a rescue of another lineage and records nothing', async () => {
    await seedState();
    const other = join(work.dir, 'other.log');
    writeFileSync(other, rescueLines([putEntry(profile(2), 'another-lineage')]).join('\n'));
    const run = await runCli(['state', 'rescue', other, '--state', statePath], { cwd: work.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not recorded: its lineage another-lineage is not the state's/);
    expect((await list()).stdout).not.toContain('tep_2');
  });

  it('plan includes a rescue file beside the state; the next locking command records and removes it', async () => {
    const lineage = await seedState();
    const store = createFileStateStore(statePath);
    const path = await writeRescueFile(store, [putEntry(profile(2), lineage)]);
    await store.close();
    expect(path.startsWith(`${statePath}.rescue-`)).toBe(true);
    const shown = await list();
    expect(shown.stdout).toContain('tep_2');
    expect(shown.stderr).toContain('included (the next apply records them)');
    expect(existsSync(path)).toBe(true);
    const rm = await runCli(
      ['state', 'rm', 'token_exchange_profile["urn:example:token:0001"]', '--state', statePath],
      { cwd: work.dir },
    );
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stderr).toContain('recorded into the state');
    expect(existsSync(path)).toBe(false);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).resources.map((r: { id: string }) => r.id)).toEqual([
      'tep_2',
    ]);
  });
});

describe('state repair and force-unlock', () => {
  it('a journal damaged in the middle: plan names state repair, which keeps every complete entry', async () => {
    const lineage = await seedState();
    const line = (n: number) => JSON.stringify(putEntry(profile(n), lineage)) + '\n';
    writeFileSync(`${statePath}.journal`, line(2) + '\0'.repeat(40) + '\n' + line(3));
    const refused = await list();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('tenantform state repair');
    const repaired = await runCli(['state', 'repair', '--state', statePath], { cwd: work.dir });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toMatch(/kept 2 complete entries, dropped line\(s\) 2/);
    const after = await list();
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('tep_3');
  });

  it('force-unlock accepts the state file itself', async () => {
    await seedState();
    const store = createFileStateStore(statePath);
    await store.lock({ pid: 2 ** 22 + 7, host: 'elsewhere', command: 'apply', since: 'then' });
    await store.close();
    const run = await runCli(['force-unlock', statePath, '--force'], { cwd: work.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Removed the lock held by apply');
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('force-unlock leaves the lock of a holder still running unless --force, and asks on a terminal', async () => {
    await seedState();
    const store = createFileStateStore(statePath);
    // This very process on this host: a live apply.
    await store.lock({ pid: process.pid, host: hostname(), command: 'apply', since: 'then' });
    await store.close();
    const refused = await runCli(['force-unlock', statePath], { cwd: work.dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `is locked by apply (pid ${process.pid} on host ${hostname()}, since then), and that process is still running on this host`,
    );
    expect(refused.stderr).toContain('run force-unlock again with --force');
    expect(existsSync(`${statePath}.lock`)).toBe(true);

    const declined = await runCli(['force-unlock', statePath, '--force'], {
      cwd: work.dir,
      confirm: () => Promise.resolve(false),
    });
    expect(declined.code).toBe(1);
    expect(declined.stdout).toContain('The lock was left in place.');
    expect(existsSync(`${statePath}.lock`)).toBe(true);

    const forced = await runCli(['force-unlock', statePath, '--force'], { cwd: work.dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('If that process is still running, stop it');
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('force-unlock removes without --force the lock of a process gone from this host', async () => {
    await seedState();
    const store = createFileStateStore(statePath);
    await store.lock({ pid: 2 ** 22 + 7, host: hostname(), command: 'apply', since: 'then' });
    await store.close();
    const run = await runCli(['force-unlock', statePath], { cwd: work.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('That process is no longer running.');
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('force-unlock refuses without --force a lock from another host, which it cannot check', async () => {
    await seedState();
    const store = createFileStateStore(statePath);
    await store.lock({ pid: 2 ** 22 + 7, host: 'elsewhere', command: 'apply', since: 'then' });
    await store.close();
    const run = await runCli(['force-unlock', statePath], { cwd: work.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot be checked from here');
    expect(existsSync(`${statePath}.lock`)).toBe(true);
  });
});
