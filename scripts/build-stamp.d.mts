export declare const root: string;
export declare const stampPath: string;
export declare function inputsHash(base?: string): string;
