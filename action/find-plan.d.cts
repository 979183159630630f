// Types for test/action.test.ts; github-script hands the real objects.
type Found = { runId: number; artifact: string; pr: number } | { reason: string };
declare function findPlan(options: {
  github: unknown;
  context: unknown;
  core: { setOutput(name: string, value: string): void; info(message: string): void };
  env?: Record<string, string | undefined>;
}): Promise<Found>;
declare namespace findPlan {
  function artifactName(environment: string): string;
  function findReviewedPlan(options: {
    github: unknown;
    context: unknown;
    environment: string;
  }): Promise<Found>;
}
export = findPlan;
