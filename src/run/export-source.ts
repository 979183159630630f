/**
 * What an export has of a source, whichever it read (the tenant, a
 * Terraform state, a Deploy CLI export), as data: what the config files
 * declare, what the state records, and where they came from (its `origin`,
 * which src/cli words); and what the peer sources share: reading a peer's
 * file, the input an export goes by.
 */
import { readFileSync } from 'node:fs';
import type { TenantRead } from '../api/index.js';
import type { ConfigIssue } from '../config/index.js';
import type { PeerFound, PeerRead } from '../config/peer-source.js';
import type { LiveResource, RecordedResource } from '../resources/index.js';
import { RunError } from './errors.js';
import type { ExportRequest } from './read-requests.js';
import type { ConfigInput, RunIO } from './requests.js';
import { absolute } from './state-store.js';

/** Where a source's problems go: told as the config's (nothing is written then). */
export interface IssuesView {
  event(event: { kind: 'config-issues'; issues: readonly ConfigIssue[] }): void;
}

/** The peer whose files an export reads. */
export type PeerName = 'terraform' | 'deploy-cli';

/** Where an export's resources came from, with what its summary and its hints need. */
export type ExportOrigin =
  | { kind: 'tenant'; read: TenantRead }
  | { kind: 'terraform'; file: string; read: PeerRead }
  | {
      kind: 'deploy-cli';
      path: string;
      read: PeerRead;
      /** The Deploy CLI's asset keys tenantform manages (for AUTH0_EXCLUDED). */
      keys: readonly string[];
      /** The tenant's read for the ids (API profile full); null under spec. */
      tenant: { lists: number; pages: number; actions: boolean } | null;
      /** Full: the resources the tenant lacks, left out of the state. */
      missing: readonly PeerFound[];
      /** Spec: the addresses recorded without the id their kind has. */
      unidentified: readonly string[];
    };

/** What an export writes and records, whichever source it read. */
export interface ExportSource {
  /** The resources the config files declare. */
  resources: readonly LiveResource[];
  /** What the state records: those with their ids, or adopted without one. */
  records: readonly RecordedResource[];
  /** For "… permissions of N users": the users whose permissions were read. */
  users: number;
  origin: ExportOrigin;
}

/** What the state records of a resource read with its id. */
export const recordOf = ({ kind, address, identity, attributes, id }: LiveResource): RecordedResource => ({
  kind,
  address,
  identity,
  attributes,
  id,
});

/** A peer's file as text; a problem reading it stops the export (PEER_FILE_UNREADABLE). */
export function readPeerFile(path: string, peer: PeerName, io: Pick<RunIO, 'cwd'>): string {
  try {
    return readFileSync(absolute(path, io), 'utf8');
  } catch (err) {
    const reason = (err as { code?: string }).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new RunError({ code: 'PEER_FILE_UNREADABLE', peer, path, reason }, `${path}: ${reason}`);
  }
}

/** The input an export's connection and state scope go by: the directory it writes, no environment. */
export function exportInput(request: Pick<ExportRequest, 'dir'>): ConfigInput {
  return { env: null, paths: [request.dir], varFiles: [] };
}
