// Renders the Mermaid charts of a Markdown file (simulate --format markdown)
// in headless Chromium, with the mermaid of node_modules (a devDependency), and
// saves a screenshot: a check that the charts GitHub will render are valid,
// and the picture docs/simulate.md shows.
//
// Usage: node scripts/render-charts.mjs REPORT.md OUT.png [CHART-INDEX]
// Needs /usr/bin/chromium (or CHROMIUM). Fails when mermaid cannot parse a chart.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromiumPath, headlessFlags } from './chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [input, output, index] = process.argv.slice(2);
if (!input || !output) {
  process.stderr.write('usage: node scripts/render-charts.mjs REPORT.md OUT.png [CHART-INDEX]\n');
  process.exit(2);
}
const charts = [...readFileSync(input, 'utf8').matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]);
const picked = index === undefined ? charts : [charts[Number(index)]];
if (picked.length === 0 || picked.includes(undefined)) {
  process.stderr.write(`${input}: no such Mermaid chart\n`);
  process.exit(1);
}
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const mermaid = pathToFileURL(join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js')).href;
const page = `<!doctype html><html><head><meta charset="utf-8">
<style>body { font-family: sans-serif; margin: 16px; width: 860px; } .mermaid { margin-bottom: 24px; }</style>
<script src="${mermaid}"></script></head><body>
${picked.map((c) => `<pre class="mermaid">${escape(c)}</pre>`).join('\n')}
<script>
mermaid.initialize({ startOnLoad: false, theme: 'default' });
mermaid.run({ querySelector: '.mermaid' }).then(
  () => { document.title = 'rendered'; },
  (err) => { document.body.innerHTML = '<h1 id="error">' + String(err) + '</h1>'; document.title = 'failed'; },
);
</script></body></html>`;
const work = mkdtempSync(join(tmpdir(), 'tf-charts-'));
try {
  const html = join(work, 'charts.html');
  writeFileSync(html, page);
  const browser = chromiumPath();
  if (!browser) {
    process.stderr.write("no Chromium found: install Debian's chromium package or set CHROMIUM\n");
    process.exit(1);
  }
  const common = [
    ...headlessFlags(join(work, 'profile')),
    '--allow-file-access-from-files',
    '--virtual-time-budget=10000',
  ];
  const dom = execFileSync(browser, [...common, '--dump-dom', pathToFileURL(html).href], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (!dom.includes('<title>rendered</title>') || !dom.includes('<svg')) {
    const why = /<h1 id="error">([^<]*)/.exec(dom)?.[1] ?? 'mermaid did not finish';
    process.stderr.write(`${input}: the charts did not render: ${why}\n`);
    process.exit(1);
  }
  const height = 40 + picked.length * 520;
  execFileSync(
    browser,
    [...common, `--window-size=900,${height}`, `--screenshot=${resolve(output)}`, pathToFileURL(html).href],
    { stdio: 'ignore' },
  );
  process.stdout.write(`rendered ${picked.length} chart(s) of ${input} into ${output}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
