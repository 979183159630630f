/**
 * The texts `tenantform init` writes besides each kind's example file (the
 * kind declares it): a .gitignore, a package.json that pins tenantform, the
 * environments file, a GitHub Actions workflow and a README.
 * Every YAML file init writes must pass `tenantform validate` as written (a test checks).
 * What they say about the kinds (the scopes the workflow's client needs, the
 * README's table of files) comes from the kinds' declarations.
 */
import { descriptorsOf, operationsFor, type ApiProfile, type KindModule } from '../../resources/index.js';
import { listed } from '../words.js';

/** The first line of every config file init and export write: editors find the schema by it. */
export const SCHEMA_COMMENT = '# yaml-language-server: $schema=./schemas/config.schema.json';

export const GITIGNORE = `# tenantform: local state, lock and journal, and saved plans
.tenantform/
*.tfplan
plan.md
`;

/**
 * package.json of the config repository: tenantform as an exact-version
 * devDependency, so that `npm ci` installs what package-lock.json records
 * and `npx tenantform` runs that copy, never whatever the registry serves later.
 */
export function packageJson(version: string): string {
  const pkg = {
    private: true,
    description: 'Tenant configuration managed with tenantform',
    devDependencies: { tenantform: version },
    // tenantform needs no install script (its prepare script only builds a checkout): npm 11 then stays quiet.
    allowScripts: { tenantform: false },
  };
  return JSON.stringify(pkg, null, 2) + '\n';
}

/**
 * The environments file: one environment to start with. It names no state,
 * target or credentials, so local runs use the usual flags and variables and
 * CI passes a pg workspace per environment.
 */
export const PROJECT_YAML = `# The environments of this repository. Each one is the merge of its paths
# (relative to this file) and has its own tenant and state. CI runs a job per
# environment (tenantform envs --format github-matrix). To add one, e.g. a
# staging tenant: move the shared files into common/, then
#   production: { paths: [common, production] }
#   staging:    { paths: [common, staging] }
# An environment may also name its tenant (domain: or base_url:; credentials go
# there only when TENANTFORM_ALLOWED_HOSTS or TENANTFORM_DOMAIN, set beside the
# secrets, confirms it), the NAMES of the variables holding its credentials
# (credentials: {client_id: X, client_secret: Y}) and its state
# (state: {backend: pg, workspace: W}); see tenantform's docs/many-tenants.md.
environments:
  production:
    paths: [.]
`;

/** The scopes of the kinds' operations under `profile`: the reads (GET) or the writes, each once, in KINDS order. */
function scopesOf(kinds: readonly KindModule[], profile: ApiProfile, reads: boolean): string[] {
  const ops = kinds.flatMap((kind) => descriptorsOf(operationsFor(kind, profile)));
  return [...new Set(ops.filter((op) => (op.method === 'GET') === reads).map((op) => op.scope))];
}

/** Text after `first`, wrapped at 100 columns, each further line led by `next`. */
function wrapped(first: string, next: string, text: string): string {
  const lines = [first];
  for (const word of text.split(' ')) {
    const line = lines[lines.length - 1]!;
    if (line.length > next.length && line.length + 1 + word.length > 100) lines.push(`${next}${word}`);
    else lines[lines.length - 1] = line.endsWith(' ') ? `${line}${word}` : `${line} ${word}`;
  }
  return lines.join('\n');
}

/** The workflow's comment on the scopes its client needs: the spec profile's writes, then what api: full adds. */
export function scopeComment(kinds: readonly KindModule[]): string {
  const spec = scopesOf(kinds, 'spec', false);
  const full = scopesOf(kinds, 'full', false).filter((scope) => !spec.includes(scope));
  const reads = scopesOf(kinds, 'full', true).sort();
  const text =
    `${listed(spec)} scopes (with api: full in tenantform.yaml also ${full.join(', ')} and, ` +
    `for reads, ${reads.join(', ')})`;
  return wrapped('#   TENANTFORM_CLIENT_SECRET  ', `#${' '.repeat(29)}`, text);
}

