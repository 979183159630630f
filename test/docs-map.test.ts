/**
 * The README is a way in, not the manual: it stays short and links every page
 * of docs/, and every relative link of README.md, examples/README.md and
 * docs/**.md names a file that exists and, with a #fragment, a heading of that
 * file (as GitHub makes anchors of headings).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The README's ceiling, in lines: pitch, set-up, tutorial and the map of the docs. */
const README_MAX_LINES = 260;

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** Every .md page below docs/, relative to the checkout. */
function docsPages(): string[] {
  return readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name.split('\\').join('/')}`)
    .sort();
}

/** The page's lines outside fenced code blocks. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open && (fence === null || open[1]!.startsWith(fence))) {
      fence = fence === null ? open[1]! : null;
      continue;
    }
    if (fence === null) out.push(line);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (a repeated heading gets -1, -2, …). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = headingAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The relative link targets of a page (no scheme, no mailto), outside code blocks. */
function relativeLinks(text: string): string[] {
  const targets = prose(text)
    .join('\n')
    .replace(/`[^`\n]*`/g, '')
    .matchAll(/\]\(([^)\s]+)\)/g);
  return [...targets].map((m) => m[1]!).filter((t) => !/^[a-z][a-z+.-]*:/i.test(t));
}

describe('the README', () => {
  const readme = read('README.md');

  it(`is at most ${README_MAX_LINES} lines: the rest lives in docs/`, () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links every page of docs/', () => {
    const linked = new Set(relativeLinks(readme).map((t) => normalize(t.split('#')[0]!)));
    const pages = docsPages();
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the links of the docs', () => {
  const pages = ['README.md', 'examples/README.md', ...docsPages()];

  it.each(pages)('%s: every relative link names a file that exists, and a heading of it', (page) => {
    const broken: string[] = [];
    for (const target of relativeLinks(read(page))) {
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
      if (!existsSync(join(ROOT, file))) {
        // Outside the checkout (the shared spec beside it) is not this test's to check.
        if (!file.startsWith('..')) broken.push(`${target}: no such file`);
        continue;
      }
      if (fragment !== undefined && file.endsWith('.md') && !anchors(read(file)).has(fragment))
        broken.push(`${target}: no heading "${fragment}" in ${file}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('headingAnchor', () => {
  it.each([
    ['HTTPS (`--tls`)', 'https---tls'],
    ["The tenant's clock (`--clock-skew`)", 'the-tenants-clock---clock-skew'],
    [
      'Reading the tenant: refresh, drift, export (API profile `full`)',
      'reading-the-tenant-refresh-drift-export-api-profile-full',
    ],
    ['Five-minute tutorial', 'five-minute-tutorial'],
  ])('%s → #%s', (heading, anchor) => {
    expect(headingAnchor(heading)).toBe(anchor);
  });
});
