/**
 * The state locks this process holds, so that a crash (an uncaught exception
 * or unhandled rejection, caught by the CLI) can release them on its way out
 * instead of leaving a stale lock. openState reserves a slot before it asks
 * for the lock, so that a crash while the lock is being taken still waits
 * for it and releases it.
 */

interface Slot {
  /** Settles when the lock was taken (or not). */
  settled: Promise<void>;
  release: (() => Promise<void>) | null;
}

const slots = new Set<Slot>();

export interface LockSlot {
  /** The lock was taken: a crash releases it with `release`. */
  held(release: () => Promise<void>): void;
  /** The lock was not taken, or was released normally. */
  drop(): void;
}

/** Reserves a slot for a lock about to be taken. */
export function reserveLockSlot(): LockSlot {
  let settle!: () => void;
  const slot: Slot = { settled: new Promise<void>((resolve) => (settle = resolve)), release: null };
  slots.add(slot);
  return {
    held(release) {
      slot.release = release;
      settle();
    },
    drop() {
      slots.delete(slot);
      settle();
    },
  };
}

/**
 * Releases every lock still held (waiting for locks being taken), each at
 * most once, within `timeoutMs` in all; returns how many were released.
 * Never throws.
 */
export async function releaseHeldLocks(timeoutMs = 5000): Promise<number> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  let released = 0;
  const work = (async () => {
    const pending = [...slots];
    slots.clear();
    await Promise.all(pending.map((slot) => slot.settled));
    await Promise.allSettled(
      pending.map(async (slot) => {
        if (!slot.release) return;
        await slot.release();
        released++;
      }),
    );
  })();
  await Promise.race([work, timeout]);
  clearTimeout(timer);
  return released;
}
