import type { JsonSchema } from '../src/schemas/index.js';
import type { KindModule } from '../src/resources/index.js';

export declare const KIND_SCHEMA_FILES: string[];
export declare function kindSchemas(
  kinds: readonly KindModule[],
  documents: Readonly<Record<string, JsonSchema>>,
): Record<string, JsonSchema>;
