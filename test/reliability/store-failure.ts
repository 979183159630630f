/**
 * Shared by the store-failure tests (issue 18): a config of N policies, the
 * apply that a failing state store interrupts, and the checks after the
 * re-apply: at most --parallelism resources adopted, the emulator holds no
 * resource the state does not know (read through its admin API), and plan
 * then shows no changes.
 */
import { expect } from 'vitest';
import { OPEN_PER_WORKER } from './harness.js';
import { ADMIN_KEY_HEADER, ADMIN_PREFIX, type EmulatorSnapshot } from '../../src/emulator/index.js';
import type { CliRun } from '../helpers/cli.js';
import { policy, writeConfig, type TenantConfig } from './tenant-config.js';

export function policiesConfig(path: string, count: number): TenantConfig {
  const config: TenantConfig = {
    rate_limit_policies: Array.from({ length: count }, (_, i) =>
      policy(`client_id:durable-${String(i).padStart(4, '0')}`, { action: 'block', limit: 100 + (i % 50) }),
    ),
    user_permissions: [],
    token_exchange_profiles: [],
  };
  writeConfig(path, config);
  return config;
}

/** The emulator's tenant, through its admin API (as a script would read it). */
export async function adminSnapshot(origin: string, adminKey: string): Promise<EmulatorSnapshot> {
  const res = await fetch(`${origin}${ADMIN_PREFIX}/state`, { headers: { [ADMIN_KEY_HEADER]: adminKey } });
  expect(res.status).toBe(200);
  return (await res.json()) as EmulatorSnapshot;
}

/** What the failed apply printed about the operations it could not record. */
export function failedApplyReport(run: CliRun): { rescueLines: number; rescuePath: string | null } {
  const rescueLines = run.stderr.split('\n').filter((l) => l.startsWith('tenantform-rescue: ')).length;
  const m = /saved in (\S+) \(mode 0600\)/.exec(run.stderr);
  return { rescueLines, rescuePath: m ? m[1]! : null };
}

/** "N adopted" from an apply's summary line (0 when none). */
export function adoptedCount(run: CliRun): number {
  const m = /Apply (?:complete|incomplete): .*?(\d+) adopted/.exec(run.stdout);
  return m ? Number(m[1]) : 0;
}

/**
 * The failed apply's promise: the summary before any error, exit 1, every
 * acknowledged-but-unrecorded operation printed (at most parallelism of them).
 */
export function expectFailedApply(run: CliRun, parallelism: number): { rescueLines: number } {
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/Apply incomplete: /);
  const summaryAt = run.stderr.search(/\d+ done, \d+ failed, \d+ not attempted/);
  expect(summaryAt).toBeGreaterThanOrEqual(0);
  const errorAt = run.stderr.search(/^Error: /m);
  if (errorAt >= 0) expect(errorAt).toBeGreaterThan(summaryAt);
  const { rescueLines } = failedApplyReport(run);
  expect(rescueLines).toBeLessThanOrEqual(OPEN_PER_WORKER * parallelism);
  return { rescueLines };
}

/** Every resource on the tenant is one the state knows, with the tenant's id. */
export function expectStateKnowsTenant(
  snapshot: EmulatorSnapshot,
  stateResources: { id: string | null; attributes: Record<string, unknown> }[],
): void {
  const ids = new Set(stateResources.map((r) => r.id).filter(Boolean));
  const selectors = new Set(stateResources.map((r) => String(r.attributes.consumer_selector)));
  const unknown = snapshot.rateLimitPolicies.filter((p) => !selectors.has(p.consumer_selector));
  expect(unknown).toEqual([]);
  const withoutId = snapshot.rateLimitPolicies.filter((p) => !ids.has(p.id));
  // Only adopted resources may lack the tenant's id.
  expect(withoutId.length).toBeLessThanOrEqual(stateResources.filter((r) => r.id === null).length);
}
