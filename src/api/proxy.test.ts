import { describe, expect, it } from 'vitest';
import { displayProxy, proxyFor, proxyFromEnv, proxySecrets } from './proxy.js';

describe('proxyFromEnv', () => {
  it('names no proxy when no variable is set, so no proxy code is loaded', () => {
    expect(proxyFromEnv({ NO_PROXY: 'localhost' })).toBeUndefined();
  });

  it('takes the lower-case form first, HTTP_PROXY for https:// too when HTTPS_PROXY is unset, and adds http:// to host:port', () => {
    expect(proxyFromEnv({ HTTP_PROXY: 'http://upper:1', http_proxy: 'proxy.corp:3128' })).toEqual({
      http: { url: 'http://proxy.corp:3128', from: 'http_proxy' },
      https: { url: 'http://proxy.corp:3128', from: 'http_proxy' },
      noProxy: '',
    });
    expect(proxyFromEnv({ HTTPS_PROXY: 'https://p:443', no_proxy: '.corp', NO_PROXY: 'x' })).toEqual({
      https: { url: 'https://p:443', from: 'HTTPS_PROXY' },
      noProxy: '.corp',
    });
  });

  it.each([
    ['HTTPS_PROXY', 'http://u:secret@[bad', 'HTTPS_PROXY is not a proxy URL: http://[REDACTED]@[bad'],
    [
      'http_proxy',
      'socks5://u:secret@h:1080',
      'http_proxy names a socks5 proxy (socks5://[REDACTED]@h:1080)',
    ],
  ])('refuses %s=%s in one line, credentials masked', (name, value, message) => {
    expect(() => proxyFromEnv({ [name]: value })).toThrow(message);
  });
});

describe('proxy credentials', () => {
  it('are masked in the proxy shown, and every form they could be printed in is a secret', () => {
    expect(displayProxy('http://user:p%40ss@proxy:3128/')).toBe('http://[REDACTED]@proxy:3128');
    expect(displayProxy('http://proxy:3128')).toBe('http://proxy:3128');
    const secrets = proxySecrets(proxyFromEnv({ HTTPS_PROXY: 'http://user:p%40ss@proxy:3128' }));
    expect(secrets).toEqual(
      expect.arrayContaining(['p%40ss', 'p@ss', 'user:p@ss', Buffer.from('user:p@ss').toString('base64')]),
    );
  });
});

describe('proxyFor', () => {
  const proxy = proxyFromEnv({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'internal.example, .corp:8443' });
  it.each([
    ['https://tenant.auth0.com', 'http://proxy:3128 (HTTPS_PROXY)'],
    ['https://internal.example', undefined],
    ['https://a.internal.example', undefined],
    ['https://a.corp:8443', undefined],
    ['https://a.corp', 'http://proxy:3128 (HTTPS_PROXY)'],
    ['http://127.0.0.1:3000', undefined],
  ])('%s goes through %s', (origin, via) => {
    expect(proxyFor(proxy, origin)).toBe(via);
  });
});
