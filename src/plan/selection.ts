import { formatAddress, kindOf, needsId, operationsFor, parseAddress } from '../resources/index.js';
import type { ApiProfile, DesiredResource, RecordedResource } from '../resources/index.js';
import { PlanError } from './errors.js';
import { shellQuote } from './reasons.js';
import { setting, words, type SettingRef } from '../resources/settings.js';

const TARGET = setting('target');
const REPLACE = setting('replace');

/**
 * What a plan covers and forces: --target (only these resources; the plan is
 * partial), --replace (a replace though nothing changed) and destroy (remove
 * everything recorded). Checked against the config and the state before
 * planning, so a typo is an error naming the closest address, not an empty plan.
 */
export interface PlanOptions {
  /** Addresses to limit the plan to; the plan then says it is partial. */
  targets?: readonly string[];
  /** Addresses to replace (delete, then create) even though nothing changed. */
  replace?: readonly string[];
  /** Plan the removal of everything the state records; the config is not consulted. */
  destroy?: boolean;
  /** The API profile of the tenant: which operations the plan may use. Default 'spec'. */
  api?: ApiProfile;
}

/** Edit distance between two strings (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The candidate closest to `input`, or null when there is none. */
export function closestMatch(input: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(input, candidate);
    if (d < bestDistance || (d === bestDistance && best !== null && candidate < best)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The address in its canonical spelling; PLAN_UNKNOWN_TARGET naming the flag when it does not parse. */
function canonical(address: string, flag: SettingRef, known: ReadonlySet<string>): string {
  try {
    const parsed = parseAddress(address);
    return formatAddress(parsed.kind, parsed.identity);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new PlanError(
      words`${flag} ${address}: ${reason}${suggestion(address, known)}`,
      'PLAN_UNKNOWN_TARGET',
    );
  }
}

function suggestion(address: string, known: ReadonlySet<string>): string {
  const best = closestMatch(address, known);
  return best ? `; did you mean ${shellQuote(best)}?` : '; the configuration and the state hold no resources';
}

export interface Selection {
  /** Canonical target addresses (replace addresses included), sorted; null when the plan is complete. */
  targets: string[] | null;
  /** Canonical addresses to replace. */
  replace: Set<string>;
}

/**
 * Checks --target and --replace against what the config declares and the
 * state records. Throws PlanError PLAN_UNKNOWN_TARGET for an address neither
 * holds (naming the closest), PLAN_REPLACE_REFUSED with the reason when a
 * replace cannot be made: the kind has no delete operation, the record has no
 * id, nothing is recorded yet, or the resource is no longer configured.
 */
export function selectChanges(
  desired: readonly DesiredResource[],
  recorded: readonly RecordedResource[],
  options: PlanOptions,
): Selection {
  // Nothing named: nothing to check, and no index of every address to build.
  if ((options.targets ?? []).length === 0 && (options.replace ?? []).length === 0) {
    return { targets: null, replace: new Set() };
  }
  const wanted = new Set(options.destroy ? [] : desired.map((d) => d.address));
  const byAddress = new Map(recorded.map((r) => [r.address, r]));
  const known = new Set([...wanted, ...byAddress.keys()]);
  const targets = new Set<string>();
  for (const raw of options.targets ?? []) {
    const address = canonical(raw, TARGET, known);
    if (!known.has(address)) {
      throw new PlanError(
        words`${TARGET} ${address}: not in the ${options.destroy ? 'state' : 'configuration or the state'}${suggestion(address, known)}`,
        'PLAN_UNKNOWN_TARGET',
      );
    }
    targets.add(address);
  }
  const replace = new Set<string>();
  for (const raw of options.replace ?? []) {
    const address = canonical(raw, REPLACE, known);
    if (options.destroy) {
      throw new PlanError(
        words`${REPLACE} ${address}: a destroy removes everything; there is nothing to replace`,
        'PLAN_REPLACE_REFUSED',
      );
    }
    const record = byAddress.get(address);
    if (!known.has(address)) {
      throw new PlanError(
        words`${REPLACE} ${address}: not in the configuration or the state${suggestion(address, known)}`,
        'PLAN_UNKNOWN_TARGET',
      );
    }
    const refuse = (why: string) =>
      new PlanError(words`${REPLACE} ${address}: cannot replace it: ${why}`, 'PLAN_REPLACE_REFUSED');
    if (!record) throw refuse('it is not in the state yet, so the plan creates it');
    if (!wanted.has(address)) throw refuse('it is no longer in the configuration, so the plan removes it');
    const kind = kindOf(record.kind);
    // A replace is the kind's delete, then its create: only kinds with a delete operation have one.
    const remove = operationsFor(kind, options.api ?? 'spec').delete;
    if (!remove) throw refuse(`${kind.limitation}, and a replace starts with a delete`);
    if (record.id === null && needsId(remove)) {
      throw refuse(
        `it was ${record.adopted ? 'adopted without an id' : 'recorded without an id'}, and a delete needs one; ` +
          `run tenantform import ${shellQuote(address)} <id> first`,
      );
    }
    replace.add(address);
    if (targets.size > 0) targets.add(address);
  }
  return { targets: targets.size > 0 ? [...targets].sort() : null, replace };
}
