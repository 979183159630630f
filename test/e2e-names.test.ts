/**
 * A review that names what it touches, end to end against the emulator (API
 * profile full): plan --refresh reads the tenant's applications, Actions and
 * APIs, and its text, Markdown (the pull-request comment) and JSON show each
 * one's name beside its id; a limit change says what it allows.
 */
import { describe, expect, it } from 'vitest';
import { useEmulatorWorkspace } from './helpers/e2e.js';
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

  it('an offline plan names nothing it has not read', async () => {
    const plan = await ws.cli('plan', 'config', ...api());
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('Mobile app');
  });
});
