/**
 * Figures that read the tenant (API profile full): what a refresh costs in
 * requests (pages, not resources) and how long it takes. The emulator runs in
 * this process, seeded through its --data file; every refresh is a separate
 * process, `node bin/tenantform.js refresh ... --api full`, timed from spawn
 * to exit.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { figure, info, pick, repeat } from './figures.mjs';
import { policyAt } from './generate.mjs';
import { startEmulatorForBench } from './apply-scenarios.mjs';
import { runCliOk } from './measure.mjs';

/** The most items a list page holds (take), as the service allows. */
const TAKE = 100;

/**
 * An emulator data file holding `n` policies and the `n` applications their
 * selectors name (a refresh checks that each one exists, reading the
 * application list once).
 */
function dataFile(dir, n) {
  const at = '2026-01-01T00:00:00.000Z';
  const policies = Array.from({ length: n }, (_, i) => policyAt(i));
  const doc = {
    version: 1,
    rateLimitPolicies: policies.map((policy, i) => ({
      id: `rlp_bench${String(i).padStart(8, '0')}`,
      ...policy,
      created_at: at,
      updated_at: at,
    })),
    userPermissions: {},
    tokenExchangeProfiles: [],
    clients: policies.map((policy, i) => ({
      client_id: policy.consumer_selector.slice('client_id:'.length),
      name: `Bench app ${i}`,
      app_type: 'non_interactive',
      is_first_party: true,
    })),
  };
  const path = join(dir, `tenant-${n}.json`);
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

/** Runs the CLI against `emulator`; resolves with wall time and the requests the emulator saw. */
async function timed(emulator, args) {
  const before = emulator.requestCount();
  const result = await runCliOk([...args, '--api', 'full', '--base-url', emulator.baseUrl], {
    env: { TENANTFORM_TOKEN: emulator.token },
  });
  return { wallMs: result.wallMs, requests: emulator.requestCount() - before };
}

/**
 * A refresh of a tenant holding N policies, the state recording them all
 * (made by export), so that the refresh reads every page and finds no drift.
 */
async function refreshOf(work, n, runs) {
  const dir = join(work, `refresh-${n}`);
  mkdirSync(dir, { recursive: true });
  const emulator = await startEmulatorForBench({ api: 'full', dataFile: dataFile(dir, n) });
  try {
    const config = join(dir, 'tenant');
    await timed(emulator, ['export', config]);
    return await repeat(() => timed(emulator, ['refresh', config]), { maxRuns: runs });
  } finally {
    await emulator.stop();
  }
}

export async function refreshFigures(work, log) {
  const big = await refreshOf(work, 10_000, 1);
  // Each list read once: the policies and the applications they name in pages of TAKE, the profiles in one.
  const bound = 2 * Math.ceil(10_000 / TAKE) + 1;
  const small = await refreshOf(work, 1_000, 5);
  const figures = [
    figure(
      'refresh of 10,000 policies: requests',
      'count',
      pick(big, 'requests'),
      { op: '<=', value: bound },
      `2 × ceil(10000/${TAKE}) + 1: the policy list and the application list (the selectors' reference check) in pages of ${TAKE}, plus the profile list`,
    ),
    info(
      'refresh of 10,000 policies: wall',
      's',
      pick(big, 'wallMs').map((ms) => ms / 1000),
    ),
    figure(
      'refresh of 1,000 policies: wall',
      's',
      pick(small, 'wallMs').map((ms) => ms / 1000),
      { op: '<', value: 2 },
      'whole process: start, read 21 pages (policies and applications), compare with the state, write nothing (no drift)',
    ),
    info('refresh of 1,000 policies: requests', 'count', pick(small, 'requests')),
  ];
  log(
    `${figures[0].name} ${figures[0].value} (≤ ${bound}); ${figures[2].name} ${figures[2].value.toFixed(2)} s`,
  );
  return figures;
}
