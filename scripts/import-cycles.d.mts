export declare function importGraph(dir: string): Map<string, Set<string>>;
export declare function importCycles(dir: string): string[][];
