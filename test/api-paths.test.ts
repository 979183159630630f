/**
 * Hostile ids stay inside their path segment: the exact path nock receives,
 * and the raw request line a real server on 127.0.0.1 receives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../src/api/index.js';
import { ORIGIN, testClient, type TestClient } from './api-helpers.js';

const HOSTILE: [string, string][] = [
  ['../x?y#z', '..%2Fx%3Fy%23z'],
  ['a/b', 'a%2Fb'],
  ['%', '%25'],
  ['auth0|abc', 'auth0%7Cabc'],
  ['../../../oauth/token', '..%2F..%2F..%2Foauth%2Ftoken'],
  ['x y&z=1', 'x%20y%26z%3D1'],
  ['ü\u0000', '%C3%BC%00'],
];
const PERMS = [{ resource_server_identifier: 'https://api/', permission_name: 'read:x' }];
let t: TestClient | undefined;

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(async () => {
  await t?.client.close();
  t = undefined;
  nock.cleanAll();
});

describe('through nock', () => {
  it.each(HOSTILE)('user id %j is sent as the single segment %s', async (id, encoded) => {
    t = testClient();
    const seen: string[] = [];
    nock(ORIGIN)
      .post((path) => {
        seen.push(path);
        return true;
      })
      .reply(201, {});
    await t.client.assignUserPermissions(id, PERMS);
    expect([...new Set(seen)]).toEqual([`/api/v2/users/${encoded}/permissions`]); // nock may ask twice
  });

  it.each(HOSTILE)('policy id %j is sent as the single segment %s', async (id, encoded) => {
    t = testClient();
    const seen: string[] = [];
    nock(ORIGIN)
      .delete((path) => {
        seen.push(path);
        return true;
      })
      .reply(204);
    await t.client.deleteRateLimitPolicy(id);
    expect([...new Set(seen)]).toEqual([`/api/v2/rate-limit-policies/${encoded}`]);
  });

  it('puts the encoded path, not the raw id, in errors', async () => {
    t = testClient();
    nock(ORIGIN)
      .post('/api/v2/users/auth0%7Cabc/permissions')
      .reply(404, { statusCode: 404, error: 'Not Found', message: 'user does not exist' });
    await expect(t.client.assignUserPermissions('auth0|abc', PERMS)).rejects.toMatchObject({
      code: 'API_NOT_FOUND',
      path: '/api/v2/users/auth0%7Cabc/permissions',
    });
  });
});

describe('on the wire (127.0.0.1)', () => {
  let server: Server;
  const raw: string[] = [];
  let baseUrl = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      raw.push(req.url ?? '');
      res
        .writeHead(req.method === 'DELETE' ? 204 : 201, { 'content-type': 'application/json' })
        .end(req.method === 'DELETE' ? '' : '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends each hostile id inside its segment in the request line', async () => {
    t = testClient({ target: resolveTarget({ baseUrl }, {}) });
    raw.length = 0;
    for (const [id] of HOSTILE) {
      await t.client.assignUserPermissions(id, PERMS);
      await t.client.deleteRateLimitPolicy(id);
    }
    expect(raw).toEqual(
      HOSTILE.flatMap(([, encoded]) => [
        `/api/v2/users/${encoded}/permissions`,
        `/api/v2/rate-limit-policies/${encoded}`,
      ]),
    );
  });
});
