import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, grants, policy, profile, useEmulator } from '../../test/helpers/emulator-calls.js';
import { startEmulator } from './server.js';

const emulator = useEmulator(['auth0|abc', 'auth0|a/b', 'google-oauth2|42']);
const { call } = emulator;

const operations = [
  ['POST', '/rate-limit-policies', policy, 'create:rate_limit_policies'],
  ['DELETE', '/rate-limit-policies/rlp_0000', undefined, 'delete:rate_limit_policies'],
  ['POST', '/users/auth0%7Cabc/permissions', grants, 'update:users'],
  ['POST', '/token-exchange-profiles', profile, 'create:token_exchange_profiles'],
] as const;

describe.each(operations)('%s %s', (method, path, json, scope) => {
  it('answers 401 without a token', async () => {
    const res = await call(method, path, { json, token: null });
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401);
  });

  it(`answers 403 naming ${scope} when the token lacks it`, async () => {
    const others = operations.map((o) => o[3]).filter((s) => s !== scope);
    const res = await call(method, path, { json, token: emulator.current().issueToken({ scopes: others }) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ statusCode: 403, error: 'Forbidden', errorCode: 'insufficient_scope' });
    expect((res.body as { message: string }).message).toContain(scope);
  });
});

describe('routing', () => {
  it.each([
    ['GET', '/rate-limit-policies', 405],
    ['PATCH', '/rate-limit-policies/rlp_1', 405],
    ['GET', '/users/auth0%7Cabc/permissions', 405],
    ['POST', '/rate-limit-policies/', 404],
    ['POST', '/clients', 404],
    ['DELETE', '/token-exchange-profiles/tep_1', 404],
  ])('answers %s %s with %i and an error body', async (method, path, status) => {
    const res = await call(method, path, {});
    expect(res.status).toBe(status);
    expectErrorBody(res.body, status);
    if (status === 405) expect(res.headers.get('allow')).toMatch(/POST|DELETE/);
  });

  it('answers 413 to a body over the cap', async () => {
    const small = await startEmulator({ maxBodyBytes: 64 });
    try {
      const res = await fetch(`${small.baseUrl}/rate-limit-policies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...policy, consumer_selector: `client_id:${'a'.repeat(100)}` }),
      });
      expect(res.status).toBe(413);
      expectErrorBody(await res.json(), 413);
    } finally {
      await small.stop();
    }
  });

  it('applies nothing when the client goes away before sending the whole body', async () => {
    const socket = connect(emulator.current().port, '127.0.0.1');
    await once(socket, 'connect');
    const form = 'permissions[0][resource_server_identifier]=a&permissions[0][permission_name]=b';
    socket.end(
      `POST /api/v2/users/auth0%7Cabc/permissions HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${emulator.current().token}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        `Content-Length: ${form.length + 50}\r\n\r\n${form}`,
    );
    socket.resume();
    await once(socket, 'close');
    const state = await fetch(`${emulator.current().origin}/__emulator/state`, {
      headers: { 'x-emulator-admin-key': emulator.current().adminKey },
    });
    expect(((await state.json()) as { userPermissions: object }).userPermissions).toEqual({});
    expect(emulator.current().stats().byStatus).toEqual({});
  });
});
