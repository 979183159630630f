/**
 * A request's config loaded: its paths and variable files, with the
 * variables the request resolved, in the run's environment and working
 * directory. The loader is imported when first needed, so that commands
 * which never read a config do not load it.
 */
import type { LoadResult } from '../config/index.js';
import type { ConfigInput, RunIO } from './requests.js';

export async function loadInputConfig(
  input: Pick<ConfigInput, 'paths' | 'varFiles'>,
  vars: Record<string, string>,
  io: Pick<RunIO, 'env' | 'cwd' | 'signal'>,
): Promise<LoadResult> {
  const { loadConfig } = await import('../config/index.js');
  return loadConfig(input.paths, {
    vars,
    varFiles: input.varFiles,
    env: io.env,
    cwd: io.cwd,
    ...(io.signal ? { signal: io.signal } : {}),
  });
}
