/**
 * Config: reads the user's YAML (a file or a directory of files), resolves
 * ${NAME} variables, validates against schemas/config.schema.json and checks
 * what the schema cannot (duplicate identities across files, duplicate keys,
 * aliases, size, encoding), reporting every problem at file:line:col.
 *
 * Owns: turning config files into DesiredResource[] or a list of issues.
 * Does not own: which schema says what (schemas/), what a resource is
 * (resources/), or printing and exit codes (cli/).
 */
export type {
  ConfigCounts,
  ConfigIssue,
  ConfigLimits,
  LoadOptions,
  LoadResult,
  ParseContext,
  ParsedFile,
  VariableLookup,
} from './types.js';
export { DEFAULT_LIMITS } from './types.js';
export { loadConfig } from './load.js';
export { parseConfigText } from './parse-text.js';
export { combineParsedFiles, compareIssues } from './combine.js';
export { coreScalar, createVariableLookup, ENV_PREFIX, interpolate, VARIABLE_NAME } from './variables.js';
export { parseVarFileText } from './var-file.js';
export { displayPath } from './source-files.js';
export { findConfigFiles, readTextFile } from './source-files.js';
export { formatConfigText, isConfigText, type FormatResult } from './format.js';
export { formatFiles, type FormatOutcome, type FormattedFile } from './format-files.js';
export { exportConfigFiles, type ExportFile } from './export.js';
