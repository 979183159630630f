/**
 * An in-memory pull request behind the part of github-script's `github`
 * object that posts plan comments (issues.listComments, createComment,
 * updateComment, paginate), and a runner for a workflow's inline
 * github-script step against it: tests check that a plan is posted once and
 * then updated.
 */
export type Comment = { id: number; body: string; user: { type: string } };
const AsyncFunction = (async () => {}).constructor as new (
  ...args: string[]
) => (...args: unknown[]) => Promise<void>;

/** github-script's `github` for a pull request holding `comments`; `calls` lists what was written. */
export function pullRequest(comments: Comment[]) {
  const calls: string[] = [];
  const github = {
    paginate: async <T>(list: (args: unknown) => Promise<{ data: T[] }>, args: unknown) =>
      (await list(args)).data,
    rest: {
      issues: {
        listComments: async () => ({ data: comments }),
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
  return { github, calls };
}

/** Runs a github-script step's script against an in-memory pull request holding `comments`. */
export async function runCommentScript(
  script: string,
  comments: Comment[],
  plan: string,
  env: Record<string, string> = {},
) {
  const fn = new AsyncFunction('github', 'context', 'require', 'process', script);
  const { github, calls } = pullRequest(comments);
  const context = { repo: { owner: 'acme', repo: 'tenant-config' }, issue: { number: 7 } };
  const fakeRequire = (name: string) => {
    if (name !== 'node:fs') throw new Error(`unexpected require ${name}`);
    return { readFileSync: () => plan };
  };
  await fn(github, context, fakeRequire, { env });
  return calls;
}
