/**
 * What an emulator kind module declares: one kind's slice of the emulated
 * tenant (its data and the service's rules over it), the handlers of the
 * operations it serves, keyed by the kind's descriptor names, and how its part
 * of a snapshot (data file, seed, admin API) is checked and completed. The
 * router, the store, snapshots, seeding and persistence loop over
 * EMULATOR_KINDS (kinds/index.ts) and know no kind by name. A reference list's
 * module (references/: the tenant's applications, Actions and APIs, held under
 * API profile full) is the same kind of module, with `defaults` (a fresh
 * tenant has some) and `refuses` (the service's checks of other operations'
 * bodies against its data).
 */
import type { ApiProfile, Declaration, OperationDescriptor } from '../../resources/index.js';
import { checkSchema, type SchemaIssue, type SchemaName } from '../../schemas/index.js';
import { badRequest } from '../errors.js';
import { randomAlphanumeric } from '../ids.js';
import type { PageSize } from '../pages.js';
import type { RouteSources } from '../route-sources.js';

/** What a kind's data may ask of the tenant that holds it. */
export interface TenantContext {
  /** The clock, in milliseconds. */
  now(): number;
  /** Now as an ISO date-time, for created_at and updated_at. */
  timestamp(): string;
  /** Now, or a millisecond after `previous` when the clock has not moved past it (an update always moves updated_at). */
  laterThan(previous: string): string;
  /** False for a user id the emulator was told does not exist (option `users`). */
  userExists(userId: string): boolean;
  /** Tells the tenant its data changed (to persist it). */
  changed(): void;
}

/** One request to an operation, after routing, authentication and the scope check. */
export interface OperationInput {
  /** The served descriptor (its list settings: itemsKey, pageSize, filters). */
  op: OperationDescriptor;
  /** Path parameters by the descriptor's names, decoded: { id }, { user_id }. */
  params: Readonly<Record<string, string>>;
  contentType: string | undefined;
  body: Buffer;
  query: URLSearchParams;
  nowMs: number;
  /**
   * Refuses a (valid) request body that names reference data the tenant does
   * not have, as the service does (an unknown Action, API or permission):
   * every held module's `refuses` for this operation. Under API profile spec
   * the tenant holds no reference data and nothing is refused.
   */
  checkReferences(body: unknown): void;
  /**
   * Items of this operation's answer completed with what the tenant's
   * reference data says of them (a permission's API name and description):
   * every held module's `annotates` for this operation, in turn. Under API
   * profile spec the items come back as given.
   */
  annotate<T>(items: T[]): T[];
  /** The API profile served. */
  profile: ApiProfile;
}

export interface OperationResult {
  status: number;
  body?: unknown;
  /** Headers of this answer (a 204's Content-Type, where the service sends one). */
  headers?: Record<string, string>;
}

/** A kind's data in one tenant: its part of a snapshot, and back. */
export interface KindData<P> {
  snapshot(): P;
  /** Replaces the data with `part` (already checked); does not tell the tenant. */
  load(part: P): void;
}

/** An emulator kind module as its own file writes it: `D` is its data, `P` its part of a snapshot. */
export interface EmulatorKindSpec<K extends string, P, D extends KindData<P>> {
  /** The resource kind or reference list (src/resources) whose descriptors it serves. */
  kind: Declaration;
  /** Key of its part in snapshots, data files and seeds: 'rateLimitPolicies'. */
  key: K;
  /** Its part's shape, for the message about a document without it. */
  shape: 'list' | 'mapping';
  /** Its part when a seed leaves it out (when it has no `defaults`): [] or {}. */
  empty(): P;
  /**
   * The part a fresh (or reset) tenant holds, and a seed or data file that
   * leaves the part out: the default reference data. Absent: empty, and a data
   * file must hold the part.
   */
  defaults?(): P;
  /** Fresh, empty data of one tenant. */
  open(tenant: TenantContext): D;
  /** Handlers of the operations it serves, by descriptor name; an operation without one is not served. */
  handlers: Readonly<Record<string, (data: D, input: OperationInput) => OperationResult>>;
  /**
   * Checks of other operations' request bodies against this data, by their
   * descriptor name: each throws the service's error (400, 404) for a body
   * that names what the data lacks. Run through OperationInput.checkReferences.
   */
  refuses?: Readonly<Record<string, (data: D, body: unknown) => void>>;
  /**
   * What this data adds to the items of other operations' answers, by their
   * descriptor name (the API's name and a permission's description in a
   * user's permission list). Run through OperationInput.annotate.
   */
  annotates?: Readonly<Record<string, (data: D, items: unknown[]) => unknown[]>>;
  /**
   * Where each served route's behaviour comes from (spec, docs, SDK,
   * observed, choice), by descriptor name: the table of docs/emulator.md
   * (route-sources.ts, npm run gen:docs). Every handler's route is in it.
   */
  sources: readonly RouteSources[];
  /** Why `part` (from a data file or a seed) is unusable, or undefined. */
  check(part: unknown): string | undefined;
  /** A seed's part with what the service would have generated filled in (ids, timestamps); default as given. */
  complete?(part: unknown, nowIso: string): unknown;
}

