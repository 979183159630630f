import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type * as Emulator from '../src/emulator/index.js';
import type * as Resources from '../src/resources/index.js';
import type { KindModule } from '../src/resources/index.js';

export declare const COMMANDS_PAGE: string;
export declare const CONFIGURATION_PAGE: string;
export declare function commandReference(program: CommandUnknownOpts): string;
export declare function configurationReference(load: (file: string) => unknown): string;
export declare const KIND_TABLES: { page: string; region: string }[];
export declare function identityTable(
  resources: typeof Resources,
  parseYaml: (text: string) => unknown,
): string;
export declare function withRegion(text: string, name: string, content: string): string;
export declare const ROUTE_SOURCES: { page: string; region: string };
export declare function routeSourceTable(
  emulator: Pick<typeof Emulator, 'EMULATOR_KINDS' | 'EMULATOR_REFERENCES' | 'routeSourceRows'>,
): string;
export declare function exampleAttributes(
  kind: KindModule,
  parseYaml: (text: string) => unknown,
): Record<string, unknown>;
