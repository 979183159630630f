/**
 * What a multi-environment run prints: each environment's plan as a section
 * (text, Markdown for one pull-request comment, or JSON), and a closing table
 * per environment with target, result, changes, requests, 429s and time.
 */
import type { EnvironmentStatus, RunFigures } from '../run/index.js';
import { writeChunks, type CommandIO } from './io.js';

/** One environment's run, as the fleet ran it (src/run/fleet.ts) and its output kept. */
export interface EnvRun {
  name: string;
  /** ok: planned without changes, or applied completely; changes: planned with changes; failed. */
  status: EnvironmentStatus;
  figures: RunFigures;
  /** Its target, worded. */
  target: string;
  ms: number;
  /** Its stdout (plan: the whole rendering), and its stderr. */
  output: string;
  errors: string;
}

/** GitHub refuses comments over 65,536 characters; leave room for the header and table. */
const MARKDOWN_BUDGET = 60_000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function planResult(r: EnvRun): string {
  if (r.status === 'ok') return 'no changes';
  if (r.status === 'changes') return `${r.figures.changes ?? '?'} to change`;
  return 'failed';
}

function applyResult(r: EnvRun): string {
  if (r.status === 'ok') return (r.figures.changes ?? 0) === 0 ? 'no changes' : 'applied';
  return (r.figures.done ?? 0) > 0 ? 'incomplete' : 'failed';
}

/** Left-aligned columns, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

function summary(runs: readonly EnvRun[], what: string): string {
  const failed = runs.filter((r) => r.status === 'failed').length;
  return `${runs.length} environment${runs.length === 1 ? '' : 's'} ${what}${failed > 0 ? `, ${failed} failed` : ''}.\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Cuts a section to `max` characters at a line end, saying so. */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  return `${text.slice(0, cut > 0 ? cut : max)}\n\n… (this environment's plan is cut short to fit one comment; the job log has all of it)\n`;
}

function markdown(runs: readonly EnvRun[]): string {
  const head = [
    `## tenantform plan: ${runs.length} environments`,
    '',
    '| Environment | Target | Result |',
    '|---|---|---|',
    ...runs.map((r) => `| \`${r.name}\` | ${cell(r.target)} | ${planResult(r)} |`),
    '',
  ].join('\n');
  const bodies = runs.map((r) =>
    r.status !== 'failed' ? r.output : `**Failed:**\n\n\`\`\`\n${r.errors.trim()}\n\`\`\`\n`,
  );
  const total = bodies.reduce((n, b) => n + b.length, head.length);
  const share = Math.floor((MARKDOWN_BUDGET - head.length) / runs.length);
  const sections = runs.map(
    (r, i) =>
      `\n## Environment \`${r.name}\`\n\n${total > MARKDOWN_BUDGET ? capped(bodies[i]!, share) : bodies[i]}`,
  );
  return head + sections.join('');
}

function json(runs: readonly EnvRun[]): string {
  const environments = runs.map((r) => {
    let plan: unknown = null;
    if (r.status !== 'failed') plan = JSON.parse(r.output) as unknown;
    return {
      environment: r.name,
      target: r.target,
      state: r.figures.state ?? null,
      result: r.status === 'ok' ? 'no-changes' : r.status,
      changes: r.figures.changes ?? null,
      plan,
      errors: r.errors === '' ? null : r.errors,
    };
  });
  return JSON.stringify({ environments }) + '\n';
}

/** Prints the collected plans in environment order, then the closing table (text only). */
export function printPlans(
  runs: readonly EnvRun[],
  format: 'text' | 'json' | 'markdown' | 'terraform-json',
  io: CommandIO,
): void {
  // Each environment's plan is one JSON document: the run's is the list of them.
  if (format === 'json' || format === 'terraform-json') {
    io.stdout.write(json(runs));
    return;
  }
  if (format === 'markdown') {
    io.stdout.write(markdown(runs));
    return;
  }
  writeChunks(
    io.stdout,
    (function* () {
      for (const r of runs) {
        yield `\n== Environment ${r.name} ==\n`;
        yield r.status !== 'failed' ? r.output : 'Failed: the error is above (stderr).\n';
      }
    })(),
  );
  const rows = runs.map((r) => [r.name, r.target, r.figures.state ?? '-', planResult(r), seconds(r.ms)]);
  io.stdout.write('\n' + table(['Environment', 'Target', 'State', 'Result', 'Time'], rows));
  io.stdout.write(summary(runs, 'planned'));
}

/** Requests answered 429, as the apply summary counts them: "0", "3, all retried", "3, 2 retried". */
export function rate429Cell(answered: number, retried: number): string {
  if (answered === 0) return '0';
  return `${answered}, ${retried === answered ? 'all' : retried} retried`;
}

/** The closing table of a multi-environment apply. */
export function printApplyTable(runs: readonly EnvRun[], io: CommandIO): void {
  const rows = runs.map((r) => {
    const f = r.figures;
    return [
      r.name,
      r.target,
      applyResult(r),
      `${f.done ?? 0}/${f.changes ?? 0}`,
      String(f.requests ?? 0),
      rate429Cell(f.status429 ?? 0, f.retried429 ?? 0),
      seconds(r.ms),
    ];
  });
  io.stdout.write(
    '\n' + table(['Environment', 'Target', 'Result', 'Changes done', 'Requests', '429s', 'Time'], rows),
  );
  io.stdout.write(summary(runs, 'applied'));
}