/** An emulator kind module as the router, the store and persistence see it. */
export interface EmulatorKind<K extends string = string, P = unknown> {
  kind: Declaration;
  key: K;
  shape: 'list' | 'mapping';
  empty(): P;
  defaults?(): P;
  open(tenant: TenantContext): KindData<P>;
  /** By descriptor name; each is given only the data this module's `open` made. */
  handlers: Readonly<Record<string, (data: KindData<unknown>, input: OperationInput) => OperationResult>>;
  refuses?: Readonly<Record<string, (data: KindData<unknown>, body: unknown) => void>>;
  annotates?: Readonly<Record<string, (data: KindData<unknown>, items: unknown[]) => unknown[]>>;
  sources: readonly RouteSources[];
  check(part: unknown): string | undefined;
  complete?(part: unknown, nowIso: string): unknown;
}

/**
 * An emulator kind module from its spec. The handlers are only ever given
 * the data the same module's `open` made, so the data's own type may be
 * forgotten here.
 */
export function emulatorKind<K extends string, P, D extends KindData<P>>(
  spec: EmulatorKindSpec<K, P, D>,
): EmulatorKind<K, P> {
  return spec as unknown as EmulatorKind<K, P>;
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function formatIssue(issue: SchemaIssue): string {
  const where = issue.keyword === 'required' ? issue.path : issue.path.slice(0, -1);
  return where.length > 0 ? `${formatPath(where)}: ${issue.message}` : issue.message;
}

/** Validates a parsed body against a request schema; throws a 400 listing every issue. */
export function validated<T>(schema: SchemaName, body: unknown): T {
  const issues = checkSchema(schema, body);
  if (issues.length > 0) throw badRequest(`Payload validation error: ${issues.map(formatIssue).join('; ')}`);
  return body as T;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when a stored item carries its created_at and updated_at. */
export function hasTimes(value: unknown): boolean {
  return isRecord(value) && typeof value.created_at === 'string' && typeof value.updated_at === 'string';
}

/** The part a tenant starts with, and a seed or data file that leaves it out gets: the defaults, else empty. */
export function initialPart<P>(module: Pick<EmulatorKind<string, P>, 'empty' | 'defaults'>): P {
  return module.defaults ? module.defaults() : module.empty();
}

/** A list descriptor's array key and page sizes. */
export function listPage(op: OperationDescriptor): { key: string; size: PageSize } {
  if (!op.itemsKey || !op.pageSize) throw new Error(`internal: ${op.name} is not a list operation`);
  return { key: op.itemsKey, size: op.pageSize };
}

/** Seeded items with an id (`prefix` and `idLength` random characters) and timestamps (`now`) where they have none. */
export function completeItems(items: unknown, prefix: string, idLength: number, now: string): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item: unknown) =>
    isRecord(item)
      ? {
          id: item.id ?? `${prefix}${randomAlphanumeric(idLength)}`,
          ...item,
          created_at: item.created_at ?? now,
          updated_at: item.updated_at ?? now,
        }
      : item,
  );
}
