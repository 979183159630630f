import {
  kindOf,
  plainName,
  unverifiedReason,
  type KindModule,
  type SettingNames,
} from '../resources/index.js';
import { assertNever } from './actions.js';
import type { Change } from './types.js';

/**
 * The words for a change's reason (a code with data, `PlanReason` in
 * types.ts): what every renderer prints after a change, and what plan JSON
 * writes as `reason`. Apply never reads them; they tell a person why, and
 * what they can do about it.
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

/** "adopted without an id" or "recorded without an id". */
function withoutId(adopted: boolean): string {
  return adopted ? 'adopted without an id' : 'recorded without an id';
}

/** The way out for a removal that needs the id the record lacks. */
function removeWithoutId(address: string): string {
  return (
    `run tenantform import ${shellQuote(address)} <id> to attach its id, remove it by hand, ` +
    `or run tenantform state rm ${shellQuote(address)} to stop tracking it`
  );
}

/**
 * A change's reason in words: "not in state", "configuration.limit changed;
 * updated in place (same id)", … A setting it names is named by `names`
 * (src/cli: its flag).
 */
export function reasonText(
  change: Pick<Change, 'kind' | 'address' | 'adopted' | 'reason'>,
  names: SettingNames = plainName,
): string {
  const kind = kindOf(change.kind);
  const { address, adopted, reason } = change;
  switch (reason.code) {
    case 'create':
      return 'not in state';
    case 'no-op':
      return adopted ? `matches state (${adoptedWords(kind)})` : 'matches state';
    case 'update':
      return `${listFields(reason.paths)} changed; updated in place (same id)`;
    case 'replace-by-request':
      return `replace requested with ${names('replace')}; nothing changed, and it is absent in between`;
    case 'replace-because-cannot-update':
      return `${listFields(reason.paths)} changed; ${kind.limitation}`;
    case 'replace-because-fixed':
      return (
        `${listFields(reason.fixed)} changed, and the ${kind.title.one}'s ${listFields(reason.fixed)} cannot be ` +
        'updated after creation; it is deleted and created again'
      );
    case 'update-without-id':
      return (
        `${listFields(reason.paths)} changed, but it was ${withoutId(adopted)}, and an update needs one; ` +
        `run tenantform import ${shellQuote(address)} <id> to attach its id, then it can be updated`
      );
    case 'replace-without-id':
      return (
        `${listFields(reason.paths)} changed, but it was ${withoutId(adopted)}; ` +
        `run tenantform import ${shellQuote(address)} <id> to attach its id, then it can be replaced`
      );
    case 'cannot-change':
      return (
        `${listFields(reason.paths)} changed; ${kind.limitation}, so no operation can make this change. ` +
        'Restore the recorded value in the configuration, or change it by other means'
      );
    case 'delete-because-no-config':
      return 'no longer in the configuration';
    case 'delete-without-id':
      return `no longer in the configuration, but it was ${withoutId(adopted)}, so it cannot be deleted; ${removeWithoutId(address)}`;
    case 'forget-because-cannot-delete':
      return `no longer in the configuration; ${kind.limitation}, so tenantform stops tracking it and it stays on the tenant`;
    case 'destroy':
      return 'destroy: removes everything the state records';
    case 'destroy-without-id':
      return `destroy, but it was ${withoutId(adopted)}, so it cannot be deleted; ${removeWithoutId(address)}`;
    case 'destroy-forget':
      return `destroy: ${kind.limitation}, so tenantform stops tracking it and it stays on the tenant`;
    default:
      return assertNever(reason);
  }
}
