/**
 * Runs the github-script step of a workflow (the one that posts the plan as a
 * pull-request comment) against an in-memory pull request, so tests can check
 * that it creates one comment and then updates it.
 */
export type Comment = { id: number; body: string; user: { type: string } };
const AsyncFunction = (async () => {}).constructor as new (
  ...args: string[]
) => (...args: unknown[]) => Promise<void>;

/** Runs a github-script step's script against an in-memory pull request holding `comments`. */
export async function runCommentScript(
  script: string,
  comments: Comment[],
  plan: string,
  env: Record<string, string> = {},
) {
  const fn = new AsyncFunction('github', 'context', 'require', 'process', script);
  const calls: string[] = [];
  const github = {
    paginate: async (list: (args: unknown) => Promise<Comment[]>, args: unknown) => list(args),
    rest: {
      issues: {
        listComments: async () => comments,
        updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
          calls.push(`update ${comment_id}`);
          comments.find((c) => c.id === comment_id)!.body = body;
        },
        createComment: async ({ body }: { body: string }) => {
          calls.push('create');
          comments.push({ id: comments.length + 100, body, user: { type: 'Bot' } });
        },
      },
    },
  };
  const context = { repo: { owner: 'acme', repo: 'tenant-config' }, issue: { number: 7 } };
  const fakeRequire = (name: string) => {
    if (name !== 'node:fs') throw new Error(`unexpected require ${name}`);
    return { readFileSync: () => plan };
  };
  await fn(github, context, fakeRequire, { env });
  return calls;
}
