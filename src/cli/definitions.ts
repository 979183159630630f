/**
 * What each command accepts: its arguments, flags and help, defined once with
 * commander (through @commander-js/extra-typings). The flag types the command
 * modules take (`PlanFlags`, `ApplyFlags`, …) are derived from these
 * definitions, so a flag added, renamed or given a default here changes the
 * type the command reads, and the compiler points at every use. main.ts
 * attaches each definition to the program and its action to a lazily loaded
 * command module.
 */
import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { RATE_LIMIT_MODELS, RATE_LIMIT_TIER_NAMES, tierLines } from '../emulator/rate-limit-options.js';
import { KIND_WORDS } from './kind-words.js';

/** The options object commander hands a command's action, for a definition below. */
export type FlagsOf<D extends (parent: Command) => { opts(): OptionValues }> = ReturnType<
  ReturnType<D>['opts']
>;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --format, one of `choices`; text unless given. */
function formatOption<const T extends readonly ['text', ...string[]]>(choices: T) {
  return new Option('--format <FORMAT>', 'output format').choices(choices).default('text' as const);
}

const ENV_HELP = 'environment from the tenantform.yaml project file in PATH';

const STRICT_HELP =
  'treat every guardrail warning as an error (exit 1), for CI; rules and their settings: docs/reviewing-policy-changes.md';

/** --var and --var-file. */
function varOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option('--var <NAME=VALUE>', 'set a variable used as ${NAME} in the config (repeatable)', collect, [])
    .option('--var-file <FILE>', 'read variables from a YAML mapping (repeatable)', collect, []);
}

/** One --env. */
function envOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd.option('--env <NAME>', ENV_HELP);
}

/** --env repeatable, --all-envs and --env-parallelism (plan, apply: several environments in one run). */
function envsOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option('--env <NAME>', `${ENV_HELP} (repeatable: several run concurrently)`, collect)
    .option('--all-envs', 'every environment of the tenantform.yaml project file in PATH')
    .addOption(
      new Option(
        '--env-parallelism <N>',
        'environments run at once with several --env or --all-envs',
      ).default('4', '4'),
    );
}

/** Where the state is. */
function stateOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .option(
      '--state <FILE>',
      'state file (default: in .tenantform/ beside the config, one per environment or target)',
    )
    .addOption(new Option('--backend <KIND>', 'state backend (default: file)').choices(['file', 'pg']))
    .option(
      '--backend-config <KEY=VALUE>',
      'backend setting, e.g. conn=postgres://… (repeatable)',
      collect,
      [],
    )
    .option('--workspace <NAME>', 'pg backend: workspace, one per tenant or environment (default: default)');
}

/** --lock-timeout, for the commands that take the state lock. */
function lockOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd.addOption(
    new Option('--lock-timeout <DURATION>', 'wait this long for the state lock (e.g. 30s, 2m)').default(
      '0s',
      '0s, fail at once',
    ),
  );
}

/** What apply and destroy share about running the operations. */
function runOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  const run = cmd
    .option('--auto-approve', 'do not ask for confirmation (required when not on a terminal)')
    .addOption(new Option('--parallelism <N>', 'concurrent operations').default('10', '10'))
    .addOption(
      new Option(
        '--batch-size <N>',
        "resources per request where one request carries several (a user's permissions)",
      ).default('100', '100'),
    )
    .addOption(new Option('--permission-batch-size <N>', 'the former name of --batch-size').hideHelp());
  // The former name still works: it sets --batch-size, the later of the two winning.
  run.on('option:permission-batch-size', (value: string) =>
    run.setOptionValueWithSource('batchSize', value, 'cli'),
  );
  return run;
}

const JSON_HELP =
  'print the plan summary, each operation and the outcome as JSON lines (schemas/apply-event.schema.json); needs --auto-approve';

const VERBOSE_HELP =
  "every change's attributes, and apply's progress line by line, however many changes (above 50 the text plan is one line per change and apply reports progress in steps of a tenth)";

