// Makes docs/reviewing/pr-comment.png, the picture of a pull-request comment in
// docs/ci.md: `plan --refresh --format markdown` against the emulator seeded
// with named applications, an Action and an API (test/helpers/named-tenant.ts),
// after a change to three policies; the Markdown rendered to HTML (marked, GFM)
// with GitHub's stylesheet (github-markdown-css) in a 900 px column, as a
// pull request shows a comment, and photographed by headless Chromium.
//
//   npm run build && node scripts/review-screenshot.mjs [OUT.png]
//
// Needs Chromium (/usr/bin/chromium). Sends nothing anywhere but 127.0.0.1.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { marked } from 'marked';
import { importSource } from './import-source.mjs';
import { chromiumPath, headlessFlags } from './chromium.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(root, 'docs', 'reviewing', 'pr-comment.png');
const chromium = chromiumPath();
if (!chromium) throw new Error('no Chromium: install it (apt-get install chromium) or name it in CHROMIUM');
const WIDTH = 900;

const { NAMED_TENANT, namedTenantSeed } = await importSource('test/helpers/named-tenant.ts');
const { startEmulator } = await import('../dist/emulator/index.js');

const work = mkdtempSync(join(tmpdir(), 'tenantform-screenshot-'));
const emulator = await startEmulator({ api: 'full', seed: namedTenantSeed(), users: NAMED_TENANT.users });
try {
  const config = join(work, 'config');
  mkdirSync(config);
  const write = (files) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(config, name), text);
  };
  // Asynchronous: the emulator answers from this process.
  const tenantform = async (...args) =>
    (
      await promisify(execFile)(
        process.execPath,
        [join(root, 'bin', 'tenantform.js'), ...args, '--api', 'full', '--base-url', emulator.baseUrl],
        { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', TENANTFORM_TOKEN: emulator.token } },
      )
    ).stdout;

  write(NAMED_TENANT.files(1500));
  await tenantform('apply', 'config', '--auto-approve');
  // The pull request: the mobile app may send twice as much, the portal starts enforcing, default is
  // cut, Bob may read reports too, and the partner profile is renamed.
  const files = NAMED_TENANT.files(3000, { bob: true, profileName: 'Partner single sign-on' });
  files['policies.yaml'] = files['policies.yaml']
    .replace('{ action: log, limit: 400 }', '{ action: block, limit: 400 }')
    .replace('{ action: block, limit: 800 }', '{ action: block, limit: 300 }');
  write(files);
  const markdown = await tenantform('plan', 'config', '--refresh', '--format', 'markdown');

  const css = readFileSync(
    createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'),
    'utf8',
  );
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
    body { margin: 0; background: #fff; }
    .comment { box-sizing: border-box; width: ${WIDTH}px; padding: 16px; }
    .markdown-body { font-size: 14px; }
  </style></head><body><div class="comment"><article class="markdown-body">${marked.parse(markdown, { gfm: true })}</article></div>
  <script>document.title = 'height:' + Math.ceil(document.querySelector('.comment').getBoundingClientRect().height);</script></body></html>`;
  const page = join(work, 'comment.html');
  writeFileSync(page, html);

  const chrome = (...args) =>
    spawnSync(
      chromium,
      [
        ...headlessFlags(mkdtempSync(join(work, 'profile-'))),
        '--hide-scrollbars',
        '--force-device-scale-factor=1',
        ...args,
        `file://${page}`,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
  const dom = chrome(`--window-size=${WIDTH},4000`, '--dump-dom').stdout;
  const height = Number(/height:(\d+)/.exec(dom)?.[1] ?? 2000);
  mkdirSync(dirname(out), { recursive: true });
  chrome(`--window-size=${WIDTH},${height}`, `--screenshot=${out}`);
  if (process.env.MARKDOWN_OUT) writeFileSync(process.env.MARKDOWN_OUT, markdown);
  process.stdout.write(`${out} (${WIDTH}×${height})\n`);
} finally {
  await emulator.stop();
  rmSync(work, { recursive: true, force: true });
}
