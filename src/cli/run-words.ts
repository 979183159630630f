/**
 * The layers' problems and notices in the command line's words: the run
 * layer's (src/run: data, no flag names) and the wordings of errors below
 * (src/resources/settings.ts), each naming the flags that set what went wrong.
 */
import { join } from 'node:path';
import type { RunError, RunNotice, RunProblem } from '../run/index.js';
import { stateNoticeText } from './run-notices.js';
import { listed } from './words.js';
import {
  plainText,
  wordingOf,
  type Setting,
  type SettingNames,
  type Wording,
} from '../resources/settings.js';
import { rateLimitPolicy } from '../resources/rate-limit-policy.js';

/** The sentence of each problem, naming the flags that set it. */
const PROBLEM_WORDS: { [C in RunProblem['code']]: (p: Extract<RunProblem, { code: C }>) => string } = {
  STATE_CONFIG_MISSING: (p) =>
    `${p.configPath} does not exist, so it cannot locate the state (in .tenantform/ beside the config); check the path, or pass --state FILE`,
  STATE_IS_DIRECTORY: (p) =>
    `the state path ${p.path} is a directory; --state takes a file, e.g. ${join(p.named ?? p.path, 'state.json')}`,
  STATE_SETTINGS_NEED_PG: () => '--backend-config applies to --backend pg only',
  STATE_AMBIGUOUS: (p) =>
    `${p.configPath} has several states (${p.states.join(', ')}) and nothing says which to use; ` +
    'give the target (--base-url or --domain, or TENANTFORM_BASE_URL, TENANTFORM_DOMAIN or ' +
    'AUTH0_DOMAIN), an environment of tenantform.yaml (--env), or --state FILE',
  ENV_CREDENTIALS_MISSING: (p) =>
    `environment ${p.env}: credentials.${p.field} names the environment variable ${p.variable}, which is not set`,
  TARGET_NOT_CONFIRMED: (p) =>
    `environment ${p.env}: tenantform.yaml names the tenant at ${p.baseUrl} (${p.key}), and nothing outside ` +
    'the repository confirms it, so no credentials go there (a pull request can edit tenantform.yaml). Nothing was ' +
    `sent. To confirm this tenant, set TENANTFORM_ALLOWED_HOSTS=${p.host} where the credentials are set (in CI, ` +
    'beside the secrets; several hosts separated by commas), or name it with TENANTFORM_DOMAIN, ' +
    'TENANTFORM_BASE_URL, --domain or --base-url.',
  STATE_OTHER_TENANT: ({ state, bound, target, command }) =>
    `the state ${state} belongs to the tenant at ${bound}, but this ${command} would act on ${target}. ` +
    `Its ids are the other tenant's: acting on ${target} with them would create, delete or forget the wrong ` +
    'resources. Nothing was sent. Give each tenant a state of its own (--state FILE, or an environment per ' +
    'tenant in tenantform.yaml, each with its own target and state); or, if these very resources now live at ' +
    `${target}, pass --reassign-tenant to bind the state to it.`,
  PLAN_UNWRITABLE: ({ file, reason }) => `cannot write the plan to ${file}: ${reason}`,
  PLAN_REFUSED: ({ error }) => messageOf(error),
  POLICY_NOT_A_POLICY: (p) => `--policy ${p.text}: not a ${rateLimitPolicy.title.one}`,
  POLICY_NOT_DECLARED: (p) => {
    const hint = p.closest ? ` (did you mean ${p.closest}?)` : p.declared === 0 ? ' (it declares none)' : '';
    return `--policy ${p.text}: the configuration declares no rate limit policy for ${p.selector}${hint}`;
  },
  READ_NEEDS_FULL: (p) => fullProfileNeeded(READS[p.read]),
  LOGS_UNREADABLE: (p) => `${p.via === 'plan' ? '--simulate' : '--logs'} ${p.message}`,
  LOGS_READ_STOPPED: (p) =>
    p.status === null
      ? 'GET /logs answered an event without log_id: cannot read on'
      : `GET /logs answered ${p.status}`,
  IMPORT_UNKNOWN: (p) =>
    `${p.address} is neither in the state nor in the config at ${p.configPath}; add it to the config first so that tenantform knows its settings`,
  IMPORT_ID_UNKNOWN: (p) =>
    `the tenant ${p.status === 404 ? 'has no' : `did not give (${p.status})`} ${p.title} with id ${p.id}; nothing was imported`,
  IMPORT_ID_OTHER: (p) => `${p.id} on the tenant is ${p.found}, not ${p.address}; nothing was imported`,
  IMPORT_NOT_ON_TENANT: (p) => `the tenant has no ${p.title} ${p.address}; nothing was imported`,
  PEER_FILE_UNREADABLE: (p) => `${PEER_FLAGS[p.peer]} ${p.path}: ${p.reason}`,
  PEER_SOURCE_EMPTY: (p) =>
    p.peer === 'terraform'
      ? `${p.path} holds none of the resource types tenantform manages (${p.types.join(', ')}); nothing was written`
      : `${p.path} holds no ${listed(p.types, 'or')}; nothing was written`,
  EXPORT_TARGET_HOLDS_CONFIG: (p) => {
    const { overwritten, others } = p;
    const listedOthers =
      others.slice(0, 5).join(', ') + (others.length > 5 ? ` and ${others.length - 5} more` : '');
    const why = [
      ...(overwritten.length > 0
        ? [`it already has ${overwritten.join(', ')}, which export would overwrite`]
        : []),
      ...(others.length > 0 ? [`it holds config (${listedOthers}) that the exported files would join`] : []),
    ];
    return `${p.dir}: ${why.join('; ')}; nothing was written. Export into an empty directory, or pass --force to write anyway`;
  },
};