/** --target (plan, apply, destroy). */
function targetOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd.option(
    '--target <ADDRESS>',
    'limit the plan to this resource (repeatable); the plan says it is partial',
    collect,
    [],
  );
}

/** --target and --replace, on plan and apply. */
function selectionOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return targetOption(cmd).option(
    '--replace <ADDRESS>',
    'replace this resource (delete, then create) even though nothing changed (repeatable)',
    collect,
    [],
  );
}

/** A state subcommand's config path (which locates the default state file), --env and the state options. */
function locatedState<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return stateOptions(envOption(cmd.argument('[path]', 'config path (locates the default state file)', '.')));
}

/** Where the API is, how to authenticate, how fast to go. */
function connectionOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
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
      'read the bearer token from a file (or env TENANTFORM_TOKEN, AUTH0_ACCESS_TOKEN); there is no --token: a token on the command line ends up in shell history and `ps`',
    )
    .option('--audience <URL>', 'client-credentials audience (default https://DOMAIN/api/v2/)')
    .option(
      '--reassign-tenant',
      'the state is bound to the tenant it was applied to; act on another target anyway and bind the state to it (only when those very resources moved there)',
    )
    .option('--max-rps <N>', 'never send more than N requests per second')
    .option(
      '--max-rate <PERCENT>',
      "use at most this share of the tenant's sustained rate limit, as learned from its answers, e.g. 30% to leave the rest to its other clients (default: 100%)",
    )
    .addOption(
      new Option(
        '--rate-limit-timeout <DURATION>',
        'a 429 is waited out and retried without a cap on attempts; stop once the tenant has answered nothing but 429 for this long (e.g. 15m)',
      ).default('5m', '5m'),
    )
    .option(
      '--debug',
      'log each request: method, path, status, duration, rate-limit headers (secrets redacted)',
    );
}

/** --api: which operations the tenant offers. */
function apiOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd.addOption(
    new Option(
      '--api <PROFILE>',
      "the tenant's API profile: spec (the spec's four operations) or full (also update, delete, list and get); default: the environment's api in tenantform.yaml, else spec",
    ).choices(['spec', 'full'] as const),
  );
}

/** --refresh, on plan and apply. */
const REFRESH_HELP =
  'read the tenant first (API profile full) and plan against what is live: shows drift (changed or deleted outside tenantform, not managed) and stops on a config reference the tenant lacks (client id, Action, permission); a reference list the token may not read (403) is a warning, an error with --strict';

