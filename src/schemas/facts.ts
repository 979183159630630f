/**
 * Facts the config checks read from the schemas instead of keeping copies:
 * the keys allowed at each level of a config file and, per rate limit action,
 * the keys its configuration variant allows.
 */
import { configKeyOrder, loadSchema, variantKeys, type JsonSchema, type KeyOrder } from './key-order.js';

const EMPTY: KeyOrder = { keys: [], children: new Map() };

/** The key order of the mapping at `path` of a config file (list indexes skipped); no keys when the schema has none there. */
export function configOrderAt(path: readonly string[]): KeyOrder {
  let order = configKeyOrder();
  for (const step of path) order = order.children.get(step) ?? EMPTY;
  return order;
}

/** The keys the config schema allows in the mapping at `path` (list indexes skipped), e.g. ["rate_limit_policies"]. */
export function configKeysAt(path: readonly string[]): string[] {
  return configOrderAt(path).keys;
}

/**
 * When the mapping at `path` is one of several variants chosen by a property
 * (["rate_limit_policies", "configuration"]: by action), that property and the
 * keys each of its values allows; undefined otherwise.
 */
export function configVariantsAt(
  path: readonly string[],
): { property: string; keys: ReadonlyMap<string, string[]> } | undefined {
  return configOrderAt(path).variants;
}

let actions: ReadonlyMap<string, string[]> | null = null;

/** Per rate limit action, the configuration keys its variant allows: block → [action, limit]. */
export function configurationKeysByAction(): ReadonlyMap<string, string[]> {
  if (!actions) {
    const schema = loadSchema('rate-limit-policy-configuration.schema.json');
    actions = variantKeys('action', (schema.oneOf as JsonSchema[]) ?? []).keys;
  }
  return actions;
}

/** The required fields of a schema's object, e.g. of token-exchange-profile-create-request.schema.json. */
export function requiredFields(file: string): string[] {
  return [...((loadSchema(file).required as string[]) ?? [])];
}
