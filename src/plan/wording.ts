import { ACTION_INFO, ACTIONS, type Action } from './actions.js';
import { kindOf, sharedUnverifiedReason, type KindName } from '../resources/index.js';
import { adoptedWords } from './reasons.js';
import type { Plan } from './types.js';

/** Words and symbols shared by the text and markdown renderers. */

export const SYMBOLS = Object.fromEntries(ACTIONS.map((a) => [a, ACTION_INFO[a].symbol])) as Record<
  Action,
  string
>;

const LEGEND_ORDER: readonly Action[] = [...ACTIONS].sort(
  (a, b) => ACTION_INFO[a].legendRank - ACTION_INFO[b].legendRank,
);

/** "Symbols: + create, - delete, …" listing only the actions that appear. */
export function legend(actions: ReadonlySet<Action>): string {
  const parts = LEGEND_ORDER.filter((a) => actions.has(a)).map(
    (a) => `${ACTION_INFO[a].symbol} ${ACTION_INFO[a].meaning}`,
  );
  return `Symbols: ${parts.join(', ')}`;
}

export const NO_CHANGES = 'No changes. The recorded state matches the configuration.';

/** The flag after an adopted resource's address. */
export function adoptedFlag(kind: KindName): string {
  return `(${adoptedWords(kindOf(kind))})`;
}

/** "Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked." or the no-changes sentence. */
export function summaryLine(plan: Plan): string {
  const listed = ACTIONS.filter((a) => ACTION_INFO[a].summaryWords !== null);
  const count = (a: Action): number => plan.summary[ACTION_INFO[a].summaryKey];
  if (listed.every((a) => count(a) === 0)) return NO_CHANGES;
  return `Plan: ${listed.map((a) => `${count(a)} ${ACTION_INFO[a].summaryWords}`).join(', ')}.`;
}

/** A note about adopted resources that a no-op hides (one entry per resource), or null when there are none. */
export function adoptedNote(kinds: readonly KindName[]): string | null {
  if (kinds.length === 0) return null;
  const subject =
    kinds.length === 1 ? '1 unchanged resource was' : `${kinds.length} unchanged resources were`;
  const why = sharedUnverifiedReason(kinds.map(kindOf));
  return `${subject} adopted through 409 on create: settings not verified${why ? `, ${why}` : ''}.`;
}

/** The explicit warning printed under a replacement. */
export function absenceNote(title: string): string {
  return `the ${title} is absent between the delete and the create`;
}
