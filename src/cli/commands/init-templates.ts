/**
 * The texts `tenantform init` writes besides each kind's example file (the
 * kind declares it): a .gitignore, a package.json that pins tenantform, the
 * environments file, a GitHub Actions workflow and a README.
 * Every YAML file init writes must pass `tenantform validate` as written (a test checks).
 */

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
export const WORKFLOW_YAML = `# tenantform: validate and plan on pull requests, apply on pushes to main,
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
#   TENANTFORM_CLIENT_SECRET  create:rate_limit_policies, delete:rate_limit_policies,
#                             update:users and create:token_exchange_profiles scopes
#                             (with api: full in tenantform.yaml also update:rate_limit_policies,
#                             update:token_exchange_profiles, delete:token_exchange_profiles and,
#                             for reads, read:rate_limit_policies, read:token_exchange_profiles, read:users)
name: tenantform

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

/** The config repository's README; `version` names the tarball of the install recipe. */
export function readmeMd(version: string): string {
  return `# Tenant configuration

The rate limit policies, user permissions and token exchange profiles of our
tenant, managed with [tenantform](https://www.npmjs.com/package/tenantform).
Change a YAML file, open a pull request, read the plan CI posts, merge: CI applies.

| File | What it declares |
|---|---|
| \`rate-limit-policies.yaml\` | rate limit policies of the authentication API |
| \`user-permissions.yaml\` | permissions assigned to users |
| \`token-exchange-profiles.yaml\` | token exchange profiles |
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
