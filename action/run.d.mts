export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}
export type Run = (args: string[]) => Promise<RunResult>;
export interface Inputs {
  command: 'plan' | 'apply';
  path: string;
  environment: string;
  api: string;
  backend: string;
  workspace: string;
  lockTimeout: string;
  reviewedPlan: string;
  noPlanReason: string;
  pr: string;
}
export declare const PLAN_REFUSED: number;
export declare function readInputs(env: Record<string, string | undefined>): Inputs;
export declare function configFlags(inputs: Inputs): string[];
export declare function planStep(
  inputs: Inputs,
  options: { run: Run; dir: string; summary: (text: string) => void },
): Promise<Record<'changes' | 'plan-file' | 'markdown-file' | 'artifact', string>>;
export declare function applyStep(
  inputs: Inputs,
  options: { run: Run; summary: (text: string) => void },
): Promise<{ code: number; outcome: 'reviewed' | 'reviewed+config' | 'replanned' | 'no-reviewed-plan' }>;
export declare function tenantformRunner(bin: string, cwd: string, env?: NodeJS.ProcessEnv): Run;
