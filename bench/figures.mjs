/**
 * A figure: one measured number with its target. `runs` holds every run's
 * value; `value` is their median. Targets are { op: '<' | '<=' | '=', value }.
 */
import { median } from './measure.mjs';

export function figure(name, unit, runs, target, note = '') {
  const value = runs.length > 0 ? median(runs) : null;
  return { name, unit, value, runs, runCount: runs.length, target, pass: meets(value, target), note };
}

/** A figure whose target does not apply (context, e.g. a second denominator). */
export function info(name, unit, runs, note = '') {
  return figure(name, unit, runs, null, note);
}

function meets(value, target) {
  if (!target) return null;
  if (value === null) return false;
  if (target.op === '<') return value < target.value;
  if (target.op === '<=') return value <= target.value;
  if (target.op === '>=') return value >= target.value;
  return value === target.value;
}

/**
 * Runs `once` (async, returning a number or an object of numbers) up to
 * `maxRuns` times, at least once, stopping early once `budgetMs` is spent.
 * Returns the list of results.
 */
export async function repeat(once, { maxRuns = 3, minRuns = 1, budgetMs = Infinity } = {}) {
  const started = performance.now();
  const out = [];
  for (let i = 0; i < maxRuns; i++) {
    if (i >= minRuns && performance.now() - started > budgetMs) break;
    out.push(await once(i));
  }
  return out;
}

export const pick = (list, key) => list.map((r) => r[key]);

function fmt(value, unit) {
  if (value === null || value === undefined) return '-';
  if (unit === 'count') return String(Math.round(value));
  if (unit === 'ms') return value < 10 ? value.toFixed(2) : value.toFixed(0);
  if (unit === 'MB') return value.toFixed(0);
  if (unit === 's') return value.toFixed(2);
  if (unit === '%') return value.toFixed(2);
  return value.toFixed(3);
}

const targetText = (f) => (f.target ? `${f.target.op} ${fmt(f.target.value, f.unit)}` : '');

/** Notes of the figures that have one, to print under the table. */
export function renderNotes(figures) {
  return figures
    .filter((f) => f.note)
    .map((f) => `- ${f.name}: ${f.note}`)
    .join('\n');
}

/** The figures as an aligned text table. */
export function renderTable(figures) {
  const rows = [['figure', 'median', 'unit', 'target', 'result', 'runs']];
  for (const f of figures) {
    const result = f.pass === null ? 'info' : f.pass ? 'PASS' : 'FAIL';
    rows.push([f.name, fmt(f.value, f.unit), f.unit, targetText(f), result, String(f.runCount)]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r) =>
    r.map((cell, c) => (c === 1 || c === 5 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}