/**
 * The workflow: a job per environment, from `tenantform envs`. Every job
 * installs tenantform with `npm ci` (the version package-lock.json pins); the
 * first runs it with `npx --no`, which refuses to download a package that is
 * not installed (in CI, plain npx would), and the plan and apply jobs run the
 * GitHub Action that package ships (`uses: ./node_modules/tenantform`, the
 * action.yml at the root of tenantform's repository): on a pull request it
 * posts the plan as one comment per environment and keeps the sealed saved
 * plan as an artifact; on the push that merges it, it applies that reviewed
 * plan, or plans and applies again when apply refuses it (stale, edited, made
 * for another target), and says so in the job summary.
 */
export function workflowYaml(kinds: readonly KindModule[]): string {
  return `# tenantform: validate and plan on pull requests, apply on pushes to main,
# one job per environment of tenantform.yaml (a pull request plans only the
# environments its changed files affect).
#
# A pull request gets one plan comment per environment, and its sealed saved
# plan is kept as the artifact tenantform-plan-<environment>. Merged, the apply
# job applies exactly that reviewed plan; when apply refuses it (the state has
# moved on since, or the file was edited), it plans and applies again and says
# so in the job summary. The steps are the action tenantform ships
# (node_modules/tenantform/action.yml, installed by npm ci).
#
# Secrets (Settings → Secrets and variables → Actions):
#   TENANTFORM_PG_URL         repository secret: PostgreSQL URL of the shared state,
#                             one workspace per environment (it must outlive the runner)
# and, in a GitHub environment named like each tenantform environment (Settings → Environments):
#   TENANTFORM_DOMAIN         the tenant's domain, e.g. acme.eu.auth0.com
#   TENANTFORM_CLIENT_ID      a machine-to-machine client of the tenant with the
${scopeComment(kinds)}
${WORKFLOW_JOBS}`;
}

/** The workflow below its comment: the jobs. */
const WORKFLOW_JOBS = `name: tenantform

on:
  pull_request:
  push:
    branches: [main]

permissions:
  contents: read

jobs:
  environments:
    runs-on: ubuntu-latest
    outputs:
      matrix: \${{ steps.envs.outputs.matrix }}
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v5
        with:
          node-version: 24
      - name: Install tenantform (the version package-lock.json pins)
        run: npm ci
      - name: Validate
        if: github.event_name == 'pull_request'
        run: npx --no tenantform validate . --format github
      - name: Check the config's layout (fix with tenantform fmt)
        if: github.event_name == 'pull_request'
        run: npx --no tenantform fmt . --check --diff
      - name: Environments to run
        id: envs
        env:
          BASE_REF: \${{ github.base_ref }}
        run: |
          if [ "\${{ github.event_name }}" = pull_request ]; then
            matrix=$(git diff -z --name-only "origin/\${BASE_REF}...HEAD" | xargs -0 npx --no tenantform envs . --format github-matrix --changed)
          else
            matrix=$(npx --no tenantform envs . --format github-matrix)
          fi
          echo "matrix=\${matrix}" >> "$GITHUB_OUTPUT"

  plan:
    needs: environments
    if: github.event_name == 'pull_request' && needs.environments.outputs.matrix != '{"include":[]}'
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
    strategy:
      fail-fast: false
      matrix: \${{ fromJSON(needs.environments.outputs.matrix) }}
    concurrency:
      group: tenantform-plan-\${{ github.event.pull_request.number }}-\${{ matrix.environment }}
      cancel-in-progress: true
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-node@v5
        with:
          node-version: 24
      - name: Install tenantform (the version package-lock.json pins)
        run: npm ci
      - name: Plan, post it on the pull request, keep the sealed plan
        uses: ./node_modules/tenantform
        env:
          TENANTFORM_PG_URL: \${{ secrets.TENANTFORM_PG_URL }}
        with:
          command: plan
          environment: \${{ matrix.environment }}
          backend: pg
          workspace: \${{ matrix.environment }}

  apply:
    needs: environments
    if: github.event_name == 'push' && needs.environments.outputs.matrix != '{"include":[]}'
    runs-on: ubuntu-latest
    permissions:
      contents: read
      actions: read
      pull-requests: read
    strategy:
      fail-fast: false
      matrix: \${{ fromJSON(needs.environments.outputs.matrix) }}
    environment: \${{ matrix.environment }}
    concurrency:
      group: tenantform-apply-\${{ matrix.environment }}
      cancel-in-progress: false
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-node@v5
        with:
          node-version: 24
      - name: Install tenantform (the version package-lock.json pins)
        run: npm ci
      - name: Apply the reviewed plan (or plan and apply again when it is refused)
        uses: ./node_modules/tenantform
        env:
          TENANTFORM_PG_URL: \${{ secrets.TENANTFORM_PG_URL }}
          TENANTFORM_DOMAIN: \${{ secrets.TENANTFORM_DOMAIN }}
          TENANTFORM_CLIENT_ID: \${{ secrets.TENANTFORM_CLIENT_ID }}
          TENANTFORM_CLIENT_SECRET: \${{ secrets.TENANTFORM_CLIENT_SECRET }}
        with:
          command: apply
          environment: \${{ matrix.environment }}
          backend: pg
          workspace: \${{ matrix.environment }}
          lock-timeout: 5m
`;

