import type { JsonSchema } from '../src/schemas/index.js';
import type { KindModule } from '../src/resources/index.js';

export declare const KIND_SCHEMA_FILES: string[];
export declare function kindSchemas(
  kinds: readonly KindModule[],
  documents: Readonly<Record<string, JsonSchema>>,
): Record<string, JsonSchema>;

export interface KindWords {
  phrase: string;
  importKinds: string;
  importIdentities: string;
  idPrefixes: string;
}
export declare function kindWords(
  kinds: readonly KindModule[],
  load: (file: string) => JsonSchema,
): KindWords;
export declare const KIND_WORDS_FILE: string;
export declare function kindWordsModule(words: KindWords): string;
export declare function packageDescription(words: KindWords): string;