export const validateCommand = (parent: Command) =>
  connectionOptions(
    apiOption(
      envOption(
        varOptions(
          parent
            .command('validate')
            .description(
              'check the config against the API schemas and the guardrails; print every error and warning as file:line:col (sends no request unless --live)',
            )
            .argument('[paths...]', 'config files or directories, merged (default: .)')
            .option('--strict', STRICT_HELP)
            .addOption(formatOption(['text', 'json', 'github']))
            .option(
              '--live',
              "also check the config's references against the tenant (API profile full; one environment): client_id: selectors name applications, action_ids deployed Actions bound to custom-token-exchange, permissions exist on their APIs; only reads; a list the token may not read (403) is a warning, an error with --strict",
            ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    '\nExamples:\n  $ tenantform validate examples\n  $ tenantform validate examples --env prod --format github\n  $ tenantform validate rules/ --var-file vars/prod.yaml --var LOGIN_LIMIT=300\n  $ tenantform validate examples --env prod --live --api full   # references checked against the tenant',
  );
export type ValidateFlags = FlagsOf<typeof validateCommand>;

export const explainCommand = (parent: Command) =>
  connectionOptions(
    apiOption(
      envOption(
        varOptions(
          parent
            .command('explain')
            .description(
              "say which rate limit policy governs an application (its own, its group's, default) and which applications a policy governs; offline, from the config",
            )
            .argument('[paths...]', 'config files or directories, merged (default: .)')
            .option(
              '--client <ID>',
              'a client id: the policy that governs it, its action and limit, and whose counter it uses (repeatable); tpa_… ids are third-party applications, https:// ids CIMD clients',
              collect,
              [],
            )
            .option(
              '--policy <SELECTOR>',
              'a consumer_selector (default, third_party_clients, cimd_clients, client_id:ID) or a policy address: the applications it governs (repeatable)',
              collect,
              [],
            )
            .option(
              '--all-clients',
              "read the tenant's applications (API profile full; GET /clients, paged) and explain every one, with its name, and which of them each policy governs",
            )
            .addOption(formatOption(['text', 'markdown', 'json'])),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    `\nWith neither --client nor --policy, every policy of the config and what it governs.

Examples:
  $ tenantform explain examples --env prod --client Wq2eR5tY8uI1oP4aS7dF0gH3jK6lZ9xC --client tpa_partner42
  $ tenantform explain examples --env prod --policy third_party_clients --client tpa_partner42
  $ tenantform explain examples --env dev --format markdown
  $ tenantform explain examples --env prod --all-clients --api full   # every application of the tenant`,
  );
export type ExplainFlags = FlagsOf<typeof explainCommand>;

export const fmtCommand = (parent: Command) =>
  parent
    .command('fmt')
    .description('rewrite config files in the canonical layout (schema key order), keeping comments')
    .argument('[paths...]', 'config files or directories (default: .)')
    .option('--check', 'change nothing; exit 3 when a file is not formatted (for CI)')
    .option('--diff', 'print what changes, as a unified diff')
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform fmt                      # format every *.yaml below .\n  $ tenantform fmt examples --check --diff   # CI: exit 3 and show the diff when not formatted',
    );
export type FmtFlags = FlagsOf<typeof fmtCommand>;

export const planCommand = (parent: Command) =>
  connectionOptions(
    apiOption(
      selectionOptions(
        stateOptions(
          envsOptions(
            varOptions(
              parent
                .command('plan')
                .description('show what apply would change; sends no request (with --refresh, only reads)')
                .argument(
                  '[paths...]',
                  'config files or directories, merged (default: .); state lives beside the last',
                )
                .option('--out <PLANFILE>', 'save the plan for a later, exact apply')
                .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none')
                .option(
                  '--destroy',
                  'plan the removal of everything the state records (what destroy would do)',
                )
                .option('--refresh', `${REFRESH_HELP}; the only plan that sends requests (reads)`)
                .option('--verbose', VERBOSE_HELP)
                .option('--strict', STRICT_HELP)
                .addOption(formatOption(['text', 'json', 'markdown', 'terraform-json'])),
            ),
          ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    `\nExamples:\n  $ tenantform plan examples --env prod\n  $ tenantform plan examples --all-envs --format markdown > plan.md\n  $ tenantform plan examples --env prod --format markdown > plan.md\n  $ tenantform plan . --out release.tfplan --detailed-exitcode\n  $ tenantform plan . --target 'rate_limit_policy["oauth_authentication_api","client","default"]' --out hotfix.tfplan\n  $ tenantform plan . --replace 'rate_limit_policy["oauth_authentication_api","client","default"]'\n  $ tenantform plan . --destroy\n  $ tenantform plan . --api full                  # a tenant with update and delete operations`,
  );
export type PlanFlags = FlagsOf<typeof planCommand>;

export const applyCommand = (parent: Command) =>
  apiOption(
    connectionOptions(
      lockOption(
        stateOptions(
          envsOptions(
            varOptions(
              selectionOptions(
                runOptions(
                  parent
                    .command('apply')
                    .description('make the changes through the API and record them in state')
                    .argument(
                      '[paths...]',
                      'config files or directories (default: .), or one plan file saved by plan --out (its seal is checked first; its target must also be given: --base-url/--domain, the environment, or --env)',
                    ),
                )
                  .option('--skip-blocked', 'apply the other changes when some are blocked')
                  .option('--refresh', REFRESH_HELP)
                  .option('--verbose', VERBOSE_HELP)
                  .option('--strict', `${STRICT_HELP}; with a saved plan, refuse it when it holds warnings`)
                  .option('--json', JSON_HELP),
              ),
            ),
          ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    `\nExamples:\n  $ TENANTFORM_CLIENT_ID=… TENANTFORM_CLIENT_SECRET=… tenantform apply examples --env prod --domain tenant.example.com\n  $ tenantform apply release.tfplan --auto-approve --base-url http://127.0.0.1:4000/api/v2\n  $ tenantform apply release.tfplan --auto-approve --env prod          # target and credentials of ./tenantform.yaml's prod\n  $ tenantform apply examples --env dev --env staging --auto-approve\n  $ tenantform apply . --target 'token_exchange_profile["urn:partner:token"]'\n  $ tenantform apply . --replace 'rate_limit_policy["oauth_authentication_api","client","default"]'\n  $ tenantform apply release.tfplan --auto-approve --json | jq -c 'select(.type == "failed")'`,
  );
export type ApplyFlags = FlagsOf<typeof applyCommand>;

export const destroyCommand = (parent: Command) =>
  apiOption(
    connectionOptions(
      lockOption(
        stateOptions(
          envOption(
            varOptions(
              targetOption(
                runOptions(
                  parent
                    .command('destroy')
                    .description(
                      'remove everything the state records: delete what the API can delete, forget (and leave on the tenant) the rest',
                    )
                    .argument(
                      '[paths...]',
                      'config path that locates the state (default: .); the config itself is not read',
                    ),
                )
                  .option('--skip-blocked', 'remove the rest when some removals are blocked (no recorded id)')
                  .option('--verbose', VERBOSE_HELP)
                  .option('--json', JSON_HELP),
              ),
            ),
          ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    `\nExamples:\n  $ tenantform plan test-tenant --destroy                 # preview\n  $ tenantform destroy test-tenant --base-url http://127.0.0.1:4000/api/v2\n  $ tenantform destroy . --auto-approve --target 'rate_limit_policy["oauth_authentication_api","client","default"]'\n  $ tenantform destroy . --api full      # deletes profiles and permissions too`,
  );
export type DestroyFlags = FlagsOf<typeof destroyCommand>;

export const importCommand = (parent: Command) =>
  apiOption(
    connectionOptions(
      lockOption(
        stateOptions(
          envOption(
            varOptions(
              parent
                .command('import')
                .description(
                  'attach a server id to a resource, e.g. one adopted through 409; without an id (API profile full) it is looked up on the tenant',
                )
                .argument('<kind-or-address>', `${KIND_WORDS.importKinds}, or a full address`)
                .argument('[identity]', `identity: ${KIND_WORDS.importIdentities}`)
                .argument(
                  '[id]',
                  `the id on the tenant (${KIND_WORDS.idPrefixes}); omitted: looked up by identity (API profile full)`,
                )
                .option('--config <PATH>', 'config to take the attributes from', '.'),
            ),
          ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    `\nExamples:\n  $ tenantform import rate_limit_policy oauth_authentication_api/client/default rlp_abc123\n  $ tenantform import 'token_exchange_profile["urn:partner:token"]' tep_xyz\n  $ tenantform import 'rate_limit_policy["oauth_authentication_api","client","default"]' --api full`,
  );
export type ImportFlags = FlagsOf<typeof importCommand>;

export const refreshCommand = (parent: Command) =>
  apiOption(
    connectionOptions(
      lockOption(
        stateOptions(
          envOption(
            varOptions(
              parent
                .command('refresh')
                .description(
                  'read the tenant (API profile full) and update the state to what is live; plans and changes nothing on the tenant',
                )
                .argument(
                  '[paths...]',
                  'config files or directories (default: .); they name the users whose permissions are read',
                )
                .addOption(new Option('--parallelism <N>', 'lists read at once').default('10', '10')),
            ),
          ),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    '\nExamples:\n  $ tenantform refresh . --api full\n  $ tenantform refresh examples --env prod',
  );
export type RefreshFlags = FlagsOf<typeof refreshCommand>;

export const exportCommand = (parent: Command) =>
  apiOption(
    connectionOptions(
      lockOption(
        stateOptions(
          parent
            .command('export')
            .description(
              "write the tenant's policies and profiles (and the permissions of the users named) as config files, and record them in the state (API profile full); or those of a Terraform state or a Deploy CLI export, to switch in one command",
            )
            .argument('<dir>', 'directory to write the config files into (created when missing)')
            .option(
              '--from-terraform <STATE>',
              "read a Terraform state (format 4) instead of the tenant: the auth0 provider's policies, profiles and permissions, with their ids; other types are skipped, sensitive values never copied",
            )
            .option(
              '--from-deploy-cli <PATH>',
              'read an Auth0 Deploy CLI export (its YAML file or its directory) instead of the tenant: rateLimitPolicies and tokenExchangeProfiles; their ids are looked up on the tenant under --api full, and left for tenantform import under spec',
            )
            .option(
              '--action-id <NAME=ID>',
              'with --from-deploy-cli: the id of the Action of this name (repeatable); without it, --api full finds it by name on the tenant',
              collect,
              [],
            )
            .option('--user <USER_ID>', 'also export the permissions of this user (repeatable)', collect, [])
            .option(
              '--users-file <FILE>',
              'also export the permissions of the users in this file (one id a line)',
            )
            .option('--no-state', 'only write the files; record nothing in the state')
            .option('--force', 'overwrite config files of the same names in the directory')
            .addOption(new Option('--parallelism <N>', 'lists read at once').default('10', '10')),
        ),
      ),
    ),
  ).addHelpText(
    'after',
    "\nExamples:\n  $ tenantform export tenant-config --api full --user 'auth0|5f7c8ec7c33c6c004bbafe82'\n  $ tenantform export tenant-config --api full --users-file admins.txt --no-state\n  $ tenantform export tenant-config --from-terraform terraform.tfstate\n  $ tenantform export tenant-config --from-deploy-cli tenant.yaml --api full\n  $ tenantform export tenant-config --from-deploy-cli deploy-export/ --action-id 'partner-token-check=a1b2c3d4-0000-4000-8000-00000000cafe'",
  );
export type ExportFlags = FlagsOf<typeof exportCommand>;

export const showCommand = (parent: Command) =>
  stateOptions(
    envOption(
      parent
        .command('show')
        .description('print a saved plan exactly as plan printed it, or the state with attributes')
        .argument(
          '[planfile-or-path]',
          'a plan file saved by plan --out, or a config path locating the state (default: .)',
        )
        .option('--verbose', "every change's attributes in a text plan, however many changes")
        .addOption(formatOption(['text', 'json', 'markdown', 'terraform-json'])),
    ),
  ).addHelpText(
    'after',
    "\nExamples:\n  $ tenantform show release.tfplan --format markdown > plan.md   # the plan apply will run\n  $ tenantform show release.tfplan --format terraform-json > plan.json   # for tools that read terraform show -json\n  $ tenantform show examples --env prod                         # the recorded state\n\n--format terraform-json: Terraform's JSON plan representation (format_version 1.2) with the auth0\nprovider's type names; tenantform's own fields under \"tenantform\". Plan files only.",
  );
export type ShowFlags = FlagsOf<typeof showCommand>;

export const stateCommand = (parent: Command) =>
  parent
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

export const stateListCommand = (parent: Command) =>
  locatedState(parent.command('list').description('list recorded resources')).addHelpText(
    'after',
    '\nExample:\n  $ tenantform state list examples/prod',
  );
export type StateListFlags = FlagsOf<typeof stateListCommand>;

export const stateShowCommand = (parent: Command) =>
  locatedState(
    parent
      .command('show')
      .description('show one recorded resource')
      .argument('<address>', 'e.g. token_exchange_profile["urn:partner:token"]'),
  ).addHelpText(
    'after',
    `\nExample:\n  $ tenantform state show 'token_exchange_profile["urn:partner:token"]'`,
  );
export type StateShowFlags = FlagsOf<typeof stateShowCommand>;

export const stateRmCommand = (parent: Command) =>
  lockOption(
    locatedState(
      parent
        .command('rm')
        .description('stop tracking a resource (it stays on the tenant)')
        .argument('<address>', 'the resource address'),
    ),
  ).addHelpText(
    'after',
    `\nExample:\n  $ tenantform state rm 'user_permission["auth0|1","https://api/","read:x"]'`,
  );
export type StateRmFlags = FlagsOf<typeof stateRmCommand>;

export const stateRescueCommand = (parent: Command) =>
  lockOption(
    locatedState(
      parent
        .command('rescue')
        .description(
          'record operations the tenant acknowledged but a failed apply could not record (a rescue file, or a log with tenantform-rescue: lines)',
        )
        .argument('<file>', 'the rescue file the failed apply named, or a saved CI log'),
    ),
  ).addHelpText(
    'after',
    '\nExamples:\n  $ tenantform state rescue examples/prod/.tenantform/state.json.rescue-20261123T034501Z-4242-1a2b3c.json examples/prod\n  $ tenantform state rescue ci-apply.log examples --env prod',
  );
export type StateRescueFlags = FlagsOf<typeof stateRescueCommand>;

export const stateRepairCommand = (parent: Command) =>
  lockOption(
    locatedState(
      parent
        .command('repair')
        .description(
          'rewrite a damaged state journal keeping every complete entry (the damaged one is saved beside it)',
        ),
    ),
  ).addHelpText('after', '\nExample:\n  $ tenantform state repair examples/prod');
export type StateRepairFlags = FlagsOf<typeof stateRepairCommand>;

export const stateMigrateCommand = (parent: Command) =>
  parent
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
    );
export type StateMigrateFlags = FlagsOf<typeof stateMigrateCommand>;

export const forceUnlockCommand = (parent: Command) =>
  locatedState(
    parent.command('force-unlock').description('remove a stale state lock left by a process that is gone'),
  )
    .option(
      '--force',
      'remove the lock even when its holder may still run (this host: its pid runs; another host: it cannot be checked); asks first on a terminal',
    )
    .addHelpText('after', '\nExample:\n  $ tenantform force-unlock examples/prod');
export type ForceUnlockFlags = FlagsOf<typeof forceUnlockCommand>;

const EMULATOR_HELP = `
Examples:
  $ tenantform emulator --port 4000
  $ tenantform emulator --rate-limit-tier enterprise-nonprod
  $ tenantform emulator --rate-limit 500 --burst 40 --rate-limit-window 60 --clock-skew -2.5
  $ tenantform emulator --port 4100 --tenants dev,staging,prod --rate-limit 25
  $ tenantform emulator --rate-limit 20 --faults error=0.1 --json
  $ tenantform emulator --api full       # also PATCH, DELETE and the reads, as the real service
  $ tenantform emulator --api full --seed tenant.yaml   # with your applications, Actions and APIs

Rate limit, window model (the service's public docs): one bucket per tenant holds at most
the burst; the rate is added at the top of each window of the tenant's clock, never above
the burst. X-RateLimit-Limit is the burst, X-RateLimit-Remaining the requests left,
X-RateLimit-Reset the Unix second (tenant's time) at which requests are next added.
Published tiers (--rate-limit-tier):
${tierLines()
  .map((line) => `  ${line}`)
  .join('\n')}`;

export const emulatorCommand = (parent: Command) =>
  parent
    .command('emulator')
    .description('run a local emulator of the Tenant Management API')
    .addOption(new Option('--host <HOST>', 'address to listen on').default('127.0.0.1', '127.0.0.1'))
    .addOption(new Option('--port <N>', 'port').default('0', '0, a free one'))
    .option(
      '--rate-limit <N>',
      'sustained rate: requests added per window, i.e. per second unless --rate-limit-window (default: unlimited)',
    )
    .option('--burst <N>', 'bucket size: requests that may go at once (default: N)')
    .option(
      '--rate-limit-window <SECONDS>',
      'window length in whole seconds: 1 (default), 60 for a per-minute limit',
    )
    .addOption(
      new Option(
        '--rate-limit-model <MODEL>',
        'window (default, as the service documents): N added at the top of each window, Reset = the next addition; continuous: N spread evenly, Reset = when full',
      ).choices(RATE_LIMIT_MODELS),
    )
    .addOption(
      new Option(
        '--rate-limit-tier <TIER>',
        'a published tier: sets burst, rate and window, so not with --rate-limit, --burst or --rate-limit-window',
      ).choices(RATE_LIMIT_TIER_NAMES),
    )
    .option(
      '--rate-limit-scope <SCOPE>',
      'who shares the bucket: tenant (default; all its clients, as the real service) or client',
    )
    .option(
      '--clock-skew <SECONDS>',
      "the tenant's clock runs this far ahead of this machine's (negative: behind; fractions allowed): its Date, X-RateLimit-Reset and timestamps follow it",
    )
    .option(
      '--date-header <MODE>',
      "the Date header: second (default: a front end's second, refreshed once a second, so up to a second stale, as real servers stamp it), exact (the second of each answer) or absent",
    )
    .option(
      '--front-end-offset <SECONDS>',
      "the clock that stamps Date runs this far ahead of the rate limiter's (negative: behind; fractions allowed; at most 60)",
    )
    .option('--latency <MS[:JITTER]>', 'delay every API response')
    .option('--faults <SPEC>', 'fractions of requests that fail, e.g. error=0.2,reset=0.1,lost=0.05')
    .option('--users <FILE>', 'only these user ids exist (one per line); others get 404')
    .option('--data <FILE>', 'persist the tenant to this file across restarts (with --tenants: a directory)')
    .option(
      '--seed <FILE>',
      'start with this tenant: JSON or YAML shaped like GET /__emulator/state (e.g. clients, actions, resourceServers under --api full); not with --data',
    )
    .option(
      '--tenants <N|NAMES>',
      'host several tenants (t1..tN, or a comma-separated list), each on its own port from --port on',
    )
    .option(
      '--tls',
      'serve HTTPS with a certificate from a CA made at start; its file is printed (for NODE_EXTRA_CA_CERTS)',
    )
    .addOption(
      new Option(
        '--api <PROFILE>',
        "operations served: spec (the spec's four) or full (also update, delete, list and get)",
      )
        .choices(['spec', 'full'] as const)
        .default('spec' as const, 'spec'),
    )
    .option('--json', 'print one JSON line with base_url and credentials once listening')
    .addHelpText('after', EMULATOR_HELP);
export type EmulatorFlags = FlagsOf<typeof emulatorCommand>;

export const envsCommand = (parent: Command) =>
  parent
    .command('envs')
    .description('list the environments of tenantform.yaml, or those that changed files affect')
    .argument('[path]', 'the project directory (holding tenantform.yaml)', '.')
    .addOption(formatOption(['text', 'json', 'github-matrix']))
    .option(
      '--changed [files...]',
      'only the environments these changed files affect (paths from the current directory)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ tenantform envs examples\n  $ git diff --name-only origin/main... | xargs tenantform envs . --format github-matrix --changed',
    );
export type EnvsFlags = FlagsOf<typeof envsCommand>;

export const initCommand = (parent: Command) =>
  parent
    .command('init')
    .description('scaffold a config repository: an example per kind, .gitignore and a CI workflow')
    .argument('[dir]', 'directory to create or fill', '.')
    .option(
      '--force',
      'overwrite files that exist, and add the examples to a directory that already holds config files',
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ tenantform init tenant-config && cd tenant-config && tenantform validate',
    );
export type InitFlags = FlagsOf<typeof initCommand>;
