/**
 * The emulator's reference list modules, one per read-only reference list of
 * src/resources REFERENCE_LISTS, in its order: the tenant's applications,
 * Actions and APIs, which tenantform reads to check the config's references
 * and never changes. The tenant holds them (and serves their lists and
 * refuses bodies naming what they lack) under API profile full only; under
 * spec the emulator is exactly what it was without them.
 */
import { actions } from './action.js';
import { clients } from './client.js';
import { logs } from './log.js';
import { resourceServers } from './resource-server.js';

export const EMULATOR_REFERENCES = [clients, actions, resourceServers, logs] as const;

export type { Application } from './client.js';
export type { TenantAction } from './action.js';
export type { ResourceServer } from './resource-server.js';
export type { TenantLogEvent } from './log.js';
