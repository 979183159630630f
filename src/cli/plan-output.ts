import type { Plan } from '../plan/types.js';
import { writeChunks, type CommandIO } from './io.js';
import { flagOf } from './run-words.js';

export type PlanFormat = 'text' | 'json' | 'markdown' | 'terraform-json';

/**
 * Prints a plan in the chosen format; `plan`, `show PLANFILE` and `destroy`
 * share it, so they print the same. `verbose`: every change's attributes in
 * text however many changes (Markdown and JSON always have them). `made`:
 * when and by which version a saved plan was made (terraform-json's
 * timestamp and terraform_version); a plan made now by default.
 */
export async function writePlan(
  plan: Plan,
  format: PlanFormat,
  io: CommandIO,
  verbose = false,
  made?: { at: string | null; toolVersion: string | null },
): Promise<void> {
  const render = await import('../plan/index.js');
  if (format === 'json') io.stdout.write(render.renderJson(plan, flagOf) + '\n');
  else if (format === 'terraform-json') {
    const { TOOL_VERSION } = await import('./version.js');
    const at = made?.at ?? new Date().toISOString();
    io.stdout.write(
      render.renderTerraformJson(plan, {
        at,
        toolVersion: made?.toolVersion ?? TOOL_VERSION,
        names: flagOf,
      }) + '\n',
    );
  } else if (format === 'markdown') io.stdout.write(render.renderMarkdown(plan, flagOf));
  else
    writeChunks(
      io.stdout,
      render.renderTextChunks(plan, {
        color: render.shouldUseColor(io.stdout, io.env),
        verbose,
        names: flagOf,
      }),
    );
}
