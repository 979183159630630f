/**
 * A Terraform state (format version 4, Terraform 0.12 and later) read for
 * `tenantform export --from-terraform`: the managed resources of the auth0
 * provider's types that the kinds declare (their `peers.terraform`), each
 * instance turned into tenantform's resources with its id. Every other
 * resource, data source or deposed object is listed as skipped. Sensitive
 * values are never read: an attribute a `sensitive_attributes` path names is
 * removed before the kind's mapping sees the instance, and a resource that
 * needs one is skipped, saying why. Pure: text in, resources out.
 */
import { KINDS, PeerFieldError, type KindName, type TerraformType } from '../resources/index.js';
import { isObject, PeerCollector, SourceDocument, type PeerRead } from './peer-source.js';
import type { ConfigIssue } from './types.js';
import type { JsonPath } from './yaml-nodes.js';

/** The provider types the kinds declare, by type name. */
function terraformTypes(): Map<string, { kind: KindName; type: TerraformType }> {
  const types = new Map<string, { kind: KindName; type: TerraformType }>();
  for (const kind of KINDS)
    for (const type of kind.peers?.terraform ?? []) types.set(type.type, { kind: kind.name, type });
  return types;
}

/** `module.x.auth0_rate_limit_policy.name[0]`: the instance address as Terraform writes it. */
function instanceAddress(resource: Record<string, unknown>, indexKey: unknown): string {
  const module = typeof resource.module === 'string' && resource.module !== '' ? `${resource.module}.` : '';
  const key =
    typeof indexKey === 'number'
      ? `[${indexKey}]`
      : typeof indexKey === 'string'
        ? `[${JSON.stringify(indexKey)}]`
        : '';
  return `${module}${String(resource.type)}.${String(resource.name)}${key}`;
}

/**
 * The top-level attribute names a `sensitive_attributes` value marks (the
 * first step of each path), each with the whole path as text
 * (`configuration[0].redirect_uri`); null when it is not in a form this
 * reader knows, which makes the whole instance count as sensitive.
 */
function sensitivePaths(value: unknown): Map<string, string> | null {
  if (value === undefined || value === null) return new Map();
  if (!Array.isArray(value)) return null;
  const names = new Map<string, string>();
  for (const path of value) {
    const steps: unknown[] = Array.isArray(path) ? path : [];
    const first = steps[0];
    if (!isObject(first) || first.type !== 'get_attr' || typeof first.value !== 'string') return null;
    const text = steps
      .map((step) => {
        if (!isObject(step)) return '';
        if (step.type === 'get_attr') return `.${String(step.value)}`;
        const key = isObject(step.value) ? step.value.value : step.value;
        return `[${JSON.stringify(key)}]`;
      })
      .join('')
      .slice(1);
    if (!names.has(first.value)) names.set(first.value, text);
  }
  return names;
}

/** The state's own fields: an object of format version 4 with a list of resources. */
function checkTop(doc: SourceDocument): unknown[] | null {
  const top = doc.data;
  if (!isObject(top)) {
    doc.report([], 'a Terraform state is a JSON object', 'TF_STATE_INVALID');
    return null;
  }
  if (top.version !== 4) {
    const got = JSON.stringify(top.version) ?? 'no version';
    doc.report(
      ['version'],
      `tenantform reads Terraform state format version 4 (Terraform 0.12 and later); this one is ${got}: run terraform apply -refresh-only with a current Terraform, which writes the state in format 4`,
      'TF_STATE_VERSION',
    );
    return null;
  }
  if (!Array.isArray(top.resources)) {
    doc.report(['resources'], '"resources" must be a list', 'TF_STATE_INVALID');
    return null;
  }
  return top.resources as unknown[];
}

interface Reading {
  doc: SourceDocument;
  types: ReturnType<typeof terraformTypes>;
  found: PeerCollector;
}

