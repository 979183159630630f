/**
 * Issue 29, item 6: a state is bound to its file and its tenant. Two configs
 * in one directory applied to two tenants no longer share a state (the
 * default is per config path and per environment or target); a state bound to
 * one tenant is refused against another, naming both, unless
 * --reassign-tenant; and a state kept where earlier versions kept it is found,
 * never silently replaced by an empty one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import type { StateDocument } from '../src/state/index.js';
import { defaultStateFile } from './helpers/e2e.js';
import { runCli, tempDir } from './helpers/cli.js';

const policy = (selector: string) =>
  `rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: ${selector}\n    configuration: { action: block, limit: 100 }\n`;

let a: EmulatorHandle;
let b: EmulatorHandle;
let work: { dir: string; cleanup: () => void };

beforeEach(async () => {
  work = tempDir('tenantform-tenant-');
  [a, b] = await Promise.all([startEmulator(), startEmulator()]);
});
afterEach(async () => {
  await Promise.all([a.stop(), b.stop()]);
  work.cleanup();
});

const cli = (args: string[], tenant: EmulatorHandle, env: Record<string, string> = {}) =>
  runCli(args, { cwd: work.dir, env: { TENANTFORM_TOKEN: tenant.token, ...env } });
const onTenant = (args: string[], tenant: EmulatorHandle) =>
  cli([...args, '--base-url', tenant.baseUrl], tenant);
const selectors = (tenant: EmulatorHandle) =>
  tenant.snapshot().rateLimitPolicies.map((p) => p.consumer_selector);
const readState = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as StateDocument;

describe('two configs in one directory, applied to two tenants', () => {
  it('keep a state each: applying one never drops the records of the other', async () => {
    writeFileSync(join(work.dir, 'a.yaml'), policy('client_id:a'));
    writeFileSync(join(work.dir, 'b.yaml'), policy('client_id:b'));
    expect((await onTenant(['apply', 'a.yaml', '--auto-approve'], a)).code).toBe(0);
    const applyB = await onTenant(['apply', 'b.yaml', '--auto-approve'], b);
    expect(applyB.code, applyB.stderr).toBe(0);
    expect(applyB.stdout).not.toContain('already gone');

    expect(selectors(a)).toEqual(['client_id:a']);
    expect(selectors(b)).toEqual(['client_id:b']);
    const stateA = defaultStateFile(work.dir, a.baseUrl).replace(/state\.json$/, 'a.yaml.state.json');
    expect(readState(stateA).resources.map((r) => r.id)).toEqual([a.snapshot().rateLimitPolicies[0]!.id]);
    expect(readState(stateA).tenant).toEqual({ host: new URL(a.baseUrl).host, api_base: a.baseUrl });
    const again = await onTenant(['plan', 'a.yaml', '--detailed-exitcode'], a);
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('a state bound to its tenant', () => {
  let state: string;
  beforeEach(async () => {
    writeFileSync(join(work.dir, 'tenant.yaml'), policy('client_id:a'));
    state = join(work.dir, 'state.json');
    expect((await onTenant(['apply', 'tenant.yaml', '--state', state, '--auto-approve'], a)).code).toBe(0);
  });

  it('is refused by plan and apply against another tenant, naming both and how to go on', async () => {
    for (const command of ['plan', 'apply']) {
      const yes = command === 'apply' ? ['--auto-approve'] : [];
      const run = await onTenant([command, 'tenant.yaml', '--state', state, ...yes], b);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `the state state.json belongs to the tenant at ${a.baseUrl}, but this ${command} would act on ${b.baseUrl}.`,
      );
      expect(run.stderr).toContain('(--state FILE, or an environment per tenant in tenantform.yaml');
      expect(run.stderr).toContain('pass --reassign-tenant to bind the state to it');
    }
    expect(b.requestCount()).toBe(0);
    expect(readState(state).tenant?.api_base).toBe(a.baseUrl);
  });

  it('moves to another tenant with --reassign-tenant, binding the state to it', async () => {
    const run = await onTenant(
      ['apply', 'tenant.yaml', '--state', state, '--auto-approve', '--reassign-tenant'],
      b,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readState(state).tenant?.api_base).toBe(b.baseUrl);
    // The user says the resources moved: nothing to change, nothing sent, the state now names b.
    expect(b.requestCount()).toBe(0);
    const back = await onTenant(['plan', 'tenant.yaml', '--state', state], a);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain(`belongs to the tenant at ${b.baseUrl}`);
  });
});

describe('a state where earlier versions kept it', () => {
  /** A format 1 state (no tenant) at DIR/.tenantform/state.json recording the policy on `tenant`. */
  async function olderState(tenant: EmulatorHandle): Promise<string> {
    writeFileSync(join(work.dir, 'tenant.yaml'), policy('client_id:a'));
    const made = join(work.dir, 'made.json');
    expect((await onTenant(['apply', 'tenant.yaml', '--state', made, '--auto-approve'], tenant)).code).toBe(
      0,
    );
    const { tenant: _bound, ...doc } = readState(made);
    mkdirSync(join(work.dir, '.tenantform'));
    const older = join(work.dir, '.tenantform', 'state.json');
    writeFileSync(older, JSON.stringify({ ...doc, format_version: 1 }));
    return older;
  }

  it('is found and used (never an empty state that would create everything again), then bound', async () => {
    const older = await olderState(a);
    const sent = a.requestCount();
    const plan = await onTenant(['plan', 'tenant.yaml', '--detailed-exitcode'], a);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stderr).toContain(`Note: using the state at ${older}, which is bound to no tenant yet`);
    expect(plan.stderr).toContain(`tenantform state migrate --from file:${older} --to file:`);
    const apply = await onTenant(['apply', 'tenant.yaml', '--auto-approve'], a);
    expect(apply.code, apply.stderr).toBe(0);
    expect(a.requestCount()).toBe(sent);
    expect(readState(older)).toMatchObject({ format_version: 2, tenant: { api_base: a.baseUrl } });
    expect(
      existsSync(defaultStateFile(work.dir, a.baseUrl).replace(/state\.json$/, 'tenant.yaml.state.json')),
    ).toBe(false);
  });

  it('is left to its tenant once bound: another tenant starts a state of its own', async () => {
    const older = await olderState(a);
    expect((await onTenant(['apply', 'tenant.yaml', '--auto-approve'], a)).code).toBe(0);
    const other = await onTenant(['apply', 'tenant.yaml', '--auto-approve'], b);
    expect(other.code, other.stderr).toBe(0);
    expect(selectors(b)).toEqual(['client_id:a']);
    expect(readState(older).tenant?.api_base).toBe(a.baseUrl);
    const scoped = defaultStateFile(work.dir, b.baseUrl).replace(/state\.json$/, 'tenant.yaml.state.json');
    expect(readState(scoped).tenant?.api_base).toBe(b.baseUrl);
  });

  it('makes a command without a target ask which state, when a config has several', async () => {
    await olderState(a);
    expect((await onTenant(['apply', 'tenant.yaml', '--auto-approve'], a)).code).toBe(0);
    expect((await onTenant(['apply', 'tenant.yaml', '--auto-approve'], b)).code).toBe(0);
    const list = await cli(['state', 'list', 'tenant.yaml'], a);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/has several states \(.*\) and nothing says which to use; give the target/);
    const listed = await cli(['state', 'list', 'tenant.yaml'], a, { TENANTFORM_BASE_URL: b.baseUrl });
    expect(listed.code, listed.stderr).toBe(0);
  });
});

describe('a first apply to a target that never answers', () => {
  it('leaves the new state unbound, so that the run against the right target is not refused', async () => {
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    writeFileSync(join(work.dir, 'tenant.yaml'), policy('client_id:a'));
    const state = join(work.dir, 'state.json');
    const apply = (baseUrl: string) =>
      cli(['apply', 'tenant.yaml', '--state', state, '--auto-approve', '--base-url', baseUrl], a);

    const refused = await apply(`http://127.0.0.1:${port}`);
    expect(refused.code).toBe(1);
    expect(existsSync(state) ? readState(state).tenant : undefined).toBeUndefined();

    const corrected = await apply(a.baseUrl);
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(selectors(a)).toEqual(['client_id:a']);
    expect(readState(state).tenant?.api_base).toBe(a.baseUrl);
  });
});
