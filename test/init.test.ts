import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { CommandIO } from '../src/cli/io.js';
import { loadConfig } from '../src/config/index.js';
import { KINDS } from '../src/resources/index.js';

function bufferIO(cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: {},
    cwd,
  };
  return { io, out: () => stdout, err: () => stderr };
}

const cli = (args: string[], io: CommandIO) => main(['node', 'tenantform', ...args], io);

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'tenantform-init-e2e-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('tenantform init', () => {
  it('scaffolds a config that tenantform validate accepts', async () => {
    const init = bufferIO(work);
    expect(await cli(['init', 'tenant-config'], init.io)).toBe(0);
    expect(init.err()).toBe('');

    const validate = bufferIO(join(work, 'tenant-config'));
    expect(await cli(['validate', '.'], validate.io), validate.err()).toBe(0);
    expect(validate.out()).toMatch(new RegExp(`^Valid: ${KINDS.length} files`));
  });

  it('declares one example of each kind and leaves the workflow and schemas out of the config', async () => {
    expect(await cli(['init', 'c'], bufferIO(work).io)).toBe(0);
    const result = await loadConfig(join(work, 'c'), { env: {}, cwd: work });
    expect(result.issues).toEqual([]);
    expect(result.files).toEqual(KINDS.map((k) => `c/${k.config.file}`).sort());
    expect(result.counts).toMatchObject({
      rate_limit_policies: 2,
      user_permissions: 1,
      token_exchange_profiles: 1,
    });
  });

  it('exits 1 on a second run and 0 with --force', async () => {
    expect(await cli(['init', 'c'], bufferIO(work).io)).toBe(0);
    const again = bufferIO(work);
    expect(await cli(['init', 'c'], again.io)).toBe(1);
    expect(again.err()).toContain('rate-limit-policies.yaml');
    expect(await cli(['init', 'c', '--force'], bufferIO(work).io)).toBe(0);
  });
});
