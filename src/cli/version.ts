import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The package version, read once from package.json. */
export const TOOL_VERSION: string = (require('../../package.json') as { version: string }).version;

/**
 * The package's schemas/ directory. src/cli, dist/cli and the CLI's bundle
 * (dist/bundle) all sit two levels below the package root, so one relative
 * URL serves them all.
 */
export const PACKAGE_SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));
