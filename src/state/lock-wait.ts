import { LockError } from './errors.js';
import type { LockInfo, LockOptions } from './types.js';

/** How often a waiting lock() looks again. */
export const LOCK_POLL_MS = 250;

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for a lock: calls `attempt` until it returns null (taken), sleeping
 * between tries until `timeoutMs` of sleeps have passed, then throws
 * LockError with the last holder seen. Shared by the file and memory stores.
 */
export async function waitForLock(
  attempt: () => Promise<LockInfo | null>,
  where: string,
  options: LockOptions | undefined,
): Promise<void> {
  const timeout = Math.max(0, options?.timeoutMs ?? 0);
  const sleep = options?.sleep ?? defaultSleep;
  let waited = 0;
  for (;;) {
    const holder = await attempt();
    if (holder === null) return;
    if (waited >= timeout) throw new LockError(holder, where);
    const step = Math.min(LOCK_POLL_MS, timeout - waited);
    await sleep(step);
    waited += step;
  }
}
