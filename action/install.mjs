// The action's install step (action.yml): puts the tenantform it runs in
// place and writes its entry point to the step output `bin`.
//
// What it installs, from the `tenantform` input (TENANTFORM_SPEC):
//   empty    the action's own copy when it runs from an installed package
//            (`uses: ./node_modules/tenantform`, after `npm ci` installed the
//            version package-lock.json pins: nothing more to install), else
//            `tenantform@VERSION` from the npm registry, VERSION being this
//            action's package.json (`uses: OWNER/tenantform@vVERSION`);
//   1.2.3    that version from the npm registry;
//   a path   a tarball or directory (./vendor/tenantform-0.1.0.tgz), relative
//            to the workspace: until tenantform is on the registry.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What to install: `{ kind: 'self', bin }` when the action is an installed
 * package, else `{ kind: 'npm', spec }` for `npm install`.
 */
export function installPlan({ spec, actionPath, workspace, exists = existsSync }) {
  const given = spec.trim();
  if (given === '') {
    if (exists(join(actionPath, 'dist', 'bundle', 'cli.cjs'))) {
      return { kind: 'self', bin: join(actionPath, 'bin', 'tenantform.js') };
    }
    const { version } = JSON.parse(readFileSync(join(actionPath, 'package.json'), 'utf8'));
    return { kind: 'npm', spec: `tenantform@${version}` };
  }
  if (/^v?\d+\.\d+\.\d+(-[\w.]+)?$/.test(given))
    return { kind: 'npm', spec: `tenantform@${given.replace(/^v/, '')}` };
  if (/^(\.{1,2}\/|\/)|\.tgz$/.test(given)) {
    const path = isAbsolute(given) ? given : resolve(workspace, given);
    if (!exists(path))
      throw new Error(`the tenantform input names ${given}, which is not there (looked at ${path})`);
    return { kind: 'npm', spec: path };
  }
  throw new Error(
    `the tenantform input "${given}" is neither empty, a version (1.2.3) nor a path to a tarball or directory (./vendor/tenantform-1.2.3.tgz)`,
  );
}

/** Runs the install step with the environment GitHub gives a composite action's step. */
function main(env) {
  const actionPath = env.TENANTFORM_ACTION_PATH ?? fileURLToPath(new URL('..', import.meta.url));
  const plan = installPlan({
    spec: env.TENANTFORM_SPEC ?? '',
    actionPath,
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
  });
  let bin;
  if (plan.kind === 'self') {
    bin = plan.bin;
    console.log(`tenantform: using the installed package the action runs from (${actionPath})`);
  } else {
    const prefix = join(env.RUNNER_TEMP ?? actionPath, 'tenantform-install');
    mkdirSync(prefix, { recursive: true });
    console.log(`tenantform: npm install ${plan.spec}`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(
      npm,
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', plan.spec],
      { stdio: 'inherit' },
    );
    bin = join(prefix, 'node_modules', 'tenantform', 'bin', 'tenantform.js');
  }
  const version = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim();
  console.log(`tenantform ${version}: ${bin}`);
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `bin=${bin}\nversion=${version}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.env);
  } catch (err) {
    console.log(`::error title=tenantform install::${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
