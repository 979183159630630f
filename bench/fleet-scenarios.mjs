/**
 * Fleet figures (issue 17): one `tenantform apply --all-envs` process against
 * 20 emulated tenants (one process, dist/emulator startTenants), each with its
 * own 25 req/s bucket, 200 policy creates per tenant; and `plan --all-envs`
 * over 100 environments of 100 resources each (states half in sync). The
 * tenants work in parallel, so the whole fleet's floor is one tenant's: N/R.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { figure, info, pick, repeat } from './figures.mjs';
import { buildState, generateResources, policyAt, writeFixture, writeConfig } from './generate.mjs';
import { ROOT, runCliOk } from './measure.mjs';
import { startEmulatorForBench } from './apply-scenarios.mjs';
import { windowFloorMs } from './window-scenarios.mjs';

const { startTenants } = await import(pathToFileURL(join(ROOT, 'dist', 'emulator', 'index.js')).href);

const envVar = (name) => `${name.toUpperCase()}_TOKEN`;

/** A project of `names.length` environments, each one directory of `resources`; returns its directory. */
function writeProject(dir, names, resourcesOf, entryOf) {
  mkdirSync(dir, { recursive: true });
  const entries = names.map((name, i) => {
    writeConfig(join(dir, name), resourcesOf(name, i));
    return `  ${name}:\n    paths: [${name}]\n${entryOf(name, i)}`;
  });
  writeFileSync(join(dir, 'tenantform.yaml'), `environments:\n${entries.join('')}`);
  return dir;
}

/**
 * Writes a project of `fleet`'s tenants (one environment each, `n` policy
 * creates, its own state file) into `dir` and runs one `apply --all-envs`
 * with every tenant at once; resolves with the process result.
 */
async function applyToFleet(dir, fleet, n) {
  const policies = {
    policies: Array.from({ length: n }, (_, i) => policyAt(i)),
    profiles: [],
    permissions: [],
  };
  const names = fleet.map((t) => t.name);
  writeProject(
    dir,
    names,
    () => policies,
    (name, i) =>
      `    base_url: ${fleet[i].baseUrl}\n    credentials: { token: ${envVar(name)} }\n    state: { path: ${name}.state.json }\n`,
  );
  const env = {
    ...Object.fromEntries(fleet.map((t) => [envVar(t.name), t.token])),
    // The tenants tenantform.yaml names, confirmed outside it, as credentials need.
    TENANTFORM_ALLOWED_HOSTS: fleet.map((t) => new URL(t.baseUrl).host).join(','),
  };
  return runCliOk(['apply', dir, '--all-envs', '--env-parallelism', String(fleet.length), '--auto-approve'], {
    env,
  });
}

/** 20 tenants × 200 policy creates at 25 req/s each: wall ÷ (N/R) and peak RSS of the one apply process. */
export async function fleetApplyFigures(work, log, { tenants = 20, n = 200, rate = 25 } = {}) {
  const names = Array.from({ length: tenants }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);
  let run = 0;
  const runs = await repeat(
    async () => {
      const fleet = await startTenants(names, {
        rateLimit: { model: 'continuous', perSecond: rate, burst: rate },
      });
      try {
        const result = await applyToFleet(join(work, `fleet-apply-${++run}`), fleet, n);
        const created = fleet.reduce((sum, t) => sum + t.snapshot().rateLimitPolicies.length, 0);
        if (created !== tenants * n)
          throw new Error(`fleet apply created ${created} of ${tenants * n} policies`);
        const status429 = fleet.reduce((sum, t) => sum + (t.stats().byStatus['429'] ?? 0), 0);
        return { wallMs: result.wallMs, maxRssMB: result.maxRssMB, status429 };
      } finally {
        await Promise.all(fleet.map((t) => t.stop()));
      }
    },
    { maxRuns: 3 },
  );
  const floorS = n / rate;
  const walls = pick(runs, 'wallMs').map((ms) => ms / 1000);
  const figures = [
    figure(
      `fleet apply: wall ÷ one tenant's floor (N/R), ${tenants} tenants × N=${n} at R=${rate}/s`,
      'ratio',
      walls.map((w) => w / floorS),
      { op: '<=', value: 1.15 },
      `one process, apply --all-envs --env-parallelism ${tenants}; each tenant its own emulator bucket (burst ${rate}), client, pacer and state file`,
    ),
    info('fleet apply: wall', 's', walls),
    figure('fleet apply: peak RSS', 'MB', pick(runs, 'maxRssMB'), { op: '<', value: 300 }),
    info('fleet apply: 429 responses (all tenants)', 'count', pick(runs, 'status429')),
  ];
  log(
    `${figures[0].name} ${figures[0].value.toFixed(3)} (${figures[1].value.toFixed(2)} s, ${figures[2].value.toFixed(0)} MB)`,
  );
  return figures;
}

