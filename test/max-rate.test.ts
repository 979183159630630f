/**
 * --max-rate PERCENT% from the command line to the pacer: every command that
 * sends requests hands the share to the API client, which gives it to its
 * Pacer (what the pacer does with it is the pacer's own tests' business). A
 * bad value is refused before any request. The Pacer class is wrapped to
 * record the options it is built with.
 */
import { describe, expect, it, vi } from 'vitest';
import type * as PacerModule from '../src/api/pacer.js';
import type { PacerOptions } from '../src/api/pacer.js';
import { createApiClient, resolveTarget } from '../src/api/index.js';
import { useEmulatorWorkspace } from './helpers/e2e.js';

const built = vi.hoisted(() => [] as PacerOptions[]);

vi.mock('../src/api/pacer.js', async (importOriginal) => {
  const real = await importOriginal<typeof PacerModule>();
  class RecordingPacer extends real.Pacer {
    constructor(options: PacerOptions) {
      built.push(options);
      super(options);
    }
  }
  return { ...real, Pacer: RecordingPacer };
});

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
`;
const ws = useEmulatorWorkspace({ 'policies.yaml': POLICY }, { api: 'full' });
const cli = (...args: string[]) => ws.cli(...args, '--base-url', ws.emulator.baseUrl, '--api', 'full');

/** The share each Pacer built while `run` ran was given. */
async function sharesOf(
  run: () => Promise<{ code: number; stderr: string }>,
): Promise<(number | undefined)[]> {
  built.length = 0;
  const result = await run();
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.code).toBe(0);
  return built.map((options) => options.share);
}

describe('--max-rate', () => {
  it('reaches the pacer of every command that sends requests, as a fraction', async () => {
    expect(await sharesOf(() => cli('plan', 'config', '--refresh', '--max-rate', '12.5%'))).toEqual([0.125]);
    expect(await sharesOf(() => cli('apply', 'config', '--auto-approve', '--max-rate', '30%'))).toEqual([
      0.3,
    ]);
    expect(
      await sharesOf(() => cli('apply', 'config', '--auto-approve', '--refresh', '--max-rate', '30%')),
    ).toEqual([0.3]);
    expect(await sharesOf(() => cli('refresh', 'config', '--max-rate', '50%'))).toEqual([0.5]);
    expect(await sharesOf(() => cli('export', 'exported', '--no-state', '--max-rate', '100%'))).toEqual([1]);
    expect(
      await sharesOf(() =>
        cli(
          'import',
          'rate_limit_policy',
          'oauth_authentication_api/client/default',
          '--config',
          'config',
          '--max-rate',
          '20%',
        ),
      ),
    ).toEqual([0.2]);
    expect(await sharesOf(() => cli('destroy', 'config', '--auto-approve', '--max-rate', '1%'))).toEqual([
      0.01,
    ]);
  });

  it('leaves the share unset without the flag: all of the rate', async () => {
    expect(await sharesOf(() => cli('apply', 'config', '--auto-approve'))).toEqual([undefined]);
  });

  it.each(['30', '0%', '101%', '-5%', 'half', '30%%', ''])(
    'refuses %j before sending anything',
    async (value) => {
      const run = await cli('apply', 'config', '--auto-approve', '--max-rate', value);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `Error: --max-rate must be a percentage above 0% and at most 100%, with its % sign, such as 30% (got "${value}")\n`,
      );
      expect(ws.emulator.requestCount()).toBe(0);
    },
  );
});

describe('createApiClient share', () => {
  it.each([0, -0.5, 1.5, Number.NaN])('refuses %d, outside (0, 1], before any request', (share) => {
    const target = resolveTarget({ domain: 'tenant.example.com' }, {});
    expect(() => createApiClient({ target, credentials: { kind: 'token', token: 't' }, share })).toThrow(
      `the share of the tenant's rate must be above 0 and at most 1 (got ${share})`,
    );
  });
});
