import type { CommandUnknownOpts } from '@commander-js/extra-typings';

export declare const COMMANDS_PAGE: string;
export declare const CONFIGURATION_PAGE: string;
export declare function commandReference(program: CommandUnknownOpts): string;
export declare function configurationReference(load: (file: string) => unknown): string;
