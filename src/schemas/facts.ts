/**
 * Facts the config checks read from the schemas instead of keeping copies:
 * the keys allowed at each level of a config file and, per rate limit action,
 * the keys its configuration variant allows.
 */
import { configKeyOrder, loadSchema, type JsonSchema, type KeyOrder } from './key-order.js';

const EMPTY: KeyOrder = { keys: [], children: new Map() };

/** The keys the config schema allows in the mapping at `path` (list indexes skipped), e.g. ["rate_limit_policies"]. */
export function configKeysAt(path: readonly string[]): string[] {
  let order = configKeyOrder();
  for (const step of path) order = order.children.get(step) ?? EMPTY;
  return order.keys;
}

let variants: Map<string, string[]> | null = null;

/** Per rate limit action, the configuration keys its variant allows: block → [action, limit]. */
export function configurationKeysByAction(): ReadonlyMap<string, string[]> {
  if (!variants) {
    variants = new Map();
    const schema = loadSchema('rate-limit-policy-configuration.schema.json');
    for (const variant of (schema.oneOf as JsonSchema[]) ?? []) {
      const properties = variant.properties as Record<string, JsonSchema>;
      const action = properties.action ?? {};
      const names = action.const !== undefined ? [action.const] : ((action.enum as unknown[]) ?? []);
      for (const name of names) variants.set(String(name), Object.keys(properties));
    }
  }
  return variants;
}

/** The required fields of a schema's object, e.g. of token-exchange-profile-create-request.schema.json. */
export function requiredFields(file: string): string[] {
  return [...((loadSchema(file).required as string[]) ?? [])];
}
