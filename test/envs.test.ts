import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers/cli.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir('tenantform-envs-'));
  for (const d of ['common', 'eu', 'us', 'vars']) mkdirSync(join(dir, 'config', d), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'tenantform.yaml'),
    `environments:
  eu:
    paths: [common, eu]
    var_files: [vars/eu.yaml]
    domain: eu.example.com
    credentials: { client_id: EU_ID, client_secret: EU_SECRET }
    state: { backend: pg, workspace: eu }
  us:
    paths: [common, us]
    api: full
`,
  );
});
afterEach(() => cleanup());

const envs = (...args: string[]) => runCli(['envs', 'config', ...args], { cwd: dir });
const matrix = async (...changed: string[]) =>
  JSON.parse((await envs('--format', 'github-matrix', '--changed', ...changed)).stdout) as {
    include: { environment: string }[];
  };

describe('tenantform envs', () => {
  it('lists the environments as a table, JSON and a GitHub matrix', async () => {
    const text = await envs();
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^eu +config\/common, config\/eu +eu\.example\.com +pg workspace eu$/m);
    expect(text.stdout).toMatch(/^us +config\/common, config\/us +- +default file$/m);
    expect(JSON.parse((await envs('--format', 'github-matrix')).stdout)).toEqual({
      include: [{ environment: 'eu' }, { environment: 'us' }],
    });
    const json = JSON.parse((await envs('--format', 'json')).stdout) as { environments: unknown[] };
    expect(json.environments[0]).toEqual({
      name: 'eu',
      paths: ['config/common', 'config/eu'],
      var_files: ['config/vars/eu.yaml'],
      target: { domain: 'eu.example.com' },
      credentials: { client_id: 'EU_ID', client_secret: 'EU_SECRET' },
      state: { backend: 'pg', workspace: 'eu' },
    });
    expect(json.environments[1]).toMatchObject({ name: 'us', api: 'full' });
  });

  it.each([
    [['config/eu/policies.yaml'], ['eu']],
    [['config/common/a.yaml'], ['eu', 'us']],
    [['config/vars/eu.yaml'], ['eu']],
    [['config/vars/us.yaml'], []],
    [['config/tenantform.yaml'], ['eu', 'us']],
    [['README.md', 'config/us/x.yaml'], ['us']],
    [['config/eu-old/x.yaml'], []],
    [[], []],
  ])('--changed %j affects %j', async (changed, expected) => {
    expect((await matrix(...changed)).include.map((e) => e.environment)).toEqual(expected);
  });

  it('reports a broken tenantform.yaml at file:line:col and exits 1', async () => {
    writeFileSync(
      join(dir, 'config', 'tenantform.yaml'),
      'environments:\n  eu: { paths: [eu], domain: 7 }\n',
    );
    const run = await envs();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^config\/tenantform\.yaml:2:30: environments\.eu\.domain must be a host name/m,
    );
  });

  it('lists the one environment of a repository made by init', async () => {
    expect((await runCli(['init', 'fresh'], { cwd: dir })).code).toBe(0);
    const run = await runCli(['envs', 'fresh', '--format', 'github-matrix'], { cwd: dir });
    expect(JSON.parse(run.stdout)).toEqual({ include: [{ environment: 'production' }] });
    // One environment needs no --env.
    expect((await runCli(['plan', 'fresh'], { cwd: dir })).code).toBe(0);
  });
});
