/**
 * A resource of each kind for tests that run over every kind: the first
 * resource of the example config the kind declares (what `tenantform init`
 * writes), so a new kind brings its own sample.
 */
import { parse } from 'yaml';
import { exampleAttributes } from '../../scripts/docs-reference.mjs';
import type { Attributes, KindModule } from '../../src/resources/index.js';

/** The attributes of the first resource of `kind`'s example config. */
export function kindExample(kind: KindModule): Attributes {
  return exampleAttributes(kind, parse);
}
