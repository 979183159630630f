/**
 * Settings a person gives a run (the target, the token file, the state …), as
 * typed names, and sentences that refer to them (`Wording`). Below src/cli no
 * module speaks in flags: a message that tells a person which setting to
 * change refers to it by its `Setting`, and whoever shows the message words
 * it (src/cli with the flag that sets it: `--base-url`; `plainText` with a
 * neutral name). An error that carries a wording keeps it as `wording`.
 */

/** The settings messages below the CLI refer to. */
export type Setting =
  | 'domain'
  | 'baseUrl'
  | 'tokenFile'
  | 'rateLimitTimeout'
  | 'state'
  | 'backend'
  | 'backendConfig'
  | 'workspace'
  | 'env'
  | 'api'
  | 'out'
  | 'format'
  | 'target'
  | 'replace'
  | 'skipBlocked'
  | 'force'
  | 'lockTimeout'
  | 'verbose'
  | 'refresh'
  | 'variable'
  | 'variableFile'
  | 'actionId'
  | 'emulatorTls';

/** A reference to a setting inside a wording. */
export interface SettingRef {
  readonly setting: Setting;
}

/** A sentence as text parts and setting references, in order. */
export interface Wording {
  readonly parts: readonly (string | SettingRef)[];
}

/** A reference to `name`, for a `words` template. */
export function setting(name: Setting): SettingRef {
  return { setting: name };
}

function isRef(value: unknown): value is SettingRef {
  return typeof value === 'object' && value !== null && 'setting' in value;
}

/** words`give either ${setting('domain')} or ${setting('baseUrl')}`: a wording; other values become text. */
export function words(strings: TemplateStringsArray, ...values: readonly unknown[]): Wording {
  const parts: (string | SettingRef)[] = [];
  strings.forEach((text, i) => {
    parts.push(text);
    if (i < values.length) {
      const v = values[i];
      parts.push(isRef(v) ? v : String(v));
    }
  });
  return { parts };
}

/** Joins wordings and text: a wording that continues another. */
export function joined(...pieces: readonly (Wording | string)[]): Wording {
  return { parts: pieces.flatMap((p) => (typeof p === 'string' ? [p] : p.parts)) };
}

/** Neutral names, for a message shown without a command line (an error's `message`). */
const PLAIN: Record<Setting, string> = {
  domain: 'the domain setting',
  baseUrl: 'the base URL setting',
  tokenFile: 'the token file',
  rateLimitTimeout: 'the rate-limit timeout',
  state: 'the state file setting',
  backend: 'the backend setting',
  backendConfig: 'the backend settings',
  workspace: 'the workspace setting',
  env: 'the environment setting',
  api: 'the API profile setting',
  out: 'the plan file setting',
  format: 'the format setting',
  target: 'the target selection',
  replace: 'the replace selection',
  skipBlocked: 'the skip-blocked setting',
  force: 'the force setting',
  lockTimeout: 'the lock timeout',
  verbose: 'the verbose setting',
  refresh: 'the refresh setting',
  variable: 'a variable setting',
  variableFile: 'variable file',
  actionId: 'an Action id setting',
  emulatorTls: "the emulator's TLS setting",
};

/** How a message names a setting: src/cli names each by its flag; `plainText` by a neutral name. */
export type SettingNames = (s: Setting) => string;

/** The neutral name of a setting. */
export const plainName: SettingNames = (s) => PLAIN[s];

/** The wording as text, each setting named by `name` (neutral names unless given). */
export function plainText(wording: Wording, name: SettingNames = plainName): string {
  return wording.parts.map((p) => (typeof p === 'string' ? p : name(p.setting))).join('');
}

/** An error's wording if it carries one, else its message: for a message that embeds another. */
export function wordingOrMessage(err: unknown): Wording | string {
  return wordingOf(err) ?? (err instanceof Error ? err.message : String(err));
}

/** The wording an error carries, if any. */
export function wordingOf(err: unknown): Wording | undefined {
  const w = (err as { wording?: unknown } | null)?.wording;
  return typeof w === 'object' && w !== null && Array.isArray((w as Wording).parts)
    ? (w as Wording)
    : undefined;
}
