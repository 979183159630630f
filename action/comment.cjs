// The action's comment step (action.yml, run by actions/github-script):
// posts the plan of one environment on the pull request, or updates the
// comment it posted before, so that a pull request carries one plan comment
// per environment however often it is pushed. Its comment is found by a
// hidden marker naming the environment, and only among comments by a bot
// (a person quoting the marker keeps their comment).
const { readFileSync } = require('node:fs');

/** GitHub refuses a comment longer than 65,536 characters. */
const COMMENT_LIMIT = 65_536;

/** The hidden first line that finds an environment's comment again. */
function marker(environment) {
  return `<!-- tenantform-plan ${environment || '(default)'} -->`;
}

/**
 * The comment: marker, heading, the plan as `plan --format markdown` wrote it
 * (cut, with a note, when the whole would not fit) and where the sealed plan is.
 */
function commentBody({ environment, plan, artifact, artifactUrl, runUrl, sha }) {
  const heading = environment ? `**Environment \`${environment}\`**` : '';
  const saved = artifact
    ? `The sealed plan is the artifact ${artifactUrl ? `[\`${artifact}\`](${artifactUrl})` : `\`${artifact}\``}` +
      `${runUrl ? ` of [this run](${runUrl})` : ''}${sha ? ` for ${sha.slice(0, 7)}` : ''}. ` +
      'Once merged, CI applies exactly this plan; if the state has moved on by then, CI plans and applies again and says so in its job summary.'
    : '';
  const head = `${marker(environment)}\n${heading}\n\n`;
  const foot = saved ? `\n\n---\n${saved}\n` : '\n';
  const room = COMMENT_LIMIT - head.length - foot.length;
  const cut = '\n\n… (the plan is cut here to fit a comment; the job log has all of it)';
  const text = plan.length <= room ? plan : plan.slice(0, room - cut.length) + cut;
  return head + text.replace(/\s+$/, '') + foot;
}

/**
 * Creates or updates the environment's comment on pull request `issue_number`;
 * returns 'created' or 'updated #ID'.
 */
async function upsertComment({ github, owner, repo, issue_number, environment, body }) {
  const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number });
  const mine = comments.find((c) => c.user?.type === 'Bot' && c.body?.startsWith(marker(environment)));
  if (mine) {
    await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    return `updated #${mine.id}`;
  }
  await github.rest.issues.createComment({ owner, repo, issue_number, body });
  return 'created';
}

/** The github-script entry point; reads what the plan step wrote from the environment. */
async function postPlan({ github, context, core, env = process.env }) {
  const issue_number = context.payload?.pull_request?.number;
  if (!issue_number) {
    core.notice('tenantform: not a pull request, so the plan is not posted as a comment');
    return 'skipped';
  }
  const { owner, repo } = context.repo;
  const body = commentBody({
    environment: env.TENANTFORM_ENVIRONMENT ?? '',
    plan: readFileSync(env.TENANTFORM_PLAN_MARKDOWN, 'utf8'),
    artifact: env.TENANTFORM_ARTIFACT ?? '',
    artifactUrl: env.TENANTFORM_ARTIFACT_URL ?? '',
    runUrl: context.runId ? `${context.serverUrl}/${owner}/${repo}/actions/runs/${context.runId}` : '',
    sha: context.payload.pull_request.head?.sha ?? '',
  });
  const done = await upsertComment({
    github,
    owner,
    repo,
    issue_number,
    environment: env.TENANTFORM_ENVIRONMENT,
    body,
  });
  core.info(`tenantform: plan comment ${done}`);
  return done;
}

module.exports = postPlan;
module.exports.commentBody = commentBody;
module.exports.marker = marker;
module.exports.COMMENT_LIMIT = COMMENT_LIMIT;
