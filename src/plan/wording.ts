import { ACTION_INFO, ACTIONS, type Action } from './actions.js';
import { kindOf, sharedUnverifiedReason, type KindName, type SettingNames } from '../resources/index.js';
import { adoptedWords } from './reasons.js';
import type { Plan } from './types.js';
import type { Style } from './color.js';

/** Words and symbols shared by the text and markdown renderers. */

/** The colour of each action's symbol in text output. */
export const ACTION_STYLES: Record<Action, Style> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
  replace: 'yellow',
  forget: 'magenta',
  blocked: 'boldRed',
  'no-op': 'dim',
};

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

/**
 * The plan's API profile, for the top of a plan, or null under 'spec' (the
 * default, whose plans read as they did before profiles existed).
 */
export function profileLine(plan: Plan): string | null {
  if (plan.api === 'spec') return null;
  return `API profile: ${plan.api} (changes are updated in place and removals deleted where the API allows)`;
}

/**
 * "Plan: 2 to create, 1 to replace, 1 to delete, 1 to forget, 1 blocked." or
 * the no-changes sentence; "to update" is listed for profile full only (spec has no update).
 */
export function summaryLine(plan: Plan): string {
  const listed = ACTIONS.filter((a) => {
    const info = ACTION_INFO[a];
    return (
      info.summaryWords !== null && (info.summaryProfile === undefined || info.summaryProfile === plan.api)
    );
  });
  const count = (a: Action): number => plan.summary[ACTION_INFO[a].summaryKey];
  if (listed.every((a) => count(a) === 0))
    return plan.destroy ? 'Nothing to destroy: the state records no resources.' : NO_CHANGES;
  return `Plan: ${listed.map((a) => `${count(a)} ${ACTION_INFO[a].summaryWords}`).join(', ')}.`;
}

/**
 * What a plan covers when it is not the usual full plan, or null: a partial
 * plan (--target) says so, and a destroy says what happens to resources the API cannot delete.
 */
export function scopeNote(plan: Plan, names: SettingNames): string | null {
  const notes: string[] = [];
  if (plan.destroy && plan.changes.length > 0) {
    const forgets = plan.summary.forget;
    notes.push(
      'Destroy: removes everything the state records.' +
        (forgets > 0
          ? ` ${forgets} resource${forgets === 1 ? '' : 's'} the API cannot delete ${forgets === 1 ? 'is' : 'are'} only forgotten: ${forgets === 1 ? 'it stays' : 'they stay'} on the tenant.`
          : ''),
    );
  }
  if (plan.targets) {
    const n = plan.targets.length;
    notes.push(
      `This plan is partial (${names('target')}): it covers ${n} resource${n === 1 ? '' : 's'} only; changes to others wait for a plan without ${names('target')}.`,
    );
  }
  return notes.length > 0 ? notes.join('\n') : null;
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
