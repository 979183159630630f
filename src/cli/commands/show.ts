/**
 * tenantform show [PLANFILE | PATH] [--format text|markdown|json|terraform-json]
 *
 * With a plan file saved by `plan --out`: prints that plan exactly as `plan`
 * printed it (CI posts the plan that will be applied), once its seal holds
 * under the plan key of the state it names; an edited, unsealed or
 * unknown-version file is refused (exit 4), as apply refuses it. Otherwise: prints the state
 * located by PATH (default ".") with every resource's attributes.
 * Reads only; takes no lock and sends no request.
 */
import { existsSync } from 'node:fs';
import { CliError, type CommandIO } from '../io.js';
import { absolute, stateRequestOf } from '../context.js';
import { openInputStore, resolveInputs } from '../inputs.js';
import { writePlan } from '../plan-output.js';
import { looksLikePlanFile } from './apply.js';
import type { ShowFlags } from '../definitions.js';

export async function showAction(
  target: string | undefined,
  flags: ShowFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const plan = await import('../../plan/index.js');
  if (target !== undefined && !existsSync(absolute(target, io))) {
    throw new CliError(
      `${target} does not exist: show takes a plan file saved by plan --out, or a config path locating the state`,
    );
  }
  if (target !== undefined && looksLikePlanFile(absolute(target, io))) {
    // The seal first, with the plan key of the state the plan names: an edited plan is never shown as the one apply runs.
    const { openSealedPlan, refusedPlanExit } = await import('../saved-plan.js');
    const { saved, store } = await refusedPlanExit(() => openSealedPlan(target, stateRequestOf(flags), io));
    await store.close();
    // What apply would act on, for a reviewer: the state the plan was made from and the target it recorded,
    // on stderr as plan says them, so that stdout is the plan exactly as plan printed it.
    const { describeStateLocation } = await import('../../state/index.js');
    const { whereLines } = await import('../where.js');
    const recorded =
      saved.target ?? 'none recorded (apply sends to the one its command line or environment names)';
    io.stderr.write(whereLines(describeStateLocation(saved.stateLocation), recorded));
    const made = { at: saved.createdAt, toolVersion: saved.toolVersion };
    await writePlan(saved.plan, flags.format, io, flags.verbose, made);
    return 0;
  }
  if (flags.format === 'terraform-json') {
    throw new CliError(
      `--format terraform-json shows a plan file saved by plan --out; ${target ?? '.'} is not one (for the state, use --format json)`,
    );
  }
  const { readStateSnapshot } = await import('../../state/index.js');
  const input = resolveInputs([target ?? '.'], flags.env, [], io, 'one')[0]!;
  const store = await openInputStore(flags, input, io);
  let doc;
  try {
    doc = await readStateSnapshot(store);
  } finally {
    await store.close();
  }
  if (flags.format === 'json') io.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  else if (flags.format === 'markdown') io.stdout.write(plan.renderStateMarkdown(doc));
  else io.stdout.write(plan.renderStateText(doc));
  return 0;
}
