import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const MESSY = `# policies
rate_limit_policies:
- consumer: client   # who
  resource: oauth_authentication_api
  consumer_selector: "default"
  configuration: {limit: 100, action: block}
`;

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'config'));
});
afterEach(() => cleanup());

describe('tenantform fmt', () => {
  it('--check exits 3 and changes nothing; without it the file is rewritten; then --check passes', async () => {
    const file = join(dir, 'config', 'p.yaml');
    writeFileSync(file, MESSY);
    const check = await runCli(['fmt', 'config', '--check', '--diff'], { cwd: dir });
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('config/p.yaml\n');
    expect(check.stdout).toContain('-- consumer: client   # who');
    expect(check.stdout).toContain('+  - resource: oauth_authentication_api');
    expect(check.stderr).toContain('1 file is not formatted');
    expect(readFileSync(file, 'utf8')).toBe(MESSY);

    const fmt = await runCli(['fmt', 'config'], { cwd: dir });
    expect(fmt.code).toBe(0);
    expect(fmt.stdout).toBe('config/p.yaml\n');
    const formatted = readFileSync(file, 'utf8');
    expect(formatted).toBe(
      '# policies\nrate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client # who\n' +
        '    consumer_selector: default\n    configuration:\n      action: block\n      limit: 100\n',
    );
    const again = await runCli(['fmt', 'config', '--check'], { cwd: dir });
    expect(again).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('writes nothing and exits 1 when a file does not parse', async () => {
    writeFileSync(join(dir, 'config', 'a.yaml'), MESSY);
    writeFileSync(join(dir, 'config', 'b.yaml'), 'rate_limit_policies: [unclosed\n');
    const run = await runCli(['fmt', 'config'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^config\/b\.yaml:\d+:\d+: /m);
    expect(readFileSync(join(dir, 'config', 'a.yaml'), 'utf8')).toBe(MESSY);
  });

  it('init writes formatted files, and its workflow checks the layout', async () => {
    const init = await runCli(['init', 'repo'], { cwd: dir });
    expect(init.code).toBe(0);
    const check = await runCli(['fmt', 'repo', '--check'], { cwd: dir });
    expect(check).toMatchObject({ code: 0, stdout: '' });
    const workflow = readFileSync(join(dir, 'repo', '.github', 'workflows', 'tenantform.yml'), 'utf8');
    expect(workflow).toMatch(/run: .*tenantform fmt .*--check/);
  });
});

describe('tenantform show', () => {
  let emulator: EmulatorHandle;
  beforeEach(async () => {
    emulator = await startEmulator();
    writeFileSync(
      join(dir, 'config', 'p.yaml'),
      'rate_limit_policies:\n  - resource: oauth_authentication_api\n    consumer: client\n    consumer_selector: default\n' +
        '    configuration: { action: block, limit: 100 }\n' +
        'token_exchange_profiles:\n  - name: Partner SSO\n    subject_token_type: urn:partner:token\n' +
        '    action_id: 6a7d8b1c-0d3e-4f5a-8b9c-0d1e2f3a4b5c\n    type: custom_authentication\n',
    );
  });
  afterEach(async () => emulator.stop());
  const env = () => ({ TENANTFORM_TOKEN: emulator.token });

  it('prints a saved plan exactly as plan printed it, in every format', async () => {
    for (const format of ['text', 'markdown', 'json', 'terraform-json']) {
      const plan = await runCli(['plan', 'config', '--format', format, '--out', 'p.tfplan'], { cwd: dir });
      expect(plan.code).toBe(0);
      const show = await runCli(['show', 'p.tfplan', '--format', format], { cwd: dir });
      expect(show.code).toBe(0);
      const printed = plan.stdout.replace(/\nSaved the plan to [^\n]*\n$/, '');
      expect(show.stdout, format).toBe(printed);
    }
  });

  it('says the state and the target a saved plan was made for, on stderr as plan does', async () => {
    await runCli(['plan', 'config', '--out', 'p.tfplan', '--base-url', 'http://127.0.0.1:4000'], {
      cwd: dir,
    });
    const recorded = JSON.parse(readFileSync(join(dir, 'p.tfplan'), 'utf8')) as {
      state_location: { path: string };
    };
    for (const format of ['text', 'json']) {
      const show = await runCli(['show', 'p.tfplan', '--format', format], { cwd: dir });
      expect(show.code).toBe(0);
      expect(show.stderr).toBe(
        `State:  ${recorded.state_location.path}\nTarget: http://127.0.0.1:4000/api/v2\n\n`,
      );
    }
  });

  it('--format terraform-json shows a saved plan in Terraform’s JSON plan shape, and only a plan', async () => {
    await runCli(['plan', 'config', '--out', 'p.tfplan'], { cwd: dir });
    const show = await runCli(['show', 'p.tfplan', '--format', 'terraform-json'], { cwd: dir });
    expect(show.code).toBe(0);
    const doc = JSON.parse(show.stdout) as {
      format_version: string;
      resource_changes: { type: string; change: { actions: string[] } }[];
    };
    expect(doc.format_version).toBe('1.2');
    expect(doc.resource_changes.map((rc) => [rc.type, rc.change.actions])).toEqual([
      ['auth0_rate_limit_policy', ['create']],
      ['auth0_token_exchange_profile', ['create']],
    ]);
    const state = await runCli(['show', 'config', '--format', 'terraform-json'], { cwd: dir });
    expect(state.code).toBe(1);
    expect(state.stderr).toContain('--format terraform-json shows a plan file saved by plan --out');
  });

  it('refuses a plan file of an unknown format version, as apply does', async () => {
    await runCli(['plan', 'config', '--out', 'p.tfplan'], { cwd: dir });
    const file = join(dir, 'p.tfplan');
    const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...data, format_version: 99 }));
    const show = await runCli(['show', 'p.tfplan'], { cwd: dir });
    expect(show.code).toBe(4);
    expect(show.stderr).toContain('plan format version 99');
  });

  it('prints the state with ids and attributes when given no plan file', async () => {
    const empty = await runCli(['show', 'config'], { cwd: dir });
    expect(empty).toMatchObject({ code: 0, stdout: 'No resources recorded.\n' });
    const apply = await runCli(['apply', 'config', '--auto-approve', '--base-url', emulator.baseUrl], {
      cwd: dir,
      env: env(),
    });
    expect(apply.code).toBe(0);
    const show = await runCli(['show', 'config'], { cwd: dir });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /rate_limit_policy\["oauth_authentication_api","client","default"\] {2}\(id rlp_\w+/,
    );
    expect(show.stdout).toContain('limit: 100');
    expect(show.stdout).toMatch(/token_exchange_profile\["urn:partner:token"\] {2}\(id tep_/);
    expect(show.stdout).toContain('State serial');
    const json = await runCli(['show', 'config', '--format', 'json'], { cwd: dir });
    const doc = JSON.parse(json.stdout) as { resources: { address: string }[] };
    expect(doc.resources.map((r) => r.address)).toHaveLength(2);
    const md = await runCli(['show', 'config', '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toContain('| Kind | Address | Recorded | Attributes |');
  });
});
