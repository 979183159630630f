/**
 * Shared set-up for the emulator's server tests: one emulator per test, a
 * fetch wrapper that sends JSON, form or raw bodies with the demo token, and
 * valid bodies for each operation.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { matchesSchema } from '../../src/schemas/index.js';
import { startEmulator } from '../../src/emulator/server.js';
import type { EmulatorHandle, EmulatorOptions } from '../../src/emulator/types.js';

export interface CallOptions {
  json?: unknown;
  form?: string;
  raw?: string;
  contentType?: string;
  token?: string | null;
}

/** Starts an emulator (with `options` besides the users) before each test and stops it after; `current()` returns it. */
export function useEmulator(users: string[], options: EmulatorOptions = {}) {
  let emu: EmulatorHandle;
  beforeEach(async () => {
    emu = await startEmulator({ ...options, users });
  });
  afterEach(async () => {
    await emu.stop();
  });
  const current = () => emu;
  async function call(method: string, path: string, o: CallOptions = {}) {
    const headers: Record<string, string> = {};
    const token = o.token === undefined ? emu.token : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (o.json !== undefined) [body, headers['content-type']] = [JSON.stringify(o.json), 'application/json'];
    if (o.form !== undefined) [body, headers['content-type']] = [o.form, 'application/x-www-form-urlencoded'];
    if (o.raw !== undefined) body = o.raw;
    if (o.contentType !== undefined) headers['content-type'] = o.contentType;
    const res = await fetch(`${emu.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
  }
  return { current, call };
}

export const policy = {
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'client_id:abc123',
  configuration: { action: 'block', limit: 10 },
};
export const profile = {
  name: 'Partner tokens',
  subject_token_type: 'urn:partner:token',
  action_id: 'act_123',
  type: 'custom_authentication',
};
export const grants = {
  permissions: [{ resource_server_identifier: 'https://api.example.com', permission_name: 'read:x' }],
};

export function expectErrorBody(body: unknown, status: number) {
  expect(matchesSchema('error', body)).toBe(true);
  expect(body).toMatchObject({ statusCode: status });
}
