/**
 * CLI: commander wiring only. Parses arguments, lazily loads the command's
 * module (so --help and --version stay cheap), runs it with a CommandIO and
 * maps typed errors to exit codes. Exit codes: 0 success, 1 error,
 * 2 plan has changes (with --detailed-exitcode), 3 not formatted (fmt
 * --check), 4 a saved plan refused (apply or show PLANFILE).
 */
import { Command, CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { createRequire } from 'node:module';
import { EXIT_INTERRUPTED, EXIT_OUTPUT_CLOSED, stopExitCode, stopRequested, type CommandIO } from './io.js';
import { guardOutput, watchSignals, type GuardedOutput } from './process.js';
import { releaseLocksOnCrash } from './crash.js';
import { cutEchoes, reportError } from './errors.js';
import * as def from './definitions.js';
import { KIND_WORDS } from './kind-words.js';
import { isFleetRun, type FleetFlags, type SingleRun } from './fleet-flags.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

/**
 * A commander error in the CLI's own form: "Error: …" like every other error,
 * and for a long option written with one dash (Terraform style), the
 * two-dash spelling.
 */
function commanderMessage(text: string, known: ReadonlySet<string>): string {
  const message = cutEchoes(tokenOptionMessage(text.replace(/^error: /, 'Error: ')));
  const single = /unknown option '-([a-z][a-z-]+)'/.exec(message);
  if (!single || !known.has(`--${single[1]}`)) return message;
  return message.replace(/\n?$/, ` (did you mean --${single[1]}? long options take two dashes)\n`);
}

/**
 * There is no --token: a token on the command line ends up in the shell's
 * history and in every process list. Its error says what to use instead,
 * and never repeats a value given as --token=VALUE.
 */
function tokenOptionMessage(message: string): string {
  if (!/unknown option '--token(?:=[^']*)?'/.test(message)) return message;
  return message
    .replace(/'--token=[^']*'/, "'--token=…'")
    .replace(
      /\n?$/,
      ' (there is no --token: a token on the command line ends up in the shell history and in `ps`; put it in a file and pass --token-file FILE, or set TENANTFORM_TOKEN)\n',
    );
}

/** Every long option of the program and its subcommands. */
function longOptions(cmd: CommandUnknownOpts, out = new Set<string>()): Set<string> {
  for (const option of cmd.options) if (option.long) out.add(option.long);
  for (const sub of cmd.commands) longOptions(sub, out);
  return out;
}

/** Wraps a lazily loaded action: runs it with the CommandIO and sets the exit code. */
type Runner = <A extends unknown[]>(
  load: () => Promise<(...args: [...A, CommandIO]) => Promise<number>>,
) => (...args: A) => Promise<void>;

/**
 * Whether a run that asked for several environments runs them (the command
 * may refuse the flags, or take the run as its own: apply of a saved plan).
 */
type Several<F> = (paths: string[], flags: F, io: CommandIO, asked: boolean) => boolean;

/**
 * plan and apply: with several environments (--env A --env B, --all-envs)
 * fleet.ts runs them, each as the command's own run, with output `style`;
 * otherwise `single` runs. `several` has the last word (apply's).
 */
function perEnvironment<F extends FleetFlags>(
  style: 'plan' | 'apply',
  single: SingleRun<F>,
  several: Several<F> = (_paths, _flags, _io, asked) => asked,
): SingleRun<F> {
  return async (paths, flags, cmd, io) =>
    several(paths, flags, io, isFleetRun(flags))
      ? (await import('./fleet.js')).runFleet(style, paths, flags, io)
      : single(paths, flags, cmd, io);
}

/**
 * Every command, by the word that names it on the command line, in the order
 * help lists them: each defines itself (src/cli/definitions.ts) with an
 * action that loads its module only when it runs.
 */
