/**
 * CLI: commander wiring only. Parses arguments, lazily loads the command's
 * module (so --help and --version stay cheap), runs it with a CommandIO and
 * maps typed errors to exit codes. Exit codes: 0 success, 1 error,
 * 2 plan has changes (with --detailed-exitcode).
 */
import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { createRequire } from 'node:module';
import { EXIT_INTERRUPTED, heldLocks, type CommandIO } from './io.js';
import { releaseLocksOnCrash } from './crash.js';
import { reportError } from './errors.js';
import * as def from './definitions.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

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
function longOptions(cmd: CommandUnknownOpts, out = new Set<string>()): Set<string> {
  for (const option of cmd.options) if (option.long) out.add(option.long);
  for (const sub of cmd.commands) longOptions(sub, out);
  return out;
}

/** The commands, by the word that names them on the command line. */
const COMMAND_WORDS = new Set([
  'validate',
  'fmt',
  'plan',
  'apply',
  'destroy',
  'import',
  'refresh',
  'export',
  'show',
  'state',
  'force-unlock',
  'emulator',
  'envs',
  'init',
]);

/**
 * The command a run names (argv[2]) when it is one of ours: only that one
 * needs defining. Anything else (no command, an option such as --help or
 * --version, `help`, a mistyped word) gets the whole program, so that help
 * and suggestions list every command.
 */
function namedCommand(argv: readonly string[]): string | undefined {
  const word = argv[2];
  return word !== undefined && COMMAND_WORDS.has(word) ? word : undefined;
}

/** The program; with `argv`, only the command it names is defined (start-up). */
export function buildProgram(
  io: CommandIO,
  setExit: (code: number) => void,
  argv: readonly string[] = [],
): Command {
  const only = namedCommand(argv);
  const want = (word: string): boolean => only === undefined || only === word;
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

  if (want('validate'))
    def
      .validateCommand(program)
      .action(run(async () => (await import('./commands/validate-cli.js')).validateAction));
  if (want('fmt'))
    def.fmtCommand(program).action(run(async () => (await import('./commands/fmt.js')).fmtAction));
  if (want('plan'))
    def.planCommand(program).action(run(async () => (await import('./commands/plan.js')).planAction));
  if (want('apply'))
    def.applyCommand(program).action(run(async () => (await import('./commands/apply.js')).applyAction));
  if (want('destroy'))
    def.destroyCommand(program).action(run(async () => (await import('./commands/apply.js')).destroyAction));
  if (want('import'))
    def.importCommand(program).action(run(async () => (await import('./commands/import.js')).importAction));
  if (want('refresh'))
    def
      .refreshCommand(program)
      .action(run(async () => (await import('./commands/refresh.js')).refreshAction));
  if (want('export'))
    def.exportCommand(program).action(run(async () => (await import('./commands/export.js')).exportAction));
  if (want('show'))
    def.showCommand(program).action(run(async () => (await import('./commands/show.js')).showAction));

  if (want('state')) {
    const state = def.stateCommand(program);
    def
      .stateListCommand(state)
      .action(run(async () => (await import('./commands/state.js')).stateListAction));
    def
      .stateShowCommand(state)
      .action(run(async () => (await import('./commands/state.js')).stateShowAction));
    def.stateRmCommand(state).action(run(async () => (await import('./commands/state.js')).stateRmAction));
    def
      .stateRescueCommand(state)
      .action(run(async () => (await import('./commands/state.js')).stateRescueAction));
    def
      .stateRepairCommand(state)
      .action(run(async () => (await import('./commands/state.js')).stateRepairAction));
    def
      .stateMigrateCommand(state)
      .action(run(async () => (await import('./commands/state.js')).stateMigrateAction));
  }
  if (want('force-unlock'))
    def
      .forceUnlockCommand(program)
      .action(run(async () => (await import('./commands/state.js')).forceUnlockAction));

  if (want('emulator'))
    def
      .emulatorCommand(program)
      .action(run(async () => (await import('./commands/emulator-cli.js')).emulatorAction));
  if (want('envs'))
    def.envsCommand(program).action(run(async () => (await import('./commands/envs.js')).envsAction));
  if (want('init'))
    def.initCommand(program).action(run(async () => (await import('./commands/init.js')).initAction));

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
  const program = buildProgram(realIO, (c) => (code = c), argv);
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
