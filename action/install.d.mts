export type InstallPlan = { kind: 'self'; bin: string } | { kind: 'npm'; spec: string };
export declare function installPlan(options: {
  spec: string;
  actionPath: string;
  workspace: string;
  exists?: (path: string) => boolean;
}): InstallPlan;