const COMMANDS: Record<string, (program: Command, run: Runner) => void> = {
  validate: (p, run) =>
    def
      .validateCommand(p)
      .action(run(async () => (await import('./commands/validate-cli.js')).validateAction)),
  explain: (p, run) =>
    def.explainCommand(p).action(run(async () => (await import('./commands/explain.js')).explainAction)),
  simulate: (p, run) =>
    def.simulateCommand(p).action(run(async () => (await import('./commands/simulate.js')).simulateAction)),
  fmt: (p, run) => def.fmtCommand(p).action(run(async () => (await import('./commands/fmt.js')).fmtAction)),
  plan: (p, run) =>
    def
      .planCommand(p)
      .action(run(async () => perEnvironment('plan', (await import('./commands/plan.js')).planAction))),
  apply: (p, run) =>
    def.applyCommand(p).action(
      run(async () => {
        const { applyAction, runsSeveral } = await import('./commands/apply.js');
        return perEnvironment('apply', applyAction, runsSeveral);
      }),
    ),
  destroy: (p, run) =>
    def.destroyCommand(p).action(run(async () => (await import('./commands/apply.js')).destroyAction)),
  import: (p, run) =>
    def.importCommand(p).action(run(async () => (await import('./commands/import.js')).importAction)),
  refresh: (p, run) =>
    def.refreshCommand(p).action(run(async () => (await import('./commands/refresh.js')).refreshAction)),
  export: (p, run) =>
    def.exportCommand(p).action(run(async () => (await import('./commands/export.js')).exportAction)),
  show: (p, run) =>
    def.showCommand(p).action(run(async () => (await import('./commands/show.js')).showAction)),
  state: (p, run) => {
    const state = def.stateCommand(p);
    const load = () => import('./commands/state.js');
    def.stateListCommand(state).action(run(async () => (await load()).stateListAction));
    def.stateShowCommand(state).action(run(async () => (await load()).stateShowAction));
    def.stateRmCommand(state).action(run(async () => (await load()).stateRmAction));
    def.stateRescueCommand(state).action(run(async () => (await load()).stateRescueAction));
    def.stateRepairCommand(state).action(run(async () => (await load()).stateRepairAction));
    def.stateMigrateCommand(state).action(run(async () => (await load()).stateMigrateAction));
  },
  'force-unlock': (p, run) =>
    def
      .forceUnlockCommand(p)
      .action(run(async () => (await import('./commands/state.js')).forceUnlockAction)),
  emulator: (p, run) =>
    def
      .emulatorCommand(p)
      .action(run(async () => (await import('./commands/emulator-cli.js')).emulatorAction)),
  envs: (p, run) =>
    def.envsCommand(p).action(run(async () => (await import('./commands/envs.js')).envsAction)),
  init: (p, run) =>
    def.initCommand(p).action(run(async () => (await import('./commands/init.js')).initAction)),
};

/**
 * The command a run names (argv[2]) when it is one of ours: only that one
 * needs defining. Anything else (no command, an option such as --help or
 * --version, `help`, a mistyped word) gets the whole program, so that help
 * and suggestions list every command.
 */
function namedCommand(argv: readonly string[]): string | undefined {
  const word = argv[2];
  return word !== undefined && Object.hasOwn(COMMANDS, word) ? word : undefined;
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
  const run: Runner =
    <A extends unknown[]>(load: () => Promise<(...args: [...A, CommandIO]) => Promise<number>>) =>
    async (...args: A) => {
      const fn = await load();
      // commander passes (...arguments, options, command): the options are next to last.
      const { checkSharedFlags } = await import('./flag-checks.js');
      checkSharedFlags(args[args.length - 2] as Record<string, unknown>, io.cwd);
      setExit(await fn(...args, io));
    };

  program
    .description(`Manage an identity tenant's ${KIND_WORDS.phrase} as code.`)
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

Exit codes: 0 success, 1 error, 2 changes present (plan --detailed-exitcode), 3 not formatted (fmt --check),
4 saved plan refused, nothing sent (apply PLANFILE, show PLANFILE), 130 interrupted (Ctrl+C),
141 output closed (e.g. | head).`,
    );

  for (const [word, define] of Object.entries(COMMANDS)) if (want(word)) define(program, run);

  return program;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io?: CommandIO): Promise<number> {
  if (io) return runProgram(argv, io);
  const controller = new AbortController();
  const output = guardOutput(controller);
  const stopSignals = watchSignals(controller, output.stderr);
  // A crash (uncaught exception, unhandled rejection) releases held state locks on its way out.
  const stopCrashRelease = releaseLocksOnCrash(output.stderr);
  try {
    const code = await runProgram(argv, {
      stdout: output.stdout,
      stderr: output.stderr,
      env: process.env,
      cwd: process.cwd(),
      signal: controller.signal,
      confirm: process.stdin.isTTY ? (await import('./prompt.js')).confirmOnTerminal : undefined,
    });
    return closedOutputCode(code, output);
  } finally {
    stopCrashRelease();
    // The process may take a moment to exit after main returns (sockets closing); a signal
    // in that window must still end it as an interruption, not kill it: no lock is held now.
    stopSignals();
  }
}

/**
 * A command that ran to its end although Ctrl+C or SIGTERM came meanwhile
 * (synchronous work, such as parsing a large file, holds the signal until it
 * is done) still ends as interrupted: 130, never a success. The emulator's
 * clean stop on a signal is its success (0).
 */
function honourStop(code: number, io: CommandIO, argv: readonly string[]): number {
  const stop = stopRequested(io.signal);
  if (!stop || stop.kind !== 'signal' || namedCommand(argv) === 'emulator') return code;
  return code === EXIT_INTERRUPTED || code === EXIT_OUTPUT_CLOSED ? code : stopExitCode(stop);
}

/** Parses and runs one command line with `io`; returns the exit code. */
async function runProgram(argv: string[], io: CommandIO): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => (code = c), argv);
  try {
    await program.parseAsync(argv);
    return honourStop(code, io, argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    return reportError(err, io);
  }
}

/**
 * A run whose output was cut short (its reader went away) never exits 0:
 * it says so on the stream that still works and exits 141. A failure keeps
 * its own code.
 */
function closedOutputCode(code: number, output: GuardedOutput): number {
  const closed = output.closed();
  if (closed === null || code !== 0) return code;
  output.stderr.write(`tenantform: ${closed} was closed before everything was written.\n`);
  return EXIT_OUTPUT_CLOSED;
}

export { exitWhenFlushed } from './process.js';
