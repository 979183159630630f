/**
 * The Date header of the emulator's answers. The real service's answers carry
 * a Date stamped by its front end, to the second (RFC 9110's HTTP date), from
 * the front end's clock, not the rate limiter's (whose X-RateLimit-Reset is
 * the limiter's Unix second). HTTP servers do not format a date per answer:
 * Node's own keeps the string of the current second and drops it when a timer
 * at the next second boundary fires, so under load it lags up to a second or
 * more. The emulator's modes (a choice: the service documents no precision):
 *
 * - 'second' (the default): as such a front end, the second of the front
 *   end's clock when the string was last made, kept until a timer at the next
 *   second boundary fires (unref'd, so it never holds the process open);
 * - 'exact': the front end's second at the moment of the answer;
 * - 'absent': no Date header at all.
 *
 * The front end's clock is the tenant's (the limiter's) plus `frontEndOffsetMs`.
 */

export const DATE_HEADER_MODES = ['second', 'exact', 'absent'] as const;
export type DateHeaderMode = (typeof DATE_HEADER_MODES)[number];

/** The largest offset of the front end's clock from the limiter's: a minute. */
export const MAX_FRONT_END_OFFSET_MS = 60_000;

/** An HTTP date (whole seconds, GMT). */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** Returns the Date header's value for an answer now, or undefined to send none. */
export function createDateStamp(mode: DateHeaderMode, frontEndNow: () => number): () => string | undefined {
  if (mode === 'absent') return () => undefined;
  if (mode === 'exact') return () => httpDate(frontEndNow());
  let cached: string | undefined;
  return () => {
    if (cached === undefined) {
      const at = frontEndNow();
      cached = httpDate(at);
      const timer = setTimeout(
        () => {
          cached = undefined;
        },
        1000 - (((at % 1000) + 1000) % 1000),
      );
      timer.unref();
    }
    return cached;
  };
}
