/**
 * An Auth0 Deploy CLI export read for `tenantform export --from-deploy-cli`:
 * its YAML file (tenant.yaml, the asset types as top-level keys) or its
 * directory form (a folder per asset type, one JSON file per item). The asset
 * types the kinds declare (`peers.deployCli`: rateLimitPolicies,
 * tokenExchangeProfiles) become resources without ids (the Deploy CLI strips
 * them); an Action named by its name stays a reference to resolve
 * (resolveReferences). Every other asset type is listed as skipped, never
 * read. Pure: the CLI reads the files and hands their text in.
 */
import { KINDS, PeerFieldError, type DeployCliAsset, type KindName } from '../resources/index.js';
import { isObject, PeerCollector, SourceDocument, type PeerRead } from './peer-source.js';
import type { ConfigIssue } from './types.js';
import type { JsonPath } from './yaml-nodes.js';

/** The asset types the kinds declare, by their YAML key. */
export function deployCliAssets(): { kind: KindName; asset: DeployCliAsset }[] {
  return KINDS.flatMap((kind) =>
    kind.peers?.deployCli ? [{ kind: kind.name, asset: kind.peers.deployCli }] : [],
  );
}

/** The Deploy CLI's keyword replacement markers (`##NAME##`, `@@NAME@@`), filled in only at deploy time. */
const KEYWORD = /##[A-Za-z0-9_]+##|@@[A-Za-z0-9_]+@@/;

/** The path below `value` of its first string holding a keyword marker, or null. */
function keywordAt(value: unknown, path: JsonPath = []): { path: JsonPath; marker: string } | null {
  if (typeof value === 'string') {
    const marker = KEYWORD.exec(value);
    return marker ? { path, marker: marker[0] } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = keywordAt(value[i], [...path, i]);
      if (found) return found;
    }
  } else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      const found = keywordAt(inner, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** One item of an asset type at `path` in `doc`, named `origin` in messages. */
export function readItem(
  out: PeerCollector,
  doc: SourceDocument,
  found: { kind: KindName; asset: DeployCliAsset },
  item: unknown,
  path: JsonPath,
  origin: string,
): void {
  if (!isObject(item)) {
    doc.report(path, `${origin} must be an object`, 'DEPLOY_CLI_INVALID');
    return;
  }
  const keyword = keywordAt(item);
  if (keyword) {
    doc.report(
      [...path, ...keyword.path],
      `${origin} uses the Deploy CLI's keyword replacement (${keyword.marker}), which only the Deploy CLI fills in: export the tenant with a0deploy export, or write the value (a tenantform variable, \${NAME}, can stand in for it later)`,
      'DEPLOY_CLI_KEYWORD',
    );
    return;
  }
  let resource;
  try {
    resource = found.asset.read(item);
  } catch (err) {
    if (!(err instanceof PeerFieldError)) throw err;
    doc.report([...path, ...err.path], `${origin}: ${err.message}`, 'DEPLOY_CLI_INVALID');
    return;
  }
  out.add(doc, path, { kind: found.kind, ...resource }, origin);
}

/** The resources of a Deploy CLI YAML export's text (`file` names it in problems). */
export function readDeployCliYaml(text: string, file: string): PeerRead {
  const doc = SourceDocument.yaml(text, file);
  if (!(doc instanceof SourceDocument)) return { resources: [], skipped: [], issues: [doc as ConfigIssue] };
  const out = new PeerCollector();
  out.read(doc);
  if (!isObject(doc.data)) {
    doc.report(
      [],
      'a Deploy CLI YAML export is a mapping of asset types (tenant, clients, rateLimitPolicies, …)',
      'DEPLOY_CLI_INVALID',
    );
    return out.finish();
  }
  const assets = deployCliAssets();
  for (const [key, value] of Object.entries(doc.data)) {
    const found = assets.find((a) => a.asset.key === key);
    if (!found) {
      out.skip({ what: key, type: key, why: 'an asset type tenantform does not manage' });
    } else if (Array.isArray(value)) {
      value.forEach((item: unknown, i: number) => readItem(out, doc, found, item, [key, i], `${key}[${i}]`));
    } else if (value !== null) {
      doc.report([key], `${key} must be a list`, 'DEPLOY_CLI_INVALID');
    }
  }
  return out.finish();
}

/** A file of a Deploy CLI directory export, by its path below the directory. */
export interface DeployCliFile {
  path: string;
  text: string;
}

/**
 * The resources of a Deploy CLI directory export: `entries` are the names at
 * its top, `files` the JSON files of the asset folders the kinds declare
 * (`rate-limit-policies/default.json`), their paths relative to `root` (as
 * the user gave it).
 */
export function readDeployCliDirectory(
  root: string,
  entries: readonly string[],
  files: readonly DeployCliFile[],
): PeerRead {
  const out = new PeerCollector();
  const assets = deployCliAssets();
  for (const name of entries) {
    if (!assets.some((a) => a.asset.directory === name))
      out.skip({ what: `${name}`, type: name, why: 'an asset type tenantform does not manage' });
  }
  for (const file of files) {
    const found = assets.find((a) => file.path.startsWith(`${a.asset.directory}/`));
    if (!found) continue;
    const shown = `${root.replace(/\/$/, '')}/${file.path}`;
    const doc = SourceDocument.json(file.text, shown);
    if (!(doc instanceof SourceDocument)) {
      out.unreadable(doc as ConfigIssue);
      continue;
    }
    out.read(doc);
    readItem(out, doc, found, doc.data, [], file.path);
  }
  return out.finish();
}