/** `plan --all-envs` over 100 environments of 100 resources each, states half in sync. */
export async function fleetPlanFigures(work, log, { envs = 100, size = 100 } = {}) {
  const names = Array.from({ length: envs }, (_, i) => `e${String(i + 1).padStart(3, '0')}`);
  const resources = generateResources(size);
  const state = buildState(resources, { inSync: 0.5 });
  const dir = join(work, 'fleet-plan');
  mkdirSync(dir, { recursive: true });
  const entries = names.map((name) => {
    writeFixture(join(dir, name), resources, join(dir, `${name}.state.json`), state);
    return `  ${name}:\n    paths: [${name}]\n    state: { path: ${name}.state.json }\n`;
  });
  writeFileSync(join(dir, 'tenantform.yaml'), `environments:\n${entries.join('')}`);
  const runs = await repeat(() => runCliOk(['plan', dir, '--all-envs']), { maxRuns: 5, budgetMs: 10_000 });
  const figures = [
    figure(
      `plan --all-envs: wall, ${envs} environments × ${size} resources`,
      's',
      pick(runs, 'wallMs').map((ms) => ms / 1000),
      { op: '<', value: 2 },
      'whole process; every environment its own config directory and state file (half in sync); text output discarded',
    ),
    info('plan --all-envs: peak RSS', 'MB', pick(runs, 'maxRssMB')),
  ];
  log(`${figures[0].name} ${figures[0].value.toFixed(2)} s`);
  return figures;
}

/** The published tiers the hundred tenants cycle through (emulator tier names), a quarter each. */
const FLEET_TIERS = ['free', 'enterprise-nonprod', 'enterprise-prod', 'private-cloud-20'];

/** One `apply --all-envs` to `tenants` emulated tenants of mixed tiers, `n` creates each. */
async function hundredOnce(work, run, names, n) {
  const fleet = [];
  try {
    for (const [i, name] of names.entries()) {
      const tier = FLEET_TIERS[i % FLEET_TIERS.length];
      fleet.push(Object.assign(await startEmulatorForBench({ rateLimit: { tier } }), { name, tier }));
    }
    const result = await applyToFleet(join(work, `fleet-100-${run}`), fleet, n);
    let slowest = { floorMs: 0, tier: '' };
    let status429 = 0;
    const by429 = {};
    for (const t of fleet) {
      const { firstRequestAt, byStatus } = t.stats();
      const accepted = byStatus['201'] ?? 0;
      if (accepted !== n)
        throw new Error(`fleet-100: tenant ${t.name} (${t.tier}) got ${accepted} of ${n} creates`);
      const floorMs = windowFloorMs(t.rateLimit, accepted, firstRequestAt);
      if (floorMs > slowest.floorMs) slowest = { floorMs, tier: t.tier };
      const refused = byStatus['429'] ?? 0;
      status429 += refused;
      by429[t.tier] = (by429[t.tier] ?? 0) + refused;
    }
    return {
      wallMs: result.wallMs,
      maxRssMB: result.maxRssMB,
      floorMs: slowest.floorMs,
      tier: slowest.tier,
      status429,
      by429,
    };
  } finally {
    await Promise.all(fleet.map((t) => t.stop()));
  }
}

/**
 * A hundred tenants in one run (issue 39): one `apply --all-envs
 * --env-parallelism 100` process, 100 policy creates per tenant, each tenant
 * its own emulator on the documented window model at one of the published
 * tiers (Free, Enterprise non-production, Enterprise production, Private
 * Cloud 20; a quarter each). The tenants run side by side, so the fleet's
 * floor is its slowest tenant's: burst at once, then min(R, B) at each
 * window boundary after its first request (windowFloorMs). Targets: wall ≤
 * 1.10 × that floor, peak RSS < 500 MB, no 429.
 */
export async function fleetHundredFigures(work, log, { tenants = 100, n = 100, runs = 3 } = {}) {
  const names = Array.from({ length: tenants }, (_, i) => `h${String(i + 1).padStart(3, '0')}`);
  const results = await repeat((i) => hundredOnce(work, i + 1, names, n), { maxRuns: runs });
  const figures = [
    figure(
      `fleet of ${tenants}: wall ÷ slowest tenant's floor, N=${n} each, mixed tiers`,
      'ratio',
      results.map((r) => r.wallMs / r.floorMs),
      { op: '<=', value: 1.1 },
      `one process, apply --all-envs --env-parallelism ${tenants}; tenants cycle through ${FLEET_TIERS.join(', ')} ` +
        "(emulator window model); floor: the slowest tenant's, from its first request (whole process wall, start-up included)",
    ),
    info(
      'fleet of 100: wall',
      's',
      results.map((r) => r.wallMs / 1000),
    ),
    info(
      "fleet of 100: slowest tenant's floor",
      's',
      results.map((r) => r.floorMs / 1000),
    ),
    figure('fleet of 100: peak RSS', 'MB', pick(results, 'maxRssMB'), { op: '<', value: 500 }),
    figure('fleet of 100: 429 responses (all tenants)', 'count', pick(results, 'status429'), {
      op: '=',
      value: 0,
    }),
  ];
  const [ratio, wall, floor, rss, refused] = figures;
  log(
    `${ratio.name} ${ratio.value.toFixed(3)} (${wall.value.toFixed(2)} s over a floor of ${floor.value.toFixed(2)} s, ` +
      `${rss.value.toFixed(0)} MB, ${refused.value} × 429: ${results.map((r) => JSON.stringify(r.by429)).join(' ')})`,
  );
  return figures;
}
