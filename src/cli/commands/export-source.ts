/**
 * What `tenantform export` needs of a source (export-sources.ts makes one from
 * the tenant or a Terraform state, deploy-cli-source.ts from a Deploy CLI
 * export), and what the peer sources share: reading a peer's file, and the
 * list of what was skipped.
 */
import { readFileSync } from 'node:fs';
import type { PeerSkip } from '../../config/peer-source.js';
import type { LiveResource, RecordedResource } from '../../resources/index.js';
import { absolute } from '../context.js';
import { CliError, type CommandIO } from '../io.js';

/**
 * What an export writes and records, whichever source it read (the tenant,
 * a Terraform state, a Deploy CLI export): export-sources.ts makes one.
 */
export interface ExportSource {
  /** The resources the config files declare. */
  resources: readonly LiveResource[];
  /** What the state records: those with their ids, or adopted without one. */
  records: readonly RecordedResource[];
  /** Said before the files: what was read and what was left out. */
  lead: string;
  /** For "… permissions of N users": the users whose permissions were read. */
  users: number;
  /** Where the recorded ids came from, after "Recorded N resources in STATE": ' with their ids from the tenant'. */
  idsFrom: string;
  /** Said last, once the state is saved. */
  after: string;
}

/** A peer's file as text; a problem reading it is an error naming it. */
export function readPeerFile(path: string, flag: string, io: CommandIO): string {
  try {
    return readFileSync(absolute(path, io), 'utf8');
  } catch (err) {
    const reason = (err as { code?: string }).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new CliError(`${flag} ${path}: ${reason}`);
  }
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
