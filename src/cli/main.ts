/**
 * CLI: commander wiring only. Parses arguments, lazily loads the command's
 * module (so --help and --version stay cheap), runs it with a CommandIO and
 * maps typed errors to exit codes. Exit codes: 0 success, 1 error,
 * 2 plan has changes (with --detailed-exitcode).
 */
import { Command, CommanderError, Option } from 'commander';
import { createRequire } from 'node:module';
import { EXIT_INTERRUPTED, heldLocks, type CommandIO } from './io.js';
import { releaseLocksOnCrash } from './crash.js';
import { reportError } from './errors.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --var, --var-file and --env; `many` (plan, apply): --env repeatable, --all-envs, --env-parallelism. */
function varOptions(cmd: Command, many = false): Command {
  cmd
    .option('--var <NAME=VALUE>', 'set a variable used as ${NAME} in the config (repeatable)', collect, [])
    .option('--var-file <FILE>', 'read variables from a YAML mapping (repeatable)', collect, []);
  if (!many) return cmd.option('--env <NAME>', 'environment from the tenantform.yaml project file in PATH');
  return cmd
    .option(
      '--env <NAME>',
      'environment from the tenantform.yaml project file in PATH (repeatable: several run concurrently)',
      collect,
    )
    .option('--all-envs', 'every environment of the tenantform.yaml project file in PATH')
    .addOption(
      new Option(
        '--env-parallelism <N>',
        'environments run at once with several --env or --all-envs',
      ).default('4', '4'),
    );
}

/** Where the state is; `locks` adds --lock-timeout for the commands that take the lock. */
function stateOptions(cmd: Command, locks = false): Command {
  cmd
    .option('--state <FILE>', 'state file (default: .tenantform/state.json beside the config)')
    .addOption(new Option('--backend <KIND>', 'state backend (default: file)').choices(['file', 'pg']))
    .option(
      '--backend-config <KEY=VALUE>',
      'backend setting, e.g. conn=postgres://… (repeatable)',
      collect,
      [],
    )
    .option('--workspace <NAME>', 'pg backend: workspace, one per tenant or environment (default: default)');
  return locks
    ? cmd.addOption(
        new Option('--lock-timeout <DURATION>', 'wait this long for the state lock (e.g. 30s, 2m)').default(
          '0s',
          '0s, fail at once',
        ),
      )
    : cmd;
}

const jsonFlag = '--json';
const jsonHelp =
  'print the plan summary, each operation and the outcome as JSON lines (schemas/apply-event.schema.json); needs --auto-approve';

/** --target and --replace, on plan and apply. */
function selectionOptions(cmd: Command, replace = true): Command {
  cmd.option(
    '--target <ADDRESS>',
    'limit the plan to this resource (repeatable); the plan says it is partial',
    collect,
    [],
  );
  return replace
    ? cmd.option(
        '--replace <ADDRESS>',
        'replace this resource (delete, then create) even though nothing changed (repeatable)',
        collect,
        [],
      )
    : cmd;
}

/** A state subcommand's config path (which locates the default state file) and --env. */
function locatedState(cmd: Command, locks = false): Command {
  return stateOptions(
    cmd
      .argument('[path]', 'config path (locates the default state file)', '.')
      .option('--env <NAME>', 'environment from the tenantform.yaml project file in PATH'),
    locks,
  );
}

/** show's state options: like a state subcommand's, with the config path as an optional argument. */
function locatedShow(cmd: Command): Command {
  return stateOptions(
    cmd.option('--env <NAME>', 'environment from the tenantform.yaml project file in PATH'),
  );
}

function connectionOptions(cmd: Command): Command {
  return cmd
    .option(
      '--domain <DOMAIN>',
      'tenant domain: the API is https://DOMAIN/api/v2 (env TENANTFORM_DOMAIN, AUTH0_DOMAIN)',
    )
    .option(
      '--base-url <URL>',
      'API base URL ending in /api/v2, e.g. http://127.0.0.1:4000/api/v2; a bare origin gets /api/v2 added (env TENANTFORM_BASE_URL)',
    )
    .option(
      '--token-file <FILE>',
      'read the bearer token from a file (or env TENANTFORM_TOKEN, AUTH0_ACCESS_TOKEN)',
    )
    .option('--audience <URL>', 'client-credentials audience (default https://DOMAIN/api/v2/)')
    .option('--max-rps <N>', 'never send more than N requests per second')
    .option(
      '--debug',
      'log each request: method, path, status, duration, rate-limit headers (secrets redacted)',
    );
}

