import { action } from './action.js';
import { client } from './client.js';
import type { ReferenceList } from './references.js';
import { resourceServer } from './resource-server.js';

/**
 * Every read-only reference list (references.ts), in the order they are
 * read and reported: the only list of them.
 */
export const REFERENCE_LISTS: readonly ReferenceList[] = [client, action, resourceServer];
