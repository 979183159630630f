/**
 * docs/reviewing-policy-changes.md shows a pull-request comment: the output
 * of the plan command it names, run on docs/reviewing/. It must stay what
 * that command prints, and the page's explain output what explain prints.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const PAGE = readFileSync(join(ROOT, 'docs', 'reviewing-policy-changes.md'), 'utf8');

/** The text between the page's markers, without the blank lines around it. */
function region(name: string): string {
  const start = `<!-- ${name}:start -->\n`;
  const end = `<!-- ${name}:end -->`;
  const from = PAGE.indexOf(start);
  const to = PAGE.indexOf(end);
  expect(from, `marker ${name}`).toBeGreaterThan(0);
  return PAGE.slice(from + start.length, to).trim();
}

/** The command of the first sh block that starts with `npx tenantform <words>`, as argv. */
function command(words: string): string[] {
  const line = PAGE.split('\n').find((l) => l.startsWith(`npx tenantform ${words}`));
  expect(line, words).toBeDefined();
  return line!.split(' ').slice(2);
}

describe('docs/reviewing-policy-changes.md', () => {
  it('shows the pull-request comment its plan command prints', async () => {
    const args = command('plan docs/reviewing/config');
    expect(args).toContain('markdown');
    const run = await runCli(args, { cwd: ROOT });
    expect(run.code, run.stderr).toBe(0);
    expect(region('example-comment')).toBe(run.stdout.trim());
    expect(run.stdout).toContain('#### Review these (4)');
  });

  it('shows what explain prints for the clients it names', async () => {
    const run = await runCli(command('explain examples --env prod --client'), { cwd: ROOT });
    expect(run.code).toBe(0);
    const shown = PAGE.slice(
      PAGE.indexOf('```\nClient ') + 4,
      PAGE.indexOf('```', PAGE.indexOf('```\nClient ') + 4),
    );
    expect(shown).toBe(run.stdout);
  });

  it('lists every rule with its default severity and stage', async () => {
    const { RULES } = await import('../src/review/index.js');
    for (const rule of RULES) {
      expect(PAGE).toContain(`| \`${rule.code}\` | ${rule.severity} | ${rule.stage} |`);
    }
  });
});