/** The flag that names each peer's files for export. */
const PEER_FLAGS = { terraform: '--from-terraform', 'deploy-cli': '--from-deploy-cli' } as const;

/** The command line that makes each read of the tenant the full profile is needed for. */
const READS: Record<Extract<RunProblem, { code: 'READ_NEEDS_FULL' }>['read'], string> = {
  'apply-refresh': 'apply --refresh',
  'all-clients': 'explain --all-clients',
  'simulate-tenant-logs': 'simulate --logs tenant',
  'plan-tenant-logs': 'plan --simulate tenant',
};

/** Why `what` cannot run under the spec profile, and how to give the full one. */
export function fullProfileNeeded(what: string): string {
  return (
    `${what} reads the tenant, and the spec API profile has no read operation: ` +
    'use it with a tenant that offers the full Management API (--api full, or api: full for the environment in tenantform.yaml)'
  );
}

/** A RunError's sentence on the command line. */
export function runErrorMessage(err: RunError): string {
  const words = PROBLEM_WORDS[err.problem.code] as (p: RunProblem) => string;
  return words(err.problem);
}

/** A notice of a run, as the line(s) written on stderr. */
export function noticeText(notice: RunNotice): string {
  if (notice.kind === 'debug') return `[debug] ${notice.line}\n`;
  if (notice.kind !== 'older-state') return stateNoticeText(notice, flagWords, messageOf) ?? '';
  const { path, moveTo } = notice;
  return (
    `Note: using the state at ${path}, which is bound to no tenant yet (an earlier tenantform kept every ` +
    `state there, and a command without a target still does); the next apply to a target binds it. To move ` +
    `it where this target's state goes: tenantform state migrate --from file:${path} --to file:${moveTo}, ` +
    `then delete ${path}\n`
  );
}

/** The flag that sets each setting the layers below refer to (src/resources/settings.ts). */
const SETTING_FLAGS: Record<Setting, string> = {
  domain: '--domain',
  baseUrl: '--base-url',
  tokenFile: '--token-file',
  rateLimitTimeout: '--rate-limit-timeout',
  state: '--state',
  backend: '--backend',
  backendConfig: '--backend-config',
  workspace: '--workspace',
  env: '--env',
  api: '--api',
  out: '--out',
  format: '--format',
  target: '--target',
  replace: '--replace',
  skipBlocked: '--skip-blocked',
  force: '--force',
  lockTimeout: '--lock-timeout',
  verbose: '--verbose',
  refresh: '--refresh',
  variable: '--var',
  variableFile: '--var-file',
  actionId: '--action-id',
  emulatorTls: '--tls',
};

/** Each setting named by its flag: what src/cli hands the layers that word their own output. */
export const flagOf: SettingNames = (s) => SETTING_FLAGS[s];

/** A wording in the command line's words: each setting named by its flag. */
export function flagWords(wording: Wording): string {
  return plainText(wording, flagOf);
}

/** An error's message in the command line's words: its wording with flags, else its message. */
export function messageOf(err: unknown): string {
  const wording = wordingOf(err);
  if (wording) return flagWords(wording);
  return err instanceof Error ? err.message : String(err);
}

/**
 * An error as apply reports it (applyPlan's describeError): its message and
 * hint in the command line's words when it names settings; undefined when it
 * names none (its own message and hint serve).
 */
export function describeError(err: unknown): { message: string; hint?: string } | undefined {
  const wording = wordingOf(err);
  if (!wording) return undefined;
  const { hintWording, hint } = err as { hintWording?: Wording; hint?: string };
  const worded = hintWording ? flagWords(hintWording) : hint;
  return { message: flagWords(wording), ...(worded !== undefined ? { hint: worded } : {}) };
}
