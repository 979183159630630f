// Types for test/action.test.ts; github-script hands the real objects.
type Env = Record<string, string | undefined>;
declare function postPlan(options: {
  github: unknown;
  context: unknown;
  core: { info(message: string): void; notice(message: string): void };
  env?: Env;
}): Promise<string>;
declare namespace postPlan {
  const COMMENT_LIMIT: number;
  function marker(environment: string): string;
  function commentBody(options: {
    environment: string;
    plan: string;
    artifact?: string;
    artifactUrl?: string;
    runUrl?: string;
    sha?: string;
  }): string;
}
export = postPlan;
