/**
 * The plan's output stays byte for byte what it was: text (compact and
 * --verbose), JSON and Markdown of one generated configuration against one
 * state, compared with the files committed in test/fixtures/plan-golden/.
 * Guards changes made for speed (issue 39): they may change how the plan, the
 * review and the guardrails are worked out, never what they say. The config
 * is bench/generate.mjs's mix plus what the review speaks about: a default
 * and group policies, a limit 0 on a group, third-party and CIMD clients that
 * a group governs, limit cuts, a move to enforcing, and stale policies (of
 * every scope) whose applications fall back.
 * UPDATE_GOLDEN=1 rewrites the files (only for a deliberate change of output).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildState, generateResources, writeConfig, type PolicyAttributes } from '../bench/generate.mjs';
import { runCli, tempDir } from './helpers/cli.js';

const GOLDEN = join(import.meta.dirname, 'fixtures', 'plan-golden');
const work = tempDir('tf-plan-golden-');
afterAll(() => work.cleanup());

const policy = (selector: string, configuration: PolicyAttributes['configuration']): PolicyAttributes => ({
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: selector,
  configuration,
});

/** What the review speaks about, desired: default, groups, group members, a move to enforcing, a cut. */
const EXTRA_DESIRED: PolicyAttributes[] = [
  policy('default', { action: 'log', limit: 100 }),
  policy('third_party_clients', { action: 'block', limit: 0 }),
  policy('client_id:tpa_partner-one', { action: 'block', limit: 40 }),
  policy('client_id:https://cimd.example.com/app.json', {
    action: 'redirect',
    limit: 5,
    redirect_uri: 'https://x.example.com/slow',
  }),
  policy('client_id:enforce-now', { action: 'block', limit: 30 }),
  policy('client_id:cut-deep', { action: 'log', limit: 10 }),
];

/** Recorded: what those were before, and stale policies of each scope (deleted: their applications fall back). */
const EXTRA_RECORDED: PolicyAttributes[] = [
  policy('client_id:enforce-now', { action: 'log', limit: 30 }),
  policy('client_id:cut-deep', { action: 'log', limit: 500 }),
  policy('cimd_clients', { action: 'block', limit: 20 }),
  policy('client_id:tpa_gone', { action: 'allow' }),
  policy('client_id:https://cimd.example.com/gone.json', { action: 'block', limit: 3 }),
];

function fixture(): { dir: string; state: string } {
  const resources = generateResources(200);
  const state = buildState(resources, { inSync: 0.5, stale: 6 });
  const recorded = EXTRA_RECORDED.map((p, i) => {
    const identity = [p.resource, p.consumer, p.consumer_selector];
    return {
      kind: 'rate_limit_policy',
      address: `rate_limit_policy[${identity.map((s) => JSON.stringify(s)).join(',')}]`,
      identity,
      attributes: p,
      id: `rlp_extra${String(i).padStart(16, '0')}`,
    };
  });
  const all = [...state.resources, ...recorded].sort((a, b) =>
    a.address < b.address ? -1 : a.address > b.address ? 1 : 0,
  );
  const dir = join(work.dir, 'config');
  writeConfig(dir, { ...resources, policies: [...EXTRA_DESIRED, ...resources.policies] });
  writeFileSync(join(work.dir, 'state.json'), JSON.stringify({ ...state, resources: all }, null, 2) + '\n');
  return { dir: 'config', state: 'state.json' };
}

const { dir, state } = fixture();

async function plan(...flags: string[]): Promise<string> {
  const run = await runCli(['plan', dir, '--state', state, ...flags], { cwd: work.dir, env: {} });
  expect(run.stderr).not.toMatch(/error/i);
  expect(run.code).toBe(0);
  return run.stdout;
}

function compare(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  // Not toMatchFileSnapshot: a missing golden must fail, never be written by a CI run.
  expect(actual === readFileSync(path, 'utf8'), `plan output differs from ${path}`).toBe(true);
}

describe('plan output of a generated configuration (golden files)', () => {
  it('text, compact (more than 50 changes)', async () => compare('plan.txt', await plan()));
  it('text, --verbose', async () => compare('plan-verbose.txt', await plan('--verbose')));
  it('JSON', async () => compare('plan.json', await plan('--format', 'json')));
  it('Markdown', async () => compare('plan.md', await plan('--format', 'markdown')));
});
