/**
 * API profiles: changing the configuration of N policies. Under spec each
 * change is a replace (DELETE, then POST: two requests, and the policy is
 * absent in between); under full it is one PATCH, with no window. Each run
 * applies the policies, changes every configuration, and measures the second
 * apply: requests, absence windows (DELETEs of a policy that is created
 * again) and wall time, against an emulator answering after `latencyMs`;
 * then a third, no-op apply (which must send nothing), whose wall time is the
 * process's fixed cost: the difference is the time the changes took.
 */
import { figure, info, pick } from './figures.mjs';
import { applyOnce, configDir, freshState, withEmulator } from './apply-scenarios.mjs';
import { policyAt, writeConfig } from './generate.mjs';

/** policyAt(i) with another configuration (a log limit of 1000 + i, never the original). */
function changedPolicyAt(i) {
  return { ...policyAt(i), configuration: { action: 'log', limit: 1000 + i } };
}

const policies = (n, at) => ({
  policies: Array.from({ length: n }, (_, i) => at(i)),
  profiles: [],
  permissions: [],
});

async function changeOnce(work, api, n, latencyMs) {
  const dir = configDir(work, `change-${api}-${Math.random().toString(36).slice(2)}`, policies(n, policyAt));
  return withEmulator({ api, latencyMs }, async (emu) => {
    const statePath = freshState(work);
    const args = ['--api', api];
    await applyOnce(emu, dir, { statePath, args });
    writeConfig(dir, policies(n, changedPolicyAt));
    const deletesBefore = emu.stats().byRoute['DELETE /api/v2/rate-limit-policies/{id}'] ?? 0;
    const run = await applyOnce(emu, dir, { statePath, args });
    const windows = (emu.stats().byRoute['DELETE /api/v2/rate-limit-policies/{id}'] ?? 0) - deletesBefore;
    const changed = emu.snapshot().rateLimitPolicies.filter((p) => p.configuration.action === 'log').length;
    if (changed < n) throw new Error(`${api}: only ${changed} of ${n} policies changed`);
    const noop = await applyOnce(emu, dir, { statePath, args });
    if (noop.requests !== 0)
      throw new Error(`${api}: the apply after the change sent ${noop.requests} requests`);
    return { ...run, windows, overMs: run.wallMs - noop.wallMs };
  });
}

export async function configChangeFigures(work, log, { n = 100, latencyMs = 20, runs = 3 } = {}) {
  // The profiles alternate (spec first, then full first, …), so that drift in machine load hits both.
  const byApi = { spec: [], full: [] };
  for (let i = 0; i < runs; i++) {
    for (const api of i % 2 === 0 ? ['spec', 'full'] : ['full', 'spec']) {
      byApi[api].push(await changeOnce(work, api, n, latencyMs));
    }
  }
  const figures = [];
  for (const [api, expected] of [
    ['spec', 2 * n],
    ['full', n],
  ]) {
    const results = byApi[api];
    const prefix = `config change of ${n} policies, --api ${api}`;
    figures.push(
      figure(`${prefix}: requests`, 'count', pick(results, 'requests'), { op: '=', value: expected }),
      figure(`${prefix}: absence windows`, 'count', pick(results, 'windows'), {
        op: '=',
        value: api === 'spec' ? n : 0,
      }),
      info(
        `${prefix}: wall`,
        's',
        results.map((r) => r.wallMs / 1000),
        api === 'spec'
          ? `each change is DELETE then POST; emulator latency ${latencyMs} ms per answer, parallelism 10`
          : `each change is one PATCH; emulator latency ${latencyMs} ms per answer, parallelism 10`,
      ),
      info(
        `${prefix}: wall − no-op apply wall`,
        's',
        results.map((r) => r.overMs / 1000),
        'the time the changes took: the same apply with nothing to do costs the process start, config and state',
      ),
    );
    const [req, win, wall, over] = figures.slice(-4);
    log(
      `${prefix}: ${req.value} requests, ${win.value} windows, ${wall.value.toFixed(2)} s (${over.value.toFixed(2)} s over a no-op apply)`,
    );
  }
  return figures;
}
