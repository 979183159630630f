import type { Action, Plan } from './types.js';

/** Words and symbols shared by the text and markdown renderers. */

export const SYMBOLS: Record<Action, string> = {
  create: '+',
  delete: '-',
  replace: '-/+',
  forget: '~',
  blocked: '!',
  'no-op': '=',
};

const MEANINGS: Record<Action, string> = {
  create: 'create',
  delete: 'delete',
  replace: 'replace (delete, then create)',
  forget: 'forget (stop tracking; it stays on the tenant)',
  blocked: 'blocked (cannot be applied)',
  'no-op': 'unchanged',
};

const LEGEND_ORDER: readonly Action[] = ['create', 'delete', 'replace', 'forget', 'blocked', 'no-op'];

/** "Symbols: + create, - delete, …" listing only the actions that appear. */
export function legend(actions: ReadonlySet<Action>): string {
  const parts = LEGEND_ORDER.filter((a) => actions.has(a)).map((a) => `${SYMBOLS[a]} ${MEANINGS[a]}`);
  return `Symbols: ${parts.join(', ')}`;
}

export const NO_CHANGES = 'No changes. The recorded state matches the configuration.';

export const ADOPTED_FLAG = '(adopted; settings not verified, no read operation exists)';

/** "Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked." or the no-changes sentence. */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  if (s.create + s.replace + s.delete + s.forget + s.blocked === 0) return NO_CHANGES;
  return `Plan: ${s.create} to create, ${s.replace} to replace, ${s.delete} to delete, ${s.forget} to forget, ${s.blocked} blocked.`;
}

/** A note about adopted resources that a no-op hides, or null when there are none. */
export function adoptedNote(count: number): string | null {
  if (count === 0) return null;
  const subject = count === 1 ? '1 unchanged resource was' : `${count} unchanged resources were`;
  return `${subject} adopted through 409 on create: settings not verified, no read operation exists.`;
}

/** The explicit warning printed under a replacement. */
export function absenceNote(title: string): string {
  return `the ${title} is absent between the delete and the create`;
}
