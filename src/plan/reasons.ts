import { unverifiedReason, type KindModule } from '../resources/index.js';

/**
 * The display-only reasons the planner attaches to changes. Apply never reads
 * them; they tell a person why, and what they can do about it.
 */

/** Quotes an address for a POSIX shell, so a suggested command can be pasted as is. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** "a", "a and b", "a, b and c". */
function listFields(fields: readonly string[]): string {
  if (fields.length <= 1) return fields[0] ?? 'nothing';
  return `${fields.slice(0, -1).join(', ')} and ${fields[fields.length - 1]}`;
}

/** Why an adopted resource's settings are taken on trust: "adopted; settings not verified, no read operation exists". */
export function adoptedWords(kind: KindModule): string {
  const why = unverifiedReason(kind);
  return `adopted; settings not verified${why ? `, ${why}` : ''}`;
}

export const reasons = {
  create: (): string => 'not in state',

  noOp: (adopted: boolean, kind: KindModule): string =>
    adopted ? `matches state (${adoptedWords(kind)})` : 'matches state',

  replace: (kind: KindModule, fields: readonly string[]): string =>
    `${listFields(fields)} changed; ${kind.limitation}`,

  update: (fields: readonly string[]): string => `${listFields(fields)} changed; updated in place (same id)`,

  replaceFixed: (kind: KindModule, fixed: readonly string[]): string =>
    `${listFields(fixed)} changed, and the ${kind.title.one}'s ${listFields(fixed)} cannot be updated after ` +
    'creation; it is deleted and created again',

  updateWithoutId: (address: string, fields: readonly string[], adopted: boolean): string =>
    `${listFields(fields)} changed, but it was ${adopted ? 'adopted without an id' : 'recorded without an id'}, ` +
    `and an update needs one; run tenantform import ${shellQuote(address)} <id> to attach its id, then it can be updated`,

  replaceWithoutId: (address: string, fields: readonly string[], adopted: boolean): string =>
    `${listFields(fields)} changed, but it was ${adopted ? 'adopted without an id' : 'recorded without an id'}; ` +
    `run tenantform import ${shellQuote(address)} <id> to attach its id, then it can be replaced`,

  changeBlocked: (kind: KindModule, fields: readonly string[]): string =>
    `${listFields(fields)} changed; ${kind.limitation}, so no operation can make this change. ` +
    'Restore the recorded value in the configuration, or change it by other means',

  delete: (): string => 'no longer in the configuration',

  deleteWithoutId: (address: string, adopted: boolean): string =>
    `no longer in the configuration, but it was ${adopted ? 'adopted without an id' : 'recorded without an id'}, ` +
    `so it cannot be deleted; run tenantform import ${shellQuote(address)} <id> to attach its id, ` +
    `remove it by hand, or run tenantform state rm ${shellQuote(address)} to stop tracking it`,

  forcedReplace: (): string =>
    'replace requested with --replace; nothing changed, and it is absent in between',

  destroy: (): string => 'destroy: removes everything the state records',

  destroyWithoutId: (address: string, adopted: boolean): string =>
    `destroy, but it was ${adopted ? 'adopted without an id' : 'recorded without an id'}, so it cannot be deleted; ` +
    `run tenantform import ${shellQuote(address)} <id> to attach its id, remove it by hand, ` +
    `or run tenantform state rm ${shellQuote(address)} to stop tracking it`,

  destroyForget: (kind: KindModule): string =>
    `destroy: ${kind.limitation}, so tenantform stops tracking it and it stays on the tenant`,

  forget: (kind: KindModule): string =>
    `no longer in the configuration; ${kind.limitation}, so tenantform stops tracking it and it stays on the tenant`,
};