/** A kind's row in the README's table of files: its file, and the first sentence of its list's description. */
function fileRow(kind: KindModule): string {
  const what = kind.config.description.split('. ')[0]!.replace(/\.$/, '');
  return `| \`${kind.config.file}\` | ${what.charAt(0).toLowerCase()}${what.slice(1)} |`;
}

/** The config repository's README; `version` names the tarball of the install recipe. */
export function readmeMd(version: string, kinds: readonly KindModule[]): string {
  return `# Tenant configuration

${wrapped('The', '', `${listed(kinds.map((k) => k.title.many))} of our`)}
tenant, managed with [tenantform](https://www.npmjs.com/package/tenantform).
Change a YAML file, open a pull request, read the plan CI posts, merge: CI applies.

| File | What it declares |
|---|---|
${kinds.map(fileRow).join('\n')}
| \`schemas/\` | JSON Schemas for editor completion and checks (VS Code: the Red Hat "YAML" extension) |
| \`package.json\` | pins the tenantform version (\`npm install\` once, then commit \`package-lock.json\`) |
| \`.github/workflows/tenantform.yml\` | CI: validate and plan on pull requests, apply on \`main\` |

Every \`*.yaml\` file in this directory and below it is part of the config
(directories starting with a dot are skipped); split or rename files freely.

## Install

\`package.json\` pins tenantform as an exact-version devDependency. Install it
once and commit the lockfile; CI runs \`npm ci\`, which installs exactly what
\`package-lock.json\` records:

\`\`\`sh
npm install
git add package.json package-lock.json
\`\`\`

Until tenantform is published on the npm registry, install it from a release
tarball kept in this repository instead (build one from a commit of
tenantform's own repository with \`npm ci && npm pack\`):

\`\`\`sh
mkdir -p vendor && cp /path/to/tenantform-${version}.tgz vendor/
npm install --save-dev --save-exact ./vendor/tenantform-${version}.tgz
git add package.json package-lock.json vendor/
\`\`\`

## Locally

Once tenantform is installed (above), run the one \`package.json\` pins, as CI
does (\`--no\`: npx never downloads a package that is not installed; without
the install, it stops and says so):

\`\`\`sh
npx --no tenantform validate .
npx --no tenantform plan .
\`\`\`

Try an apply against the local emulator first. Start it in one terminal and
paste the \`export TENANTFORM_BASE_URL=…\` and \`export TENANTFORM_TOKEN=…\` lines it
prints into a second one. Give the emulator its own state file, so that its ids
never mix with the real tenant's:

\`\`\`sh
npx --no tenantform emulator                # first terminal
npx --no tenantform apply . --state .tenantform/emulator.json
\`\`\`

## CI

Set the secrets named at the top of \`.github/workflows/tenantform.yml\`. State is
kept in PostgreSQL (\`--backend pg\`), so every CI run sees what the last apply did.
A pull request gets one plan comment per environment; once it is merged, CI
applies exactly the plan that comment showed (its sealed saved plan, kept as an
artifact), or, when the state has moved on since, plans and applies again and
says so in the job summary. The steps are tenantform's GitHub Action, from the
installed package (\`uses: ./node_modules/tenantform\`).
`;
}
