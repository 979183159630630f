/**
 * Issue 35, correctness: what a hostile new user met, each said in one clear
 * line naming where and what, with nothing of a file's content echoed and
 * nothing sent.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cutEchoes } from '../src/cli/errors.js';
import { StopRequest } from '../src/cli/io.js';
import { main } from '../src/cli/main.js';
import { runCli, tempDir } from './helpers/cli.js';

const POLICY = `rate_limit_policies:
  - resource: oauth_authentication_api
    consumer: client
    consumer_selector: default
    configuration: { action: block, limit: 100 }
`;

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'cfg'));
  writeFileSync(join(dir, 'cfg', 'policies.yaml'), POLICY);
});

afterEach(() => cleanup());

const cli = (...args: string[]) => runCli(args, { cwd: dir });

describe('saved plans', () => {
  it('shows a saved plan an editor gave a UTF-8 byte order mark (item 24)', async () => {
    const saved = await cli('plan', 'cfg', '--out', 'p.tfplan');
    expect(saved.code, saved.stderr).toBe(0);
    writeFileSync(join(dir, 'p.tfplan'), '\uFEFF' + readFileSync(join(dir, 'p.tfplan'), 'utf8'));
    const shown = await cli('show', 'p.tfplan');
    expect(shown.stderr).not.toMatch(/Error|not a tenantform plan/);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Plan: 1 to create');
  });

  it('refuses a .tfplan file that is not JSON as not a saved plan, exit 4, in one line (docs/plans.md)', async () => {
    writeFileSync(join(dir, 'h.tfplan'), 'build-host-7\n');
    const applied = await cli('apply', 'h.tfplan', '--auto-approve');
    expect(applied.code).toBe(4);
    expect(applied.stderr).toBe(
      "Error: h.tfplan is not a tenantform plan: it is not valid JSON (unexpected character 'b' at line 1 column 1)\n",
    );
  });

  it('says a missing plan file does not exist (item 25)', async () => {
    const shown = await cli('show', 'MISSING.tfplan');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toBe(
      'Error: MISSING.tfplan does not exist: show takes a plan file saved by plan --out, or a config path locating the state\n',
    );
  });
});

describe('error messages (item 22)', () => {
  it('never print a non-JSON state file, nor offer a backup that does not exist', async () => {
    writeFileSync(join(dir, 'state.json'), 'password=hunter2\nroot:x:0:0:root:/root:/bin/bash\n');
    const planned = await cli('plan', 'cfg', '--state', 'state.json');
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain("is not valid JSON (unexpected character 'p' at line 1 column 1)");
    expect(planned.stderr).not.toMatch(/password|hunter|root:x/);
    expect(planned.stderr).not.toContain('.backup');
    expect(planned.stderr).toContain('there is no backup beside it');
    expect(planned.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('offer the backup when there is one', async () => {
    writeFileSync(join(dir, 'state.json'), '{"format_version": 2,');
    writeFileSync(join(dir, 'state.json.backup'), '{}');
    const planned = await cli('plan', 'cfg', '--state', 'state.json');
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('restore the previous version from');
  });

  it('cut a long echoed value to a readable length', async () => {
    const long = 'a'.repeat(5000);
    const result = await cli('validate', join('cfg', long));
    expect(result.code).not.toBe(0);
    expect(result.stderr.length).toBeLessThan(600);
    expect(result.stderr).toContain('(5005 characters)');
    expect(cutEchoes(`x ${'b'.repeat(200)} y`)).toBe(`x ${'b'.repeat(200)} y`);
    expect(cutEchoes(`id ${'c'.repeat(100_000)}.`)).toBe(
      `id ${'c'.repeat(120)}…(100001 characters)…${'c'.repeat(39)}.`,
    );
    expect(existsSync(join(dir, 'cfg', long))).toBe(false);
  });
});

describe('plan --all-envs (item 17)', () => {
  const examples = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');

  it("says an environment's target is not set when neither tenantform.yaml nor a variable sets it", async () => {
    cpSync(examples, join(dir, 'ex'), { recursive: true });
    const planned = await cli('plan', 'ex', '--all-envs');
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toContain('(from the environment variables)');
    expect(planned.stdout.match(/not set/g)?.length).toBeGreaterThanOrEqual(2);
    const fromEnv = await runCli(['plan', 'ex', '--all-envs'], {
      cwd: dir,
      env: { TENANTFORM_BASE_URL: 'http://127.0.0.1:9/api/v2' },
    });
    expect(fromEnv.stdout).toContain('http://127.0.0.1:9/api/v2 (from the environment variables)');
  });
});

describe('emulator flags (items 18, 19)', () => {
  it.each([
    [
      ['--rate-limit', '99999999999999999999'],
      'Error: --rate-limit must be a positive number at most 1000000',
    ],
    [['--rate-limit', '2000000'], 'Error: --rate-limit must be a positive number at most 1000000'],
    [['--burst', '2000000', '--rate-limit', '5'], 'Error: --burst must be a whole number from 1 to 1000000'],
  ])('emulator %j is refused, naming the flag at fault', async (args, message) => {
    const run = await cli('emulator', ...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it.each([
    ['/proc/tenantform-x.json', process.platform === 'linux'],
    ['/sys/tenantform-x.json', process.platform === 'linux'],
  ])('emulator --data %s, a file it cannot write, is refused at start', async (path, applies) => {
    if (!applies) return;
    const run = await cli('emulator', '--data', path);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: cannot write data file \/(proc|sys)\/tenantform-x\.json: [^\n]+\n$/);
    expect(run.stdout).not.toContain('listening');
  });
});

describe('flags checked in every command, whether or not the run uses them (item 12)', () => {
  it.each([
    [['--max-rate', 'abc'], '--max-rate must be a percentage'],
    [['--max-rate', '-5%'], '--max-rate must be a percentage'],
    [['--rate-limit-timeout', '-1s'], '--rate-limit-timeout must be a duration'],
    [['--max-rps', '0'], '--max-rps must be a positive number'],
    [['--env-parallelism', '0'], '--env-parallelism must be a whole number from 1 to 256'],
  ])('plan %j without --refresh is refused', async (args, message) => {
    const run = await cli('plan', 'cfg', ...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Error: ${message}`);
    expect(run.stdout).toBe('');
  });

  it.each([
    ['validate', ['cfg', '--max-rate', '0%']],
    ['explain', ['cfg', '--max-rps', 'fast']],
    ['export', ['out', '--from-terraform', 'x.tfstate', '--parallelism', '9999']],
    ['state', ['rm', 'x', 'cfg', '--lock-timeout', 'soon']],
  ])('%s %j is refused before it runs', async (command, args) => {
    const run = await cli(command, ...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: --[a-z-]+ must be /);
  });

  it('shows a share of 0.01 % as such in the pacing reason', async () => {
    const { describeWait } = await import('../src/api/client.js');
    expect(describeWait({ kind: 'max-rate', share: 0.0001 })).toBe("0.01% of the tenant's sustained rate");
    expect(describeWait({ kind: 'max-rate', share: 0.3 })).toBe("30% of the tenant's sustained rate");
  });
});

describe('export into a directory that holds config (item 8)', () => {
  const tfstate = join(
    dirname(fileURLToPath(import.meta.url)),
    'fixtures',
    'peers',
    'terraform',
    'terraform.tfstate',
  );

  it('refuses, naming the config found, and writes nothing; --force writes anyway', async () => {
    const run = await cli('export', 'cfg', '--from-terraform', tfstate, '--no-state');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: cfg: it holds config (cfg/policies.yaml) that the exported files would join; nothing was written. ' +
        'Export into an empty directory, or pass --force to write anyway\n',
    );
    expect(existsSync(join(dir, 'cfg', 'rate-limit-policies.yaml'))).toBe(false);
    const forced = await cli('export', 'cfg', '--from-terraform', tfstate, '--no-state', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(join(dir, 'cfg', 'rate-limit-policies.yaml'))).toBe(true);
  });

  it('exports into a directory that holds no config', async () => {
    mkdirSync(join(dir, 'empty', 'notes'), { recursive: true });
    writeFileSync(join(dir, 'empty', 'notes', 'README.md'), '# notes\n');
    const run = await cli('export', 'empty', '--from-terraform', tfstate, '--no-state');
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('fmt formats tenantform config only (item 7)', () => {
  const COMPOSE = 'services: { web: { image: "nginx:1" } }\nversion: "3"\n';
  const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\ndata: { a: "1" }\n';

  it('leaves docker-compose.yml and a Kubernetes manifest beside the config alone, and says so', async () => {
    writeFileSync(join(dir, 'docker-compose.yml'), COMPOSE);
    mkdirSync(join(dir, 'k8s'));
    writeFileSync(join(dir, 'k8s', 'cm.yaml'), CONFIGMAP);
    writeFileSync(join(dir, 'cfg', 'empty.yaml'), '# nothing yet\n');
    const checked = await cli('fmt', '--check');
    expect(checked.code).toBe(3);
    expect(checked.stdout).toBe(`${join('cfg', 'policies.yaml')}\n`);
    const run = await cli('fmt');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${join('cfg', 'policies.yaml')}\n`);
    expect(run.stderr).toBe(
      'Skipped 2 YAML files that are not tenantform config (no rate_limit_policies, user_permissions, ' +
        `token_exchange_profiles at the top level): docker-compose.yml, ${join('k8s', 'cm.yaml')}\n`,
    );
    expect(readFileSync(join(dir, 'docker-compose.yml'), 'utf8')).toBe(COMPOSE);
    expect(readFileSync(join(dir, 'k8s', 'cm.yaml'), 'utf8')).toBe(CONFIGMAP);
    expect(readFileSync(join(dir, 'cfg', 'policies.yaml'), 'utf8')).toContain(
      '    configuration:\n      action: block',
    );
  });

  it('formats a config file with a mistyped key beside a known one, and reads a broken one by its keys', async () => {
    writeFileSync(join(dir, 'cfg', 'typo.yaml'), 'user_permisions: []\nrate_limit_policies: []\n');
    writeFileSync(join(dir, 'cfg', 'broken.yaml'), 'rate_limit_policies:\n  - { resource: [\n');
    const run = await cli('fmt', 'cfg');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join('cfg', 'broken.yaml'));
    expect(run.stderr).not.toContain('Skipped');
  });
});

describe('what is not a regular file, and the first Ctrl+C (item 13)', () => {
  const fifo = () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    return path;
  };

  it.each([
    ['plan --state FIFO', () => ['plan', 'cfg', '--state', fifo()], '--state'],
    [
      'apply --token-file FIFO',
      () => ['apply', 'cfg', '--auto-approve', '--token-file', fifo()],
      '--token-file',
    ],
    ['validate --var-file FIFO', () => ['validate', 'cfg', '--var-file', fifo()], '--var-file'],
  ])('%s is refused before anything opens it', async (_name, args, flag) => {
    const run = await cli(...args());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^Error: ${flag} \\S*pipe is a FIFO \\(named pipe\\), not a regular file; nothing was read\\n$`,
      ),
    );
  });

  it('refuses plan --state /dev/full, a device', async () => {
    if (!existsSync('/dev/full')) return;
    const run = await cli('plan', 'cfg', '--state', '/dev/full');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: --state /dev/full is a device, not a regular file; nothing was read\n');
  });

  it('reads no FIFO given as a config file', async () => {
    const run = await cli('validate', fifo());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pipe: not a file or directory');
  });

  it('stops a search below / instead of walking the whole file system', async () => {
    const run = await cli('validate', '/');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '/: more than 20000 directories below it, so it is not a config directory; give the directory that holds the config files',
    );
  }, 120_000);

  it('ends validate as interrupted (130) when Ctrl+C came while it ran', async () => {
    const controller = new AbortController();
    controller.abort(new StopRequest('signal', 'interrupted'));
    let stderr = '';
    let stdout = '';
    const code = await main(['node', 'tenantform', 'validate', 'cfg'], {
      stdout: { write: (s: string) => (stdout += s), isTTY: false },
      stderr: { write: (s: string) => (stderr += s), isTTY: false },
      env: {},
      cwd: dir,
      signal: controller.signal,
    });
    expect(code).toBe(130);
    expect(stderr).toBe('Interrupted.\n');
    expect(stdout).toBe('');
  });
});
