/**
 * The official auth0 SDK pointed at an emulator: it believes it talks to
 * https://tenant.example.com, and its fetch sends the same request to the
 * emulator's origin. Client credentials by default, or a given token.
 */
import { ManagementClient, ManagementError } from 'auth0';
import { expect } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index.js';

export const SDK_DOMAIN = 'tenant.example.com';

type Target = Pick<EmulatorHandle, 'origin' | 'clientId' | 'clientSecret'>;

/** fetch for the SDK: the emulator's origin in place of https://SDK_DOMAIN (which `onUrl` may check). */
export function toEmulator(emu: Pick<EmulatorHandle, 'origin'>, onUrl?: (url: URL) => void): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    onUrl?.(url);
    return fetch(`${emu.origin}${url.pathname}${url.search}`, init);
  };
}

export function sdkClient(
  emu: Target,
  options: { token?: string; onUrl?: (url: URL) => void } = {},
): ManagementClient {
  const auth =
    options.token !== undefined
      ? { token: options.token }
      : { clientId: emu.clientId, clientSecret: emu.clientSecret, audience: `${emu.origin}/api/v2/` };
  return new ManagementClient({
    domain: SDK_DOMAIN,
    ...auth,
    fetch: toEmulator(emu, options.onUrl),
    maxRetries: 0,
    telemetry: false,
  });
}

/** The SDK's error for a call expected to fail (the test fails when it succeeds or fails otherwise). */
export async function sdkFailure(run: Promise<unknown>): Promise<ManagementError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ManagementError);
  return error as ManagementError;
}
