/**
 * `--format terraform-json` read by tools made for Terraform's plans, from
 * npm, for every action tenantform has: a refusal by either fails here.
 *
 * - @ahmadnassri/terraform-unidiff: checks the plan against its own schema
 *   ("invalid Terraform Plan JSON data" otherwise), then makes one unified
 *   diff per resource that changes.
 * - @terraform-visual/cli: writes an HTML report of the plan; the report's
 *   script reads the plan in the browser and draws its graph. It is loaded
 *   in headless Chromium: a plan it cannot read leaves an error on the
 *   console and no graph (the last test shows that this check sees a
 *   refusal). Skipped where Chromium is not installed (.ci/run installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTerraformJson } from '../src/plan/render-terraform-json.js';
import type { Plan } from '../src/plan/types.js';
import { everyKindOfPlan } from './plan-builders.js';
import { chromiumPath, headlessFlags } from '../scripts/chromium.mjs';

const require = createRequire(import.meta.url);
const unidiff = require('@ahmadnassri/terraform-unidiff') as (plan: unknown) => {
  summary: { create: number; update: number; delete: number };
  patches: string[];
};

const MADE = { at: '2026-03-04T05:06:07Z', toolVersion: '0.1.0' };
const PLANS: [string, Plan][] = everyKindOfPlan().map((plan) => [
  [...new Set(plan.changes.map((c) => c.action))].sort().join(', '),
  plan,
]);

interface Doc {
  resource_changes: { address: string; change: { actions: string[] }; tenantform: { action: string } }[];
}

const docOf = (plan: Plan): Doc => JSON.parse(renderTerraformJson(plan, MADE)) as Doc;

describe('@ahmadnassri/terraform-unidiff', () => {
  it('covers every action: create, update, replace, delete, forget (and blocked, no-op)', () => {
    const seen = new Set(PLANS.flatMap(([, plan]) => plan.changes.map((c) => c.action)));
    expect([...seen].sort()).toEqual(['blocked', 'create', 'delete', 'forget', 'no-op', 'replace', 'update']);
  });

  it.each(PLANS)('accepts a plan with %s, and diffs each resource that changes', (_actions, plan) => {
    const doc = docOf(plan);
    const { patches } = unidiff(doc);
    const changing = doc.resource_changes.filter((rc) => !rc.change.actions.includes('no-op'));
    expect(patches).toHaveLength(changing.length);
    for (const [i, rc] of changing.entries()) expect(patches[i]).toContain(`Index: ${rc.address}`);
  });
});

const CHROMIUM = chromiumPath();
const VISUAL = resolve(require.resolve('@terraform-visual/cli/package.json'), '..', 'bin', 'index.js');
const work = mkdtempSync(join(tmpdir(), 'tenantform-visual-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The report terraform-visual makes of `plan`, loaded in headless Chromium: its DOM and its console errors. */
function visualReport(name: string, plan: unknown): { dom: string; errors: string[] } {
  const dir = join(work, name);
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(plan));
  execFileSync(process.execPath, [VISUAL, '--plan', file, '--out', dir], { stdio: 'ignore' });
  const profile = mkdtempSync(join(work, 'profile-'));
  const run = spawnSync(
    CHROMIUM!,
    [
      ...headlessFlags(profile),
      '--enable-logging=stderr',
      '--v=0',
      '--virtual-time-budget=5000',
      '--dump-dom',
      `file://${join(dir, 'terraform-visual-report', 'index.html')}`,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  const errors = run.stderr.split('\n').filter((line) => /:CONSOLE[^\]]*\] .*Error/.test(line));
  return { dom: run.stdout, errors };
}

describe.skipIf(!CHROMIUM)('@terraform-visual/cli, its report in headless Chromium', () => {
  it.each(PLANS)('reads a plan with %s and draws its graph', (actions, plan) => {
    const { dom, errors } = visualReport(actions.replace(/\W+/g, '-'), docOf(plan));
    expect(errors).toEqual([]);
    expect(dom).toMatch(/plan-graph_container[^>]*><canvas /);
  });

  it('shows a refusal: a plan whose change has no actions leaves an error and no graph', () => {
    const { dom, errors } = visualReport('refused', {
      format_version: '1.2',
      resource_changes: [{ address: 'auth0_x.y', change: {} }],
    });
    expect(errors.length).toBeGreaterThan(0);
    expect(dom).not.toContain('<canvas');
  });
});
