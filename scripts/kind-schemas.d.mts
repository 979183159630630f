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

export interface KindRegistry {
  file: string;
  folder: string;
  name: string;
}
export declare const KIND_REGISTRIES: { kinds: KindRegistry; emulator: KindRegistry };
export interface FoundExport<V> {
  file: string;
  exportName: string;
  value: V;
}
export declare function isKindDeclaration(value: unknown): value is KindModule;
export declare function isEmulatorModule(value: unknown): value is { key: string; kind: { name: string } };
export declare function listedNames(text: string | undefined): string[];
export declare function orderKinds<V extends KindModule>(
  found: readonly FoundExport<V>[],
  previous: readonly string[],
): FoundExport<V>[];
export declare function emulatorModulesFor<V extends { kind: { name: string } }>(
  kinds: readonly { name: string }[],
  modules: readonly FoundExport<V>[],
): FoundExport<V>[];
export declare function registryModule(
  registry: KindRegistry,
  entries: readonly { file: string; exportName: string }[],
  doc: string,
): string;
