/**
 * What `tenantform export` says (its run is src/run/export.ts): what the
 * source held and left out, the files written, where the resources are
 * recorded, and the hand-over each peer needs.
 */
import { join } from 'node:path';
import { terraformAddressesToForget } from '../config/from-terraform.js';
import type { PeerRead, PeerSkip } from '../config/peer-source.js';
import { shellQuote } from '../plan/reasons.js';
import { KINDS, readPer, type Kind, type LiveResource } from '../resources/index.js';
import type { ExportedFile, ExportOrigin, ExportSource } from '../run/export.js';
import { readSummary } from './tenant-read.js';
import { listed, plural } from './words.js';

/**
 * "Exported 2 rate limit policies, 1 token exchange profile and 3 permissions of 2 users":
 * the kinds read whole, then those read per user (a grouped kind counted by its members).
 */
function exportedLine(resources: readonly LiveResource[], users: number): string {
  const count = (kind: Kind) =>
    plural(resources.filter((r) => r.kind === kind.name).length, kind.config.group?.member ?? kind.title);
  const perUser = (kind: Kind) => readPer(kind).length > 0;
  const whole = KINDS.filter((k) => !perUser(k)).map(count);
  // A source that reads no user (a peer's files without permissions) says nothing of them.
  const ofUsers = KINDS.filter(
    (k) => perUser(k) && (users > 0 || resources.some((r) => r.kind === k.name)),
  ).map(count);
  return ofUsers.length === 0
    ? `Exported ${listed(whole)}`
    : `Exported ${listed([...whole, ...ofUsers])} of ${plural(users, 'user')}`;
}

/** What was left out, grouped by why: a few named, many counted per type. */
export function skippedLines(skipped: readonly PeerSkip[]): string {
  const byWhy = new Map<string, PeerSkip[]>();
  for (const s of skipped) byWhy.set(s.why, [...(byWhy.get(s.why) ?? []), s]);
  const lines: string[] = [];
  for (const [why, items] of byWhy) {
    if (items.length <= 3) {
      for (const s of items) lines.push(`  ${s.what}: ${why}\n`);
      continue;
    }
    const byType = new Map<string, number>();
    for (const s of items) byType.set(s.type, (byType.get(s.type) ?? 0) + 1);
    const types = [...byType].map(([type, n]) => `${type} ×${n}`).join(', ');
    lines.push(`  ${items.length} (${types}): ${why}\n`);
  }
  return lines.join('');
}

/** "Read FILE: N resources tenantform manages", and what was skipped. */
function peerLead(path: string, read: PeerRead): string {
  return (
    `Read ${path}: ${plural(read.resources.length, 'resource')} tenantform manages` +
    (read.skipped.length > 0 ? `; skipped ${read.skipped.length}:\n${skippedLines(read.skipped)}` : '.\n')
  );
}

/** Said before the files: what was read and what was left out. */
export function exportLead(origin: ExportOrigin): string {
  if (origin.kind === 'tenant') return `${readSummary(origin.read)}\n`;
  if (origin.kind === 'terraform') return peerLead(origin.file, origin.read);
  const { tenant } = origin;
  const summary = tenant
    ? `Read ${plural(tenant.lists, 'list')} from the tenant${tenant.actions ? ', and its Actions,' : ''} in ${plural(tenant.pages, 'request')}.\n`
    : '';
  return summary + peerLead(origin.path, origin.read);
}

/** "Exported … to DIR:" and a line per file written. */
export function filesLines(dir: string, source: ExportSource, files: readonly ExportedFile[]): string {
  return (
    `${exportedLine(source.resources, source.users)} to ${dir}:\n` +
    files.map((f) => `  ${join(dir, f.name)} (${f.count})\n`).join('')
  );
}

/**
 * "terraform state rm …" for the Terraform resources read: once tenantform
 * manages them, Terraform must stop (without destroying them).
 */
function stateRmHint(read: PeerRead): string {
  const addresses = terraformAddressesToForget(read);
  return (
    `Terraform still manages them (${plural(addresses.length, 'resource')} in its state): remove them from its state, which destroys nothing on the tenant, so that only tenantform changes them:\n` +
    `  terraform state rm ${addresses.map(shellQuote).join(' \\\n    ')}\n`
  );
}

/** A Deploy CLI export's hand-over: the ids it could not record, and AUTH0_EXCLUDED. */
function deployCliAfter(origin: Extract<ExportOrigin, { kind: 'deploy-cli' }>): string {
  const { missing, unidentified, keys } = origin;
  let after = '';
  if (origin.tenant && missing.length > 0)
    after = `Not on the tenant, so not recorded (the next apply creates ${missing.length === 1 ? 'it' : 'them'}): ${listed(missing.map((m) => m.origin))}.\n`;
  if (!origin.tenant && unidentified.length > 0)
    after =
      `The Deploy CLI keeps no ids, and the spec API profile cannot look them up: ${plural(unidentified.length, 'resource is', 'resources are')} recorded without an id (as a 409 adopts one). ` +
      `Until one has its id, a change that needs it (a replace, a removal) is blocked: attach it with tenantform import, e.g.\n` +
      `  tenantform import '${unidentified[0]!}' <id>\n`;
  return (
    after +
    `The Deploy CLI still deploys them: add ${listed(keys)} to its AUTH0_EXCLUDED, so that only tenantform changes them.\n`
  );
}

/** "Recorded N resources in STATE …; tenantform plan DIR has nothing to do.", and the peer's hand-over. */
export function recordedLines(dir: string, source: ExportSource, state: string): string {
  const { origin } = source;
  const idsFrom =
    origin.kind === 'terraform'
      ? ` with the ids from ${origin.file}`
      : origin.kind === 'deploy-cli' && origin.tenant
        ? ' with the ids found on the tenant'
        : '';
  const after =
    origin.kind === 'terraform'
      ? stateRmHint(origin.read)
      : origin.kind === 'deploy-cli'
        ? deployCliAfter(origin)
        : '';
  return `Recorded ${plural(source.records.length, 'resource')} in ${state}${idsFrom}; tenantform plan ${dir} has nothing to do.\n${after}`;
}
