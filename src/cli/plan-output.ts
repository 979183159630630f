import type { Plan } from '../plan/types.js';
import { writeChunks, type CommandIO } from './io.js';

export type PlanFormat = 'text' | 'json' | 'markdown' | 'terraform-json';

/**
 * Prints a plan in the chosen format; `plan`, `show PLANFILE` and `destroy`
 * share it, so they print the same. `verbose`: every change's attributes in
 * text however many changes (Markdown and JSON always have them).
 */
export async function writePlan(
  plan: Plan,
  format: PlanFormat,
  io: CommandIO,
  verbose = false,
): Promise<void> {
  const render = await import('../plan/index.js');
  if (format === 'json') io.stdout.write(render.renderJson(plan) + '\n');
  else if (format === 'terraform-json') io.stdout.write(render.renderTerraformJson(plan) + '\n');
  else if (format === 'markdown') io.stdout.write(render.renderMarkdown(plan));
  else
    writeChunks(
      io.stdout,
      render.renderTextChunks(plan, { color: render.shouldUseColor(io.stdout, io.env), verbose }),
    );
}
