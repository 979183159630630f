// The action's lookup step for `command: apply` (action.yml, run by
// actions/github-script): on a push that merged a pull request, finds the
// sealed plan reviewed on it: the newest completed pull_request run of this
// workflow for the pull request's last commit that kept the environment's
// plan artifact. Sets the outputs run-id and artifact (empty when there is
// none) and reason (why there is none, for the job summary).

/** The name of an environment's plan artifact; the plan step uploads it under this name. */
function artifactName(environment) {
  const name = (environment || 'default').replace(/["':<>|*?\\/\r\n]/g, '-');
  return `tenantform-plan-${name}`;
}

/** The pull request this push merged, or null. */
async function mergedPullRequest(github, owner, repo, sha) {
  const { data } = await github.rest.repos.listPullRequestsAssociatedWithCommit({
    owner,
    repo,
    commit_sha: sha,
  });
  return data.find((pr) => pr.merged_at && pr.merge_commit_sha === sha) ?? null;
}

/**
 * The reviewed plan of the pull request `context.sha` merged:
 * `{ runId, artifact, pr }`, or `{ reason }` when there is none to apply.
 */
async function findReviewedPlan({ github, context, environment }) {
  const artifact = artifactName(environment);
  if (context.eventName !== 'push')
    return { reason: `this run is for a ${context.eventName} event, not a push` };
  const { owner, repo } = context.repo;
  const pr = await mergedPullRequest(github, owner, repo, context.sha);
  if (!pr) return { reason: `commit ${context.sha.slice(0, 7)} was not merged from a pull request` };
  const { data: current } = await github.rest.actions.getWorkflowRun({ owner, repo, run_id: context.runId });
  const runs = await github.paginate(github.rest.actions.listWorkflowRuns, {
    owner,
    repo,
    workflow_id: current.workflow_id,
    event: 'pull_request',
    head_sha: pr.head.sha,
    status: 'completed',
  });
  runs.sort((a, b) => b.run_number - a.run_number || b.run_attempt - a.run_attempt);
  for (const run of runs) {
    const { data } = await github.rest.actions.listWorkflowRunArtifacts({
      owner,
      repo,
      run_id: run.id,
      name: artifact,
    });
    if (data.artifacts.some((a) => a.name === artifact && !a.expired)) {
      return { runId: run.id, artifact, pr: pr.number };
    }
  }
  return {
    reason: `no completed run of this workflow for #${pr.number} (commit ${pr.head.sha.slice(0, 7)}) kept the artifact ${artifact}`,
  };
}

/** The github-script entry point: sets the step's outputs. */
async function findPlan({ github, context, core, env = process.env }) {
  const found = await findReviewedPlan({ github, context, environment: env.TENANTFORM_ENVIRONMENT ?? '' });
  core.setOutput('run-id', found.runId ? String(found.runId) : '');
  core.setOutput('artifact', found.artifact ?? '');
  core.setOutput('pr', found.pr ? String(found.pr) : '');
  core.setOutput('reason', found.reason ?? '');
  if (found.runId)
    core.info(`tenantform: the plan reviewed on #${found.pr} is ${found.artifact} of run ${found.runId}`);
  else core.info(`tenantform: no reviewed plan: ${found.reason}`);
  return found;
}

module.exports = findPlan;
module.exports.findReviewedPlan = findReviewedPlan;
module.exports.artifactName = artifactName;
