/**
 * The rate-limit timeout end to end, against the emulator over 127.0.0.1: a
 * 429 never fails an operation by itself, but a tenant that answers nothing
 * but 429 for --rate-limit-timeout ends the run like a vanished tenant —
 * scheduling stops, everything acknowledged is in the state, and one line
 * names the timeout and the flag that raises it. The emulator's clock is
 * frozen, so its bucket never refills until the test moves the clock: what
 * happens depends on no timing.
 */
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';

let tenantNow = Date.now();

function policies(n: number): string {
  const items = Array.from(
    { length: n },
    (_, i) => `  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: "client_id:c${i}"
    configuration: { action: block, limit: ${10 + i} }
`,
  );
  return `rate_limit_policies:\n${items.join('')}`;
}

// A bucket of 3 on a clock that stands still: 3 requests go through, then nothing but 429.
const ws = useEmulatorWorkspace(
  { 'policies.yaml': policies(5) },
  { api: 'full', rateLimit: { perSecond: 10, burst: 3 }, now: () => tenantNow },
);
const cli = (...args: string[]) => ws.cli(...args, '--base-url', ws.emulator.baseUrl);

/** An apply of config/, one request at a time, with that --rate-limit-timeout. */
const applyWithTimeout = (timeout: string) =>
  cli('apply', 'config', '--auto-approve', '--parallelism', '1', '--rate-limit-timeout', timeout);

/** Another client of the tenant takes `n` requests of its bucket. */
async function takeBucket(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${ws.emulator.baseUrl}/rate-limit-policies`, {
      headers: { authorization: `Bearer ${ws.emulator.token}` },
    });
    expect(res.status).toBe(200);
  }
}

function timeoutLine(timeout: string): string {
  return (
    `The tenant at ${ws.emulator.baseUrl} answered nothing but 429 (rate limited) for ${timeout}, ` +
    'the rate-limit timeout, so nothing more was sent; to wait longer, raise --rate-limit-timeout'
  );
}

describe('--rate-limit-timeout', () => {
  it('ends an apply the tenant stops letting through, with everything acknowledged recorded; a later apply continues', async () => {
    tenantNow = Date.now();
    const run = await applyWithTimeout('10ms');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('3 done, 1 failed, 1 not attempted.');
    expect(run.stderr).toContain(`  failed: ${timeoutLine('10ms')}\n`);
    expect(run.stderr).toContain('State records everything that was done; run apply again to continue.');
    const answered = ws.emulator.stats().byStatus['429'] ?? 0;
    expect(answered).toBeGreaterThan(0);
    expect(run.stdout).toContain(
      `${answered} request${answered === 1 ? '' : 's'} answered 429 (rate limited); ${answered - 1} ${answered - 1 === 1 ? 'was' : 'were'} retried.`,
    );

    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(3);
    const listed = await ws.cli('state', 'list', 'config');
    expect(listed.stdout.match(/^rate_limit_policy\[/gm)).toHaveLength(3);

    // The tenant's clock moves on: its bucket is full again, and the apply finishes the job.
    tenantNow += 60_000;
    const again = await cli('apply', 'config', '--auto-approve', '--parallelism', '1');
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Apply complete: 2 created.');
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(5);
  });

  it('ends a read the same way, writing nothing', async () => {
    tenantNow = Date.now();
    // Another client of the tenant takes 2 of the 3 requests: the read gets one list, then only 429.
    await takeBucket(2);
    const run = await cli('refresh', 'config', '--api', 'full', '--rate-limit-timeout', '10ms');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: ${timeoutLine('10ms')}\n`);

    const plan = await cli('plan', 'config', '--refresh', '--api', 'full', '--rate-limit-timeout', '10ms');
    expect(plan.code).toBe(1);
    expect(plan.stderr.endsWith(`\nError: ${timeoutLine('10ms')}\n`)).toBe(true);
    expect((await ws.cli('state', 'list', 'config')).stdout).not.toMatch(/^rate_limit_policy\[/m);
  });

  it('is a bound: a tenant that answers only 429 with Retry-After an hour away ends the run at the timeout, not after the wait', async () => {
    // One request an hour, Retry-After on every 429 (about 3600 s), and another client has
    // taken the bucket. No timed assertion: the run ends because no wait may pass the
    // deadline, and says so.
    await ws.restartEmulator({
      api: 'full',
      rateLimit: { perWindow: 1, windowSec: 3600, burst: 2 },
      retryAfter: true,
    });
    await takeBucket(2);
    const run = await applyWithTimeout('1s');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('0 done, 1 failed, 4 not attempted.');
    expect(run.stderr).toContain(`  failed: ${timeoutLine('1s')}\n`);
    expect(ws.emulator.stats().byStatus['429']).toBe(1);
    expect(ws.emulator.snapshot().rateLimitPolicies).toHaveLength(0);
  });

  it('refuses a value that is not a duration before sending anything', async () => {
    const run = await cli('apply', 'config', '--auto-approve', '--rate-limit-timeout', 'soon');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: --rate-limit-timeout must be a duration such as 30s, 2m or 500ms (got "soon")\n',
    );
    expect(ws.emulator.requestCount()).toBe(0);
  });
});
