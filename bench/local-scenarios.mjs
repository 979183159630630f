/**
 * Figures that need no API: validate + plan of generated configs (wall time
 * and peak RSS of the whole process), and start-up (--version, validate of a
 * small config).
 */
import { join } from 'node:path';
import { figure, info, pick, repeat } from './figures.mjs';
import { buildState, generateResources, writeFixture } from './generate.mjs';
import { rssMethod, runCliOk, runNode } from './measure.mjs';

/** Issue 39's targets (a quiet machine's medians). */
const PLAN_TARGETS = {
  1000: { wall: null, rss: null },
  10000: { wall: { op: '<=', value: 0.25 }, rss: null },
  100000: { wall: { op: '<=', value: 1.0 }, rss: { op: '<=', value: 300 } },
};

/** Writes a config of `size` resources and a state half in sync (plus 2% stale) into `work`. */
export function planFixture(work, size) {
  const dir = join(work, `plan-${size}`);
  const statePath = join(work, `plan-${size}.state.json`);
  const resources = generateResources(size);
  writeFixture(dir, resources, statePath, buildState(resources, { inSync: 0.5, stale: size / 50 }));
  return { dir, statePath };
}

/** `tenantform plan DIR --state S` for 1k, 10k and 100k resources. */
export async function planFigures(work, log) {
  const out = [];
  for (const size of [1000, 10000, 100000]) {
    const { dir, statePath } = planFixture(work, size);
    const label = `${size / 1000}k`;
    // The 100k run is slow when something regresses: give it a budget rather than a fixed count.
    const runs = await repeat(() => runCliOk(['plan', dir, '--state', statePath]), {
      maxRuns: size === 100000 ? 3 : 5,
      budgetMs: size === 100000 ? 15_000 : 6_000,
    });
    const targets = PLAN_TARGETS[size];
    const wall = figure(
      `plan ${label}: wall`,
      's',
      pick(runs, 'wallMs').map((ms) => ms / 1000),
      targets.wall,
      size === 1000
        ? '20% policies, 10% profiles, 70% permissions; state: half in sync, 1 in 10 policies changed, stale policies = 2% of N; text output discarded'
        : '',
    );
    const rss = figure(
      `plan ${label}: peak RSS`,
      'MB',
      pick(runs, 'maxRssMB'),
      targets.rss,
      size === 1000 ? `peak RSS via ${rssMethod}` : '',
    );
    log(`${wall.name} ${wall.value.toFixed(2)} s, ${rss.value.toFixed(0)} MB`);
    out.push(wall, rss);
  }
  return out;
}

/** `tenantform --version` and `tenantform validate` of a 10-resource config. */
export async function startupFigures(work, log) {
  const dir = join(work, 'startup');
  writeFixture(dir, generateResources(10));
  const bare = await repeat(() => runNode(['-e', '0']), { maxRuns: 7 });
  const version = await repeat(() => runCliOk(['--version']), { maxRuns: 7 });
  const validate = await repeat(() => runCliOk(['validate', dir]), { maxRuns: 7 });
  const figures = [
    info('start-up: node -e 0 (baseline)', 'ms', pick(bare, 'wallMs')),
    figure('start-up: --version', 'ms', pick(version, 'wallMs'), { op: '<', value: 150 }),
    figure('start-up: validate (10 resources)', 'ms', pick(validate, 'wallMs'), { op: '<', value: 300 }),
  ];
  for (const f of figures) log(`${f.name} ${f.value.toFixed(0)} ms`);
  return figures;
}
