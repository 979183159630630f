import { describe, expect, it } from 'vitest';
import { ApiConfigError } from './errors.js';
import { isLoopbackHost, resolveTarget } from './target.js';

describe('resolveTarget', () => {
  it('builds the https base URL, token URL and default audience from a domain', () => {
    expect(resolveTarget({ domain: 'tenant.example.com' }, {})).toEqual({
      baseUrl: 'https://tenant.example.com/api/v2',
      origin: 'https://tenant.example.com',
      tokenUrl: 'https://tenant.example.com/oauth/token',
      audience: 'https://tenant.example.com/api/v2/',
    });
  });

  it.each([
    ['http://127.0.0.1:4000/api/v2', 'http://127.0.0.1:4000/api/v2'],
    ['http://127.0.0.1:4000/api/v2/', 'http://127.0.0.1:4000/api/v2'],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/api/v2'],
    ['http://localhost:8080/', 'http://localhost:8080/api/v2'],
    ['http://[::1]:9000/api/v2', 'http://[::1]:9000/api/v2'],
    ['https://proxy.example.com/tenant-a/api/v2', 'https://proxy.example.com/tenant-a/api/v2'],
  ])('accepts --base-url %s as %s', (input, baseUrl) => {
    expect(resolveTarget({ baseUrl: input }, {}).baseUrl).toBe(baseUrl);
  });

  it('lets flags win over the environment', () => {
    const env = {
      TENANTFORM_BASE_URL: 'https://env.example.com/api/v2',
      TENANTFORM_DOMAIN: 'other.example.com',
    };
    expect(resolveTarget({ domain: 'flag.example.com' }, env).origin).toBe('https://flag.example.com');
  });

  it.each([
    [
      { TENANTFORM_BASE_URL: 'https://a.example.com/api/v2', TENANTFORM_DOMAIN: 'b.example.com' },
      'https://a.example.com',
    ],
    [{ TENANTFORM_DOMAIN: 'b.example.com', AUTH0_DOMAIN: 'c.example.com' }, 'https://b.example.com'],
    [{ AUTH0_DOMAIN: 'c.example.com' }, 'https://c.example.com'],
    [{ AUTH0_DOMAIN: 'https://c.example.com/' }, 'https://c.example.com'],
  ])('reads the environment in order of precedence (%o)', (env, origin) => {
    expect(resolveTarget({}, env).origin).toBe(origin);
  });

  it('uses --audience, then TENANTFORM_AUDIENCE, over the default', () => {
    expect(resolveTarget({ domain: 'd.example.com', audience: 'urn:mgmt' }, {}).audience).toBe('urn:mgmt');
    expect(resolveTarget({ domain: 'd.example.com' }, { TENANTFORM_AUDIENCE: 'urn:env' }).audience).toBe(
      'urn:env',
    );
  });

  it.each([
    [
      { baseUrl: 'http://tenant.example.com/api/v2' },
      /only https:\/\/ is allowed, except for loopback hosts/,
    ],
    [{ baseUrl: 'http://10.0.0.5/api/v2' }, /plain http:\/\//],
    [{ baseUrl: 'ftp://127.0.0.1/api/v2' }, /must be an https:\/\/ URL/],
    [
      { baseUrl: 'https://tenant.example.com/other' },
      /must be the API's base URL: a URL ending in \/api\/v2, or an origin alone, to which \/api\/v2 is added/,
    ],
    [
      { baseUrl: 'http://127.0.0.1:4000/api/v1' },
      /or an origin alone, to which \/api\/v2 is added .*got "http:\/\/127.0.0.1:4000\/api\/v1"/,
    ],
    [{ baseUrl: 'https://user:pw@tenant.example.com/api/v2' }, /must not contain a user name or password/],
    [{ baseUrl: 'https://tenant.example.com/api/v2?x=1' }, /query or fragment/],
    [{ baseUrl: 'not a url' }, /not a valid URL/],
    [{ domain: 'tenant.example.com/api/v2' }, /without a path/],
    [{ domain: 'http://localhost:4000' }, /use the base URL setting/],
    [
      { domain: 'a.example.com', baseUrl: 'https://b.example.com/api/v2' },
      /either the domain setting or the base URL setting/,
    ],
  ])('refuses %o', (flags, message) => {
    expect(() => resolveTarget(flags, {})).toThrow(message);
  });

  it('names every setting (as data) and variable when no target is given', () => {
    const err = (() => {
      try {
        resolveTarget({}, { TENANTFORM_DOMAIN: '  ' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ApiConfigError);
    expect((err as ApiConfigError).code).toBe('API_CONFIG');
    const named = (err as ApiConfigError).wording!.parts.filter((p) => typeof p !== 'string');
    expect(named).toEqual([{ setting: 'domain' }, { setting: 'baseUrl' }]);
    for (const name of ['TENANTFORM_DOMAIN', 'TENANTFORM_BASE_URL', 'AUTH0_DOMAIN']) {
      expect((err as Error).message).toContain(name);
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['localhost', true],
    ['api.localhost', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['localhost.example.com', false],
    ['[::2]', false],
    ['example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
