import { describe, expect, it } from 'vitest';
import { LockError, StateError } from '../errors.js';
import { describeTarget, pgError, redactConnectionString, scrub } from './redact.js';
import { advisoryKeys } from './schema.js';

describe('redactConnectionString', () => {
  it.each([
    ['a password in the user part', 'postgres://app:hunter2@db:5432/tf', 'postgres://app:***@db:5432/tf'],
    ['no password', 'postgres://app@db/tf', 'postgres://app@db/tf'],
    [
      'a password parameter',
      'postgresql://app@db/tf?password=hunter2&sslmode=require',
      'postgresql://app@db/tf?password=***&sslmode=require',
    ],
    ['a percent-encoded password', 'postgres://app:p%40ss%2Fw@db/tf', 'postgres://app:***@db/tf'],
    [
      'text that is not a URL',
      'not a url //app:hunter2@db password=hunter2',
      'not a url //app:***@db password=***',
    ],
  ])('masks %s', (_label, conn, expected) => {
    expect(redactConnectionString(conn)).toBe(expected);
  });
});

describe('describeTarget', () => {
  it.each([
    ['postgres://app:pw@db.internal:6543/tf', 'db.internal:6543/tf'],
    ['postgres://app:pw@db.internal/tf', 'db.internal:5432/tf'],
    ['postgres://app:pw@[::1]:5433/tf', '[::1]:5433/tf'],
    ['postgres:///tf?host=/var/run/postgresql', '/var/run/postgresql:5432/tf'],
    ['postgres://app@db', 'db:5432/app'],
  ])('describes %s as %s', (conn, expected) => {
    expect(describeTarget(conn)).toBe(expected);
  });
});

describe('scrub', () => {
  const conn = 'postgres://app:p%40ss@db/tf';

  it('replaces the whole connection string by its redacted form', () => {
    expect(scrub(`connecting to ${conn} failed`, conn)).toBe('connecting to postgres://app:***@db/tf failed');
  });

  it.each([
    ['encoded', 'password p%40ss was refused'],
    ['decoded', 'password p@ss was refused'],
  ])('masks the password %s anywhere in the text', (_label, text) => {
    expect(scrub(text, conn)).toBe('password *** was refused');
  });
});

describe('pgError', () => {
  const conn = 'postgres://app:topsecret@db:5432/tf';

  it('wraps a driver error into STATE_IO naming the action, the target and a hint, without the password', () => {
    const driver = Object.assign(new Error('password authentication failed for user "app" (topsecret)'), {
      code: '28P01',
    });
    const err = pgError('read the state', 'pg workspace "prod" on db:5432/tf', driver, conn);
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).code).toBe('STATE_IO');
    expect(err.message).toContain(
      'pg workspace "prod" on db:5432/tf: could not read the state: password authentication failed',
    );
    expect(err.message).toContain('[28P01]');
    expect(err.message).toContain('check user and password');
    expect(err.message).not.toContain('topsecret');
    expect(err.cause).toBeUndefined();
  });

  it('passes typed state errors through unchanged', () => {
    const conflict = new StateError('STATE_CONFLICT', 'changed');
    const locked = new LockError({ id: 'a', pid: 1, host: 'h', command: 'apply', since: 'now' }, 'x');
    expect(pgError('write', 'w', conflict, conn)).toBe(conflict);
    expect(pgError('lock', 'w', locked, conn)).toBe(locked);
  });
});

describe('advisoryKeys', () => {
  it('derives the same two non-negative 31-bit keys from the same label', () => {
    const [a, b] = advisoryKeys('lock:tenantform:prod');
    expect(advisoryKeys('lock:tenantform:prod')).toEqual([a, b]);
    for (const key of [a, b]) {
      expect(Number.isInteger(key)).toBe(true);
      expect(key).toBeGreaterThanOrEqual(0);
      expect(key).toBeLessThanOrEqual(0x7fffffff);
    }
  });

  it('derives different keys for different workspaces', () => {
    expect(advisoryKeys('lock:tenantform:prod')).not.toEqual(advisoryKeys('lock:tenantform:stage'));
  });
});
