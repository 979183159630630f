import type { Plugin } from 'esbuild';
export declare const KEEP_LAZY: string[];
export declare function eagerImports(source: string, file: string): string | null;
export declare const eagerImportsPlugin: Plugin;
