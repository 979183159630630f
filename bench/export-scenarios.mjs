/**
 * `tenantform export DIR --from-terraform STATE` of a large Terraform state
 * (12,000 and 60,000 rate limit policies): wall time and peak RSS of the
 * whole process, files written and the state recorded. Linear in the
 * resources (issue 35: 12,000 took 50 s and 60,000 about 5 minutes and
 * 1.5 GB while the output was laid out as one document).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { figure, pick, repeat } from './figures.mjs';
import { runCliOk } from './measure.mjs';

const TARGETS = {
  12000: { wall: { op: '<', value: 8 }, rss: { op: '<', value: 400 } },
  60000: { wall: { op: '<', value: 30 }, rss: { op: '<', value: 1000 } },
};

/** A Terraform state (format 4) of `n` auth0_rate_limit_policy resources, one instance each. */
export function terraformState(n) {
  const resources = Array.from({ length: n }, (_, i) => ({
    mode: 'managed',
    type: 'auth0_rate_limit_policy',
    name: `p${i}`,
    provider: 'provider["registry.terraform.io/auth0/auth0"]',
    instances: [
      {
        schema_version: 0,
        attributes: {
          configuration: [{ action: 'block', limit: 100 + (i % 1000), redirect_uri: '' }],
          consumer: 'client',
          consumer_selector: `client_id:c${String(i).padStart(31, '0')}`,
          id: `rlp_${String(i).padStart(21, '0')}`,
          resource: 'oauth_authentication_api',
        },
        sensitive_attributes: [],
      },
    ],
  }));
  return { version: 4, terraform_version: '1.9.8', serial: 1, lineage: 'bench', outputs: {}, resources };
}

/** export --from-terraform of 12k and 60k policies into a fresh directory each run. */
export async function exportFigures(work, log) {
  mkdirSync(work, { recursive: true });
  const out = [];
  let run = 0;
  for (const size of [12000, 60000]) {
    const state = join(work, `terraform-${size}.tfstate`);
    writeFileSync(state, JSON.stringify(terraformState(size)));
    const runs = await repeat(
      () => runCliOk(['export', join(work, `out-${size}-${++run}`), '--from-terraform', state]),
      { maxRuns: size === 60000 ? 1 : 3, budgetMs: 20_000 },
    );
    const label = `${size / 1000}k`;
    const wall = figure(
      `export --from-terraform ${label}: wall`,
      's',
      pick(runs, 'wallMs').map((ms) => ms / 1000),
      TARGETS[size].wall,
      size === 12000
        ? 'rate limit policies; config files written (split under 4 MiB each) and the state recorded'
        : '',
    );
    const rss = figure(
      `export --from-terraform ${label}: peak RSS`,
      'MB',
      pick(runs, 'maxRssMB'),
      TARGETS[size].rss,
    );
    log(`${wall.name} ${wall.value.toFixed(2)} s, ${rss.value.toFixed(0)} MB`);
    out.push(wall, rss);
  }
  return out;
}