/** One instance of a provider type tenantform manages. */
function readInstance(
  r: Reading,
  found: { kind: KindName; type: TerraformType },
  instance: Record<string, unknown>,
  path: JsonPath,
  origin: string,
): void {
  if (!isObject(instance.attributes)) {
    const message =
      instance.attributes_flat !== undefined
        ? `${origin} has only flat attributes (a state from before Terraform 0.12): run terraform apply -refresh-only with a current Terraform, which writes the state in format 4`
        : `${origin} has no "attributes" object`;
    r.doc.report(path, message, 'TF_STATE_INVALID');
    return;
  }
  const sensitive = sensitivePaths(instance.sensitive_attributes);
  if (sensitive === null) {
    r.found.skip({
      what: origin,
      type: found.type.type,
      why: 'its sensitive_attributes are in a form tenantform does not know, so none of it is copied',
    });
    return;
  }
  const attributes = Object.fromEntries(
    Object.entries(instance.attributes).filter(([key]) => !sensitive.has(key)),
  );
  let resources;
  try {
    resources = found.type.read(attributes);
  } catch (err) {
    if (!(err instanceof PeerFieldError)) throw err;
    const field = err.path[0];
    if (typeof field === 'string' && sensitive.has(field)) {
      r.found.skip({
        what: origin,
        type: found.type.type,
        why: `its ${sensitive.get(field)!} is marked sensitive in the state, and tenantform never copies a sensitive value: declare it in the config by hand, then tenantform import it`,
      });
      return;
    }
    r.doc.report([...path, 'attributes', ...err.path], `${origin}: ${err.message}`, 'TF_STATE_INVALID');
    return;
  }
  for (const resource of resources) {
    r.found.add(r.doc, [...path, 'attributes'], { kind: found.kind, ...resource }, origin);
  }
}

/** One entry of `resources`: its instances, or why it is skipped. */
function readResource(r: Reading, resource: unknown, i: number): void {
  const path: JsonPath = ['resources', i];
  if (!isObject(resource)) {
    r.doc.report(path, `resources[${i}] must be an object`, 'TF_STATE_INVALID');
    return;
  }
  for (const field of ['mode', 'type', 'name']) {
    if (typeof resource[field] !== 'string' || resource[field] === '') {
      r.doc.report([...path, field], `resources[${i}] has no "${field}"`, 'TF_STATE_INVALID');
      return;
    }
  }
  const base = instanceAddress(resource, undefined);
  const found = r.types.get(String(resource.type));
  if (resource.mode !== 'managed' || !found) {
    const why = resource.mode === 'data' ? 'a data source' : 'not a resource type tenantform manages';
    r.found.skip({
      what: resource.mode === 'data' ? `data.${base}` : base,
      type: String(resource.type),
      why,
    });
    return;
  }
  if (!Array.isArray(resource.instances)) {
    r.doc.report([...path, 'instances'], `${base}: "instances" must be a list`, 'TF_STATE_INVALID');
    return;
  }
  resource.instances.forEach((instance: unknown, j: number) => {
    const at: JsonPath = [...path, 'instances', j];
    if (!isObject(instance)) {
      r.doc.report(at, `${base}: instances[${j}] must be an object`, 'TF_STATE_INVALID');
      return;
    }
    const origin = instanceAddress(resource, instance.index_key);
    if (typeof instance.deposed === 'string' && instance.deposed !== '') {
      r.found.skip({
        what: `${origin} (deposed ${instance.deposed})`,
        type: found.type.type,
        why: 'an old object Terraform was yet to destroy',
      });
      return;
    }
    readInstance(r, found, instance, at, origin);
  });
}

/** The resources of a Terraform state's text (`file` names it in problems). */
export function readTerraformState(text: string, file: string): PeerRead {
  const parsed = SourceDocument.json(text, file);
  if (!(parsed instanceof SourceDocument))
    return { resources: [], skipped: [], issues: [parsed as ConfigIssue] };
  const r: Reading = { doc: parsed, types: terraformTypes(), found: new PeerCollector() };
  r.found.read(parsed);
  checkTop(parsed)?.forEach((resource, i) => readResource(r, resource, i));
  return r.found.finish();
}

/** An instance address split into its resource and its count/for_each key (`[0]`, `["k"]`; '' when none). */
function splitInstance(address: string): { resource: string; key: string } {
  const key = /(?:\[\d+\]|\["(?:[^"\\]|\\.)*"\])$/.exec(address)?.[0] ?? '';
  return { resource: address.slice(0, address.length - key.length), key };
}

/**
 * The Terraform addresses to remove from its state once tenantform manages
 * what `read` found, in the order read: a resource as a whole when every
 * instance of it was read, else each instance read by its address with its
 * count or for_each key, so that an instance tenantform skipped stays with
 * Terraform.
 */
export function terraformAddressesToForget(read: Pick<PeerRead, 'resources' | 'skipped'>): string[] {
  const partial = new Set(
    read.skipped.map((s) => splitInstance(s.what.replace(/ \(deposed .*\)$/, '')).resource),
  );
  const addresses = read.resources.map((r) => {
    const { resource } = splitInstance(r.origin);
    return partial.has(resource) ? r.origin : resource;
  });
  return [...new Set(addresses)];
}
