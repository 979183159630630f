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
import type { CommandIO } from '../io.js';
import { runIO } from '../context.js';
import { writePlan } from '../plan-output.js';
import { looksLikePlanFile } from './apply.js';
import type { ShowFlags } from '../definitions.js';
import { parseShowRequest } from '../local-requests.js';
import type { ShowRequest } from '../../run/local-requests.js';
import { readLocatedState } from '../../run/local-runs.js';

export async function showAction(
  target: string | undefined,
  flags: ShowFlags,
  _cmd: unknown,
  io: CommandIO,
): Promise<number> {
  const plan = await import('../../plan/index.js');
  const request = parseShowRequest(target, flags, io, looksLikePlanFile);
  if (request.kind === 'plan-file') return showPlanFile(request, io);
  const doc = await readLocatedState(request.located, runIO(io));
  const { format } = request.output;
  if (format === 'json') io.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  else if (format === 'markdown') io.stdout.write(plan.renderStateMarkdown(doc));
  else io.stdout.write(plan.renderStateText(doc));
  return 0;
}

/** A saved plan exactly as plan printed it, once its seal holds; what apply would act on, on stderr. */
async function showPlanFile(
  request: Extract<ShowRequest, { kind: 'plan-file' }>,
  io: CommandIO,
): Promise<number> {
  // The seal first, with the plan key of the state the plan names: an edited plan is never shown as the one apply runs.
  const { openPlanToShow } = await import('../../run/saved-plan.js');
  const { saved, store } = await openPlanToShow(request.file, request.state, runIO(io));
  await store.close();
  // What apply would act on, for a reviewer: the state the plan was made from and the target it recorded,
  // on stderr as plan says them, so that stdout is the plan exactly as plan printed it.
  const { describeStateLocation } = await import('../../state/index.js');
  const { whereLines } = await import('../where.js');
  const recorded =
    saved.target ?? 'none recorded (apply sends to the one its command line or environment names)';
  io.stderr.write(whereLines(describeStateLocation(saved.stateLocation), recorded));
  const made = { at: saved.createdAt, toolVersion: saved.toolVersion };
  await writePlan(saved.plan, request.output.format, io, request.output.verbose, made);
  return 0;
}
