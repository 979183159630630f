import { describe, expect, it } from 'vitest';
import { normalizePgOptions, PgConfigError, resolvePgConfig } from './config.js';
import { createPgStateStore } from './store.js';
import { messageOf } from '../../cli/run-words.js';

const CONN = 'postgres://app:s3cret-pw@db.example:6543/tf';

function configError(fn: () => unknown): PgConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PgConfigError);
    return err as PgConfigError;
  }
  throw new Error('expected a PgConfigError');
}

describe('resolvePgConfig', () => {
  it('takes the connection string from conn= before TENANTFORM_PG_URL', () => {
    const fromConfig = resolvePgConfig([`conn=${CONN}`], { TENANTFORM_PG_URL: 'postgres://other/db' });
    expect(fromConfig.connectionString).toBe(CONN);
    expect(resolvePgConfig([], { TENANTFORM_PG_URL: CONN }).connectionString).toBe(CONN);
  });

  it('fills defaults: workspace "default", schema "tenantform", 20 documents of history', () => {
    expect(resolvePgConfig([], { TENANTFORM_PG_URL: CONN })).toEqual({
      connectionString: CONN,
      workspace: 'default',
      schema: 'tenantform',
      historyLimit: 20,
    });
  });

  it('reads workspace, schema and history from --backend-config', () => {
    const config = resolvePgConfig([`conn=${CONN}`, 'workspace=prod', 'schema=tf_state', 'history=5'], {});
    expect(config).toMatchObject({ workspace: 'prod', schema: 'tf_state', historyLimit: 5 });
  });

  it.each([
    ['--workspace alone', [], 'prod', 'prod'],
    ['workspace= alone', ['workspace=stage'], undefined, 'stage'],
    ['workspace= over the flag default', ['workspace=stage'], 'default', 'stage'],
    ['both naming the same workspace', ['workspace=prod'], 'prod', 'prod'],
  ])('chooses the workspace with %s', (_label, items, flag, expected) => {
    expect(resolvePgConfig(items, { TENANTFORM_PG_URL: CONN }, flag).workspace).toBe(expected);
  });

  it('refuses --workspace and workspace= naming different workspaces', () => {
    expect(
      configError(() => resolvePgConfig(['workspace=stage'], { TENANTFORM_PG_URL: CONN }, 'prod')).message,
    ).toMatch(/disagree/);
  });

  it('asks for a connection string when there is none, naming both ways to give it', () => {
    const err = configError(() => resolvePgConfig([], {}));
    // As the command line words it: the settings named by their flags.
    expect(messageOf(err)).toContain('--backend-config conn=');
    expect(messageOf(err)).toContain('TENANTFORM_PG_URL');
    expect(err.code).toBe('STATE_CONFIG');
  });

  it.each([
    ['an unknown key', [`url=${CONN}`]],
    ['an item without "="', [CONN]],
    ['a key given twice', [`conn=${CONN}`, `conn=${CONN}`]],
  ])('refuses %s without echoing the value', (_label, items) => {
    const err = configError(() => resolvePgConfig(items, {}));
    expect(err.message).not.toContain('s3cret-pw');
  });

  it.each([
    ['a workspace with a space', ['workspace=my prod']],
    ['a workspace starting with "-"', ['workspace=-x']],
    ['a workspace of 64 characters', [`workspace=${'w'.repeat(64)}`]],
    ['an upper-case schema', ['schema=Tenantform']],
    ['a schema with a quote', ['schema=a"b']],
    ['a negative history', ['history=-1']],
    ['a fractional history', ['history=1.5']],
    ['a history above 10000', ['history=10001']],
  ])('refuses %s', (_label, items) => {
    configError(() => resolvePgConfig([`conn=${CONN}`, ...items], {}));
  });

  it.each([
    ['a workspace of 63 characters', [`workspace=${'w'.repeat(63)}`]],
    ['a workspace with dots, dashes and underscores', ['workspace=eu-1.prod_b']],
    ['history=0', ['history=0']],
    ['history=10000', ['history=10000']],
  ])('accepts %s', (_label, items) => {
    expect(() => resolvePgConfig([`conn=${CONN}`, ...items], {})).not.toThrow();
  });

  it.each([['mysql://u:p@h/db'], ['host=db password=x'], ['']])(
    'refuses a connection string that is not postgres:// (%s)',
    (conn) => {
      const err = configError(() => normalizePgOptions({ connectionString: conn }));
      if (conn.includes('p@')) expect(err.message).not.toContain('u:p@');
    },
  );
});

describe('createPgStateStore', () => {
  it('describes the workspace and target without user or password, and connects lazily', async () => {
    const store = createPgStateStore({ connectionString: CONN, workspace: 'prod' });
    expect(store.description).toBe('pg workspace "prod" on db.example:6543/tf');
    await store.close();
  });

  it('names a schema other than the default in the description', async () => {
    const store = createPgStateStore({ connectionString: CONN, schema: 'team_a' });
    expect(store.description).toBe('pg workspace "default" on db.example:6543/tf (schema team_a)');
    await store.close();
  });

  it('fails at once on a bad setting', () => {
    configError(() => createPgStateStore({ connectionString: CONN, workspace: '' }));
  });
});
