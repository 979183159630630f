/** Types of export-scenarios.mjs for the tests that import it. */
export declare function terraformState(n: number): {
  version: number;
  terraform_version: string;
  serial: number;
  lineage: string;
  outputs: Record<string, never>;
  resources: unknown[];
};
export declare function exportFigures(work: string, log: (line: string) => void): Promise<unknown[]>;
