/**
 * The guardrail fixtures (test/fixtures/guardrails, README there): every
 * file says what the rules must find, and every rule has a file that
 * triggers it and one where it stays silent. Config rules through
 * `tenantform validate`; plan rules through `tenantform plan` against a
 * state made by applying `before.yaml` to the emulator.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validatePrinted as runValidate } from './helpers/validate.js';
import type { CommandIO } from '../src/cli/io.js';
import type { ConfigIssue } from '../src/config/index.js';
import { startEmulator, type EmulatorHandle } from '../src/emulator/index.js';
import { RULES } from '../src/review/index.js';
import { runCli, tempDir } from './helpers/cli.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'guardrails');
const CONFIG = join(ROOT, 'config');
const PLAN = join(ROOT, 'plan');
const REDIRECT_HOSTS = ['*.acme.example'];

/** The "# finds:" lines of a file: "LINE:COL RULE" each, or [] for "nothing". */
function expected(file: string): string[] {
  const out: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^# finds: (.+)$/.exec(line);
    if (!match) break;
    if (match[1] !== 'nothing') out.push(match[1]!);
  }
  return out;
}

const found = (issues: readonly ConfigIssue[]): string[] => issues.map((i) => `${i.line}:${i.col} ${i.code}`);
const configFiles = readdirSync(CONFIG)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const planCases = readdirSync(PLAN).sort();
const triggered = new Set<string>();
const silent = new Set<string>();

/** Records which rules of `stage` a fixture triggers, and which stay silent on it. */
function note(want: readonly string[], stage: 'config' | 'plan'): void {
  const rules = new Set(want.map((w) => w.split(' ')[1]!));
  for (const rule of RULES.filter((r) => r.stage === stage).map((r) => r.code)) {
    (rules.has(rule) ? triggered : silent).add(rule);
  }
}

describe('guardrail fixtures of stage config (validate)', () => {
  it.each(configFiles)('%s', async (file) => {
    let stdout = '';
    const io: CommandIO = {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: () => true },
      env: {},
      cwd: CONFIG,
    };
    const settings = {
      rules: {},
      ...(file.startsWith('redirect-host') ? { redirectHosts: REDIRECT_HOSTS } : {}),
    };
    await runValidate(
      file,
      { vars: { ok: true, vars: {} }, varFiles: [], format: 'json', guardrails: settings },
      io,
    );
    const body = JSON.parse(stdout) as { errors: ConfigIssue[]; warnings: ConfigIssue[] };
    expect(readFileSync(join(CONFIG, file), 'utf8')).toMatch(/^# finds: /);
    const want = expected(join(CONFIG, file));
    expect([...found(body.errors), ...found(body.warnings)].sort()).toEqual([...want].sort());
    note(want, 'config');
  });
});

describe('guardrail fixtures of stage plan (plan against a state)', () => {
  // A tenant of its own per case: a policy another case created would be adopted (409), without an id.
  let emulator: EmulatorHandle;
  let dir: string;
  let cleanup: () => void;
  beforeEach(async () => {
    emulator = await startEmulator();
    ({ dir, cleanup } = tempDir());
  });
  afterEach(async () => {
    await emulator.stop();
    cleanup();
  });

  it.each(planCases)('%s', async (name) => {
    const work = join(dir, name);
    for (const side of ['before', 'after']) {
      mkdirSync(join(work, side), { recursive: true });
      copyFileSync(join(PLAN, name, `${side}.yaml`), join(work, side, 'p.yaml'));
    }
    const env = { TENANTFORM_TOKEN: emulator.token };
    const state = ['--state', 'state.json'];
    const applied = await runCli(
      ['apply', 'before', ...state, '--auto-approve', '--base-url', emulator.baseUrl],
      { cwd: work, env },
    );
    expect(applied.code, applied.stderr).toBe(0);
    const plan = await runCli(['plan', 'after', ...state, '--format', 'json'], { cwd: work, env });
    expect(plan.code, plan.stderr).toBe(0);
    const findings = (
      JSON.parse(plan.stdout) as { findings: { rule: string; source: { line: number; col: number } }[] }
    ).findings;
    const want = expected(join(PLAN, name, 'after.yaml'));
    expect(findings.map((f) => `${f.source.line}:${f.source.col} ${f.rule}`).sort()).toEqual(
      [...want].sort(),
    );
    note(want, 'plan');
  });
});

describe('guardrail fixtures', () => {
  it('give every rule a file that triggers it and one where it stays silent', () => {
    const rules = RULES.map((r) => r.code);
    expect(rules.filter((r) => !triggered.has(r))).toEqual([]);
    expect(rules.filter((r) => !silent.has(r))).toEqual([]);
  });
});