/**
 * A commander error in the CLI's own form: "Error: …" like every other error,
 * and for a long option written with one dash (Terraform style), the
 * two-dash spelling.
 */
function commanderMessage(text: string, known: ReadonlySet<string>): string {
  const message = text.replace(/^error: /, 'Error: ');
  const single = /unknown option '-([a-z][a-z-]+)'/.exec(message);
  if (!single || !known.has(`--${single[1]}`)) return message;
  return message.replace(/\n?$/, ` (did you mean --${single[1]}? long options take two dashes)\n`);
}

/** Every long option of the program and its subcommands. */
function longOptions(cmd: Command, out = new Set<string>()): Set<string> {
  for (const option of cmd.options) if (option.long) out.add(option.long);
  for (const sub of cmd.commands) longOptions(sub, out);
  return out;
}

export function buildProgram(io: CommandIO, setExit: (code: number) => void): Command {
  const program = new Command('tenantform');
  const run =
    <A extends unknown[]>(load: () => Promise<(...args: [...A, CommandIO]) => Promise<number>>) =>
    async (...args: A) => {
      const fn = await load();
      setExit(await fn(...args, io));
    };

  program
    .description(
      "Manage an identity tenant's rate limit policies, user permissions and token exchange profiles as code.",
    )
    .version(version, '-V, --version')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(commanderMessage(s, longOptions(program))),
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  $ tenantform init my-tenant && tenantform validate my-tenant
  $ tenantform validate examples                     # every environment of a project
  $ tenantform plan examples --env prod --out release.tfplan
  $ tenantform apply release.tfplan --auto-approve --domain tenant.example.com
  $ tenantform emulator --port 4000

Exit codes: 0 success, 1 error, 2 changes present (plan --detailed-exitcode), 3 not formatted (fmt --check).`,
    );

  varOptions(
    program
      .command('validate')
      .description('check the config against the API schemas; print every error as file:line:col')
      .argument('[paths...]', 'config files or directories, merged (default: .)')
      .addOption(
        new Option('--format <FORMAT>', 'output format').choices(['text', 'json', 'github']).default('text'),
      ),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform validate examples\n  $ tenantform validate examples --env prod --format github\n  $ tenantform validate rules/ --var-file vars/prod.yaml --var LOGIN_LIMIT=300',
    )
    .action(run(async () => (await import('./commands/validate-cli.js')).validateAction));

  program
    .command('fmt')
    .description('rewrite config files in the canonical layout (schema key order), keeping comments')
    .argument('[paths...]', 'config files or directories (default: .)')
    .option('--check', 'change nothing; exit 3 when a file is not formatted (for CI)')
    .option('--diff', 'print what changes, as a unified diff')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform fmt                      # format every *.yaml below .\n  $ tenantform fmt examples --check --diff   # CI: exit 3 and show the diff when not formatted',
    )
    .action(run(async () => (await import('./commands/fmt.js')).fmtAction));

  selectionOptions(
    stateOptions(
      varOptions(
        program
          .command('plan')
          .description('show what apply would change; sends no request')
          .argument(
            '[paths...]',
            'config files or directories, merged (default: .); state lives beside the last',
          )
          .option('--out <PLANFILE>', 'save the plan for a later, exact apply')
          .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none')
          .option('--destroy', 'plan the removal of everything the state records (what destroy would do)')
          .addOption(
            new Option('--format <FORMAT>', 'output format')
              .choices(['text', 'json', 'markdown'])
              .default('text'),
          ),
        true,
      ),
    ),
  )
    .addHelpText(
      'after',
      `\nExamples:\n  $ tenantform plan examples --env prod\n  $ tenantform plan examples --all-envs --format markdown > plan.md\n  $ tenantform plan examples --env prod --format markdown > plan.md\n  $ tenantform plan . --out release.tfplan --detailed-exitcode\n  $ tenantform plan . --target 'rate_limit_policy["oauth_authentication_api","client","default"]' --out hotfix.tfplan\n  $ tenantform plan . --replace 'rate_limit_policy["oauth_authentication_api","client","default"]'\n  $ tenantform plan . --destroy`,
    )
    .action(run(async () => (await import('./commands/plan.js')).planAction));

  connectionOptions(
    stateOptions(
      varOptions(
        selectionOptions(
          program
            .command('apply')
            .description('make the changes through the API and record them in state')
            .argument(
              '[paths...]',
              'config files or directories (default: .), or one plan file saved by plan --out',
            )
            .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)')
            .addOption(new Option('--parallelism <N>', 'concurrent operations').default('10', '10'))
            .addOption(
              new Option('--permission-batch-size <N>', 'permissions per request for one user').default(
                '100',
                '100',
              ),
            )
            .option('--skip-blocked', 'apply the other changes when some are blocked')
            .option(jsonFlag, jsonHelp),
        ),
        true,
      ),
      true,
    ),
  )
    .addHelpText(
      'after',
      `\nExamples:\n  $ TENANTFORM_CLIENT_ID=… TENANTFORM_CLIENT_SECRET=… tenantform apply examples --env prod --domain tenant.example.com\n  $ tenantform apply release.tfplan --auto-approve --base-url http://127.0.0.1:4000/api/v2\n  $ tenantform apply examples --env dev --env staging --auto-approve\n  $ tenantform apply . --target 'token_exchange_profile["urn:partner:token"]'\n  $ tenantform apply . --replace 'rate_limit_policy["oauth_authentication_api","client","default"]'\n  $ tenantform apply release.tfplan --auto-approve --json | jq -c 'select(.type == "failed")'`,
    )
    .action(run(async () => (await import('./commands/apply.js')).applyAction));

  connectionOptions(
    stateOptions(
      varOptions(
        selectionOptions(
          program
            .command('destroy')
            .description(
              'remove everything the state records: delete what the API can delete, forget (and leave on the tenant) the rest',
            )
            .argument(
              '[paths...]',
              'config path that locates the state (default: .); the config itself is not read',
            )
            .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)')
            .option('--parallelism <N>', 'concurrent operations', '10')
            .option('--permission-batch-size <N>', 'permissions per request for one user', '100')
            .option('--skip-blocked', 'remove the rest when some removals are blocked (no recorded id)')
            .option(jsonFlag, jsonHelp),
          false,
        ),
      ),
      true,
    ),
  )
    .addHelpText(
      'after',
      `\nExamples:\n  $ tenantform plan test-tenant --destroy                 # preview\n  $ tenantform destroy test-tenant --base-url http://127.0.0.1:4000/api/v2\n  $ tenantform destroy . --auto-approve --target 'rate_limit_policy["oauth_authentication_api","client","default"]'`,
    )
    .action(run(async () => (await import('./commands/apply.js')).destroyAction));

  stateOptions(
    varOptions(
      program
        .command('import')
        .description('attach a known server id to a resource, e.g. one adopted through 409')
        .argument('<kind-or-address>', 'rate_limit_policy, token_exchange_profile, or a full address')
        .argument('[identity]', 'identity: resource/consumer/consumer_selector, or the subject_token_type')
        .argument('[id]', 'the id on the tenant (rlp_…, tep_…)')
        .option('--config <PATH>', 'config to take the attributes from', '.'),
    ),
    true,
  )
    .addHelpText(
      'after',
      `\nExamples:\n  $ tenantform import rate_limit_policy oauth_authentication_api/client/default rlp_abc123\n  $ tenantform import 'token_exchange_profile["urn:partner:token"]' tep_xyz`,
    )
    .action(run(async () => (await import('./commands/import.js')).importAction));

  locatedShow(
    program
      .command('show')
      .description('print a saved plan exactly as plan printed it, or the state with attributes')
      .argument(
        '[planfile-or-path]',
        'a plan file saved by plan --out, or a config path locating the state (default: .)',
      )
      .addOption(
        new Option('--format <FORMAT>', 'output format')
          .choices(['text', 'json', 'markdown'])
          .default('text'),
      ),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform show release.tfplan --format markdown > plan.md   # the plan apply will run\n  $ tenantform show examples --env prod                         # the recorded state',
    )
    .action(run(async () => (await import('./commands/show.js')).showAction));

  const state = program
    .command('state')
    .description('inspect and edit the recorded state')
    .addHelpText(
      'after',
      `
Examples:
  $ tenantform state list examples --env prod
  $ tenantform state show 'rate_limit_policy["oauth_authentication_api","client","default"]' examples/prod
  $ tenantform state rm 'token_exchange_profile["urn:partner:token"]' examples/prod
  $ tenantform state migrate --from file:examples/prod/.tenantform/state.json --to pg:prod`,
    );
  locatedState(state.command('list').description('list recorded resources'))
    .addHelpText('after', '\nExample:\n  $ tenantform state list examples/prod')
    .action(run(async () => (await import('./commands/state.js')).stateListAction));
  locatedState(
    state
      .command('show')
      .description('show one recorded resource')
      .argument('<address>', 'e.g. token_exchange_profile["urn:partner:token"]'),
  )
    .addHelpText(
      'after',
      `\nExample:\n  $ tenantform state show 'token_exchange_profile["urn:partner:token"]'`,
    )
    .action(run(async () => (await import('./commands/state.js')).stateShowAction));
  locatedState(
    state
      .command('rm')
      .description('stop tracking a resource (it stays on the tenant)')
      .argument('<address>', 'the resource address'),
    true,
  )
    .addHelpText(
      'after',
      `\nExample:\n  $ tenantform state rm 'user_permission["auth0|1","https://api/","read:x"]'`,
    )
    .action(run(async () => (await import('./commands/state.js')).stateRmAction));
  locatedState(
    state
      .command('rescue')
      .description(
        'record operations the tenant acknowledged but a failed apply could not record (a rescue file, or a log with tenantform-rescue: lines)',
      )
      .argument('<file>', 'the rescue file the failed apply named, or a saved CI log'),
    true,
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform state rescue examples/prod/.tenantform/state.json.rescue-20261123T034501Z-4242-1a2b3c.json examples/prod\n  $ tenantform state rescue ci-apply.log examples --env prod',
    )
    .action(run(async () => (await import('./commands/state.js')).stateRescueAction));
  locatedState(
    state
      .command('repair')
      .description(
        'rewrite a damaged state journal keeping every complete entry (the damaged one is saved beside it)',
      ),
    true,
  )
    .addHelpText('after', '\nExample:\n  $ tenantform state repair examples/prod')
    .action(run(async () => (await import('./commands/state.js')).stateRepairAction));
  state
    .command('migrate')
    .description('copy a state into another backend, e.g. a file into a pg workspace')
    .requiredOption('--from <SPEC>', 'file:PATH or pg[:WORKSPACE]')
    .requiredOption('--to <SPEC>', 'file:PATH or pg[:WORKSPACE]')
    .option('--backend-config <KEY=VALUE>', 'pg setting, e.g. conn=postgres://… (repeatable)', collect, [])
    .option('--force', 'overwrite a target that holds another lineage')
    .option('--lock-timeout <DURATION>', 'wait this long for each state lock (e.g. 30s, 2m)', '0s')
    .addHelpText(
      'after',
      '\nExample:\n  $ TENANTFORM_PG_URL=postgres://… tenantform state migrate --from file:.tenantform/state.json --to pg:prod',
    )
    .action(run(async () => (await import('./commands/state.js')).stateMigrateAction));

  locatedState(
    program.command('force-unlock').description('remove a stale state lock left by a process that is gone'),
  )
    .addHelpText('after', '\nExample:\n  $ tenantform force-unlock examples/prod')
    .action(run(async () => (await import('./commands/state.js')).forceUnlockAction));

  program
    .command('emulator')
    .description('run a local emulator of the Tenant Management API')
    .addOption(new Option('--host <HOST>', 'address to listen on').default('127.0.0.1', '127.0.0.1'))
    .addOption(new Option('--port <N>', 'port').default('0', '0, a free one'))
    .option('--rate-limit <N>', 'requests per second of the token bucket (default: unlimited)')
    .option('--burst <N>', 'bucket size for --rate-limit (default: N)')
    .option(
      '--rate-limit-scope <SCOPE>',
      'who shares the bucket: tenant (default; all its clients, as the real service) or client',
    )
    .option('--latency <MS[:JITTER]>', 'delay every API response')
    .option('--faults <SPEC>', 'fractions of requests that fail, e.g. error=0.2,reset=0.1,lost=0.05')
    .option('--users <FILE>', 'only these user ids exist (one per line); others get 404')
    .option('--data <FILE>', 'persist the tenant to this file across restarts (with --tenants: a directory)')
    .option(
      '--tenants <N|NAMES>',
      'host several tenants (t1..tN, or a comma-separated list), each on its own port from --port on',
    )
    .option(
      '--tls',
      'serve HTTPS with a certificate from a CA made at start; its file is printed (for NODE_EXTRA_CA_CERTS)',
    )
    .option('--json', 'print one JSON line with base_url and credentials once listening')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform emulator --port 4000\n  $ tenantform emulator --port 4100 --tenants dev,staging,prod --rate-limit 25\n  $ tenantform emulator --rate-limit 20 --faults error=0.1 --json',
    )
    .action(run(async () => (await import('./commands/emulator-cli.js')).emulatorAction));

  program
    .command('envs')
    .description('list the environments of tenantform.yaml, or those that changed files affect')
    .argument('[path]', 'the project directory (holding tenantform.yaml)', '.')
    .addOption(
      new Option('--format <FORMAT>', 'output format')
        .choices(['text', 'json', 'github-matrix'])
        .default('text'),
    )
    .option(
      '--changed [files...]',
      'only the environments these changed files affect (paths from the current directory)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform envs examples\n  $ git diff --name-only origin/main... | xargs tenantform envs . --format github-matrix --changed',
    )
    .action(run(async () => (await import('./commands/envs.js')).envsAction));

  program
    .command('init')
    .description('scaffold a config repository: an example per kind, .gitignore and a CI workflow')
    .argument('[dir]', 'directory to create or fill', '.')
    .option('--force', 'overwrite files that exist')
    .addHelpText(
      'after',
      '\nExample:\n  $ tenantform init tenant-config && cd tenant-config && tenantform validate',
    )
    .action(run(async () => (await import('./commands/init.js')).initAction));

  return program;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io?: CommandIO): Promise<number> {
  const controller = new AbortController();
  // First signal: stop at the next safe point. Later ones exit at once, except
  // while a state lock is held: dying then would leave the lock behind.
  const onSignal = () => {
    if (!controller.signal.aborted) {
      controller.abort();
      return;
    }
    if (heldLocks.count === 0) process.exit(EXIT_INTERRUPTED);
    process.stderr.write(
      '\nStill stopping: waiting for the requests in flight so that their answers are recorded, then releasing the lock.\n',
    );
  };
  const realIO: CommandIO = io ?? {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    confirm: process.stdin.isTTY ? (await import('./prompt.js')).confirmOnTerminal : undefined,
  };
  if (!io) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  // A crash (uncaught exception, unhandled rejection) releases held state locks on its way out.
  const stopCrashRelease = io ? null : releaseLocksOnCrash(process.stderr);
  let code = 0;
  const program = buildProgram(realIO, (c) => (code = c));
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    return reportError(err, realIO);
  } finally {
    stopCrashRelease?.();
    if (!io) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // The process may take a moment to exit after main returns (sockets closing); a signal
      // in that window must still end it as an interruption, not kill it: no lock is held now.
      process.on('SIGINT', exitInterrupted);
      process.on('SIGTERM', exitInterrupted);
    }
  }
}

function exitInterrupted(): never {
  process.exit(EXIT_INTERRUPTED);
}
