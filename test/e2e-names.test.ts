/**
 * A review that names what it touches, end to end against the emulator (API
 * profile full): plan --refresh reads the tenant's applications, Actions and
 * APIs, and its text, Markdown (the pull-request comment) and JSON show each
 * one's name beside its id; a limit change says what it allows. The names
 * read are kept beside the state, so that an offline plan and a saved plan
 * (plan --out, show, apply PLANFILE: the CI flow) name them too, with when
 * they were read.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStateFile, useEmulatorWorkspace } from './helpers/e2e.js';
import { namedTenantSeed, NAMED_TENANT } from './helpers/named-tenant.js';

const ws = useEmulatorWorkspace(NAMED_TENANT.files(1500), { api: 'full', seed: namedTenantSeed() });
const api = () => ['--api', 'full', '--base-url', ws.emulator.baseUrl];

describe('plan --refresh names applications, Actions and APIs', () => {
  it('in text, Markdown and JSON, beside their ids', async () => {
    const applied = await ws.cli('apply', 'config', '--auto-approve', ...api());
    expect(applied.code).toBe(0);
    ws.write('policies.yaml', NAMED_TENANT.files(3000)['policies.yaml']!);

    const text = await ws.cli('plan', 'config', '--refresh', ...api());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `rate limit policy Mobile app (client_id:${NAMED_TENANT.mobile.slice(0, 4)}…)`,
    );
    expect(text.stdout).toContain('effect: allows twice as many requests: 1500 → 3000 per second');

    const md = await ws.cli('plan', 'config', '--refresh', '--format', 'markdown', ...api());
    expect(md.stdout).toContain(
      `| \`~\`&nbsp;update | rate&nbsp;limit&nbsp;policy | Mobile app (\`client_id:${NAMED_TENANT.mobile.slice(0, 4)}…\`): limit 1500 → 3000 | allows twice as many requests: 1500 → 3000 per second |`,
    );

    const json = await ws.cli('plan', 'config', '--refresh', '--format', 'json', ...api());
    const doc = JSON.parse(json.stdout) as {
      names: { read_at: string; items: Record<string, Record<string, string>> };
    };
    expect(doc.names.items).toEqual({
      action: { [NAMED_TENANT.action]: 'Partner token exchange' },
      client: { [NAMED_TENANT.mobile]: 'Mobile app', [NAMED_TENANT.web]: 'Customer portal' },
      resource_server: { 'https://api.example.com/': 'Reports API' },
    });
    expect(Date.parse(doc.names.read_at)).not.toBeNaN();
  });

  it('a plan made before any read of the tenant (or from a state kept by an earlier version) shows ids alone', async () => {
    expect((await ws.cli('apply', 'config', '--auto-approve', ...api())).code).toBe(0);
    expect(existsSync(namesFile())).toBe(false);
    const plan = await ws.cli('plan', 'config', ...api());
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('Mobile app');
    expect(plan.stdout).not.toContain('Names of');

    // apply --refresh reads the tenant, and keeps the names it saw for the next plan.
    ws.write('policies.yaml', NAMED_TENANT.files(3000)['policies.yaml']!);
    expect((await ws.cli('apply', 'config', '--refresh', '--auto-approve', ...api())).code).toBe(0);
    expect(existsSync(namesFile())).toBe(true);
    ws.write('policies.yaml', NAMED_TENANT.files(1500)['policies.yaml']!);
    const after = await ws.cli('plan', 'config', ...api());
    expect(after.stdout).toContain(`Mobile app (client_id:${NAMED_TENANT.mobile.slice(0, 4)}…)`);
  });
});

// A client_secret never reaches the names file: the read asks for the fields it uses only, and
// src/resources/known-names.test.ts checks that an item carrying one is kept without it.
const kept = useEmulatorWorkspace(NAMED_TENANT.files(1500), { api: 'full', seed: namedTenantSeed() });
const keptApi = () => ['--api', 'full', '--base-url', kept.emulator.baseUrl];

/** Runs the CLI in `kept`, expecting success (its stderr said when not). */
async function must(...args: string[]) {
  const run = await kept.cli(...args);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

function namesFile(workspace = ws): string {
  return `${defaultStateFile(join(workspace.dir, 'config'), workspace.emulator.baseUrl)}.names`;
}

describe('names kept from the last read of the tenant', () => {
  it('an offline plan, a saved plan, its show (text and Markdown) and its apply name what they touch, with when it was read', async () => {
    expect((await kept.cli('apply', 'config', '--auto-approve', ...keptApi())).code).toBe(0);
    await must('refresh', 'config', ...keptApi());
    const file = namesFile(kept);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {
      lists: Record<string, Record<string, { name: string }>>;
    };
    expect(stored.lists.client![NAMED_TENANT.mobile]!.name).toBe('Mobile app');
    kept.write('policies.yaml', NAMED_TENANT.files(3000)['policies.yaml']!);

    const label = `Mobile app (client_id:${NAMED_TENANT.mobile.slice(0, 4)}…)`;
    const when =
      /Names of applications, Actions and APIs as the tenant gave them on \d{4}-\d{2}-\d{2} at \d{2}:\d{2} UTC\./;
    const offline = await must('plan', 'config', ...keptApi());
    expect(offline.stdout).toContain(`rate limit policy ${label}: limit 1500 → 3000`);
    expect(offline.stdout).toMatch(when);

    await must('plan', 'config', '--out', 'release.tfplan', ...keptApi());
    const shown = await must('show', 'release.tfplan');
    expect(shown.stdout).toContain(label);
    expect(shown.stdout).toMatch(when);
    const md = await must('show', 'release.tfplan', '--format', 'markdown');
    expect(md.stdout).toContain(
      `Mobile app (\`client_id:${NAMED_TENANT.mobile.slice(0, 4)}…\`): limit 1500 → 3000`,
    );
    expect(md.stdout).toContain('<sub>Names of applications, Actions and APIs as the tenant gave them on ');

    const applied = await must(
      'apply',
      'release.tfplan',
      '--auto-approve',
      '--state',
      namesFile(kept).replace(/\.names$/, ''),
      ...keptApi(),
    );
    expect(applied.stdout).toContain(label);
  });

  it('never change what a plan does: the same changes with or without them, and a damaged names file is ids alone', async () => {
    expect((await kept.cli('apply', 'config', '--auto-approve', ...keptApi())).code).toBe(0);
    expect((await kept.cli('plan', 'config', '--refresh', ...keptApi())).code).toBe(0);
    kept.write('policies.yaml', NAMED_TENANT.files(3000)['policies.yaml']!);
    const changes = async () => {
      const run = await kept.cli('plan', 'config', '--format', 'json', ...keptApi());
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as { names?: unknown; changes: { review: { names?: unknown } }[] };
    };
    const named = await changes();
    expect(named.names).toBeDefined();
    writeFileSync(namesFile(kept), '{ not json');
    const unnamed = await changes();
    expect(unnamed.names).toBeUndefined();
    const strip = (doc: typeof named) =>
      doc.changes.map(({ review: { names: _n, ...review }, ...c }) => ({ ...c, review }));
    expect(strip(unnamed)).toEqual(strip(named));
  });
});
