import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../apply/index.js';
import { rateLimitLine, reportApply } from './apply-report.js';
import { createJsonProgress } from './apply-json.js';
import { rate429Cell } from './fleet-output.js';
import { StopRequest, type CommandIO } from './io.js';

const ADDRESS = 'rate_limit_policy["oauth_authentication_api","client","default"]';

function captured(signal?: AbortSignal) {
  const out = { stdout: '', stderr: '' };
  const io: CommandIO = {
    stdout: { write: (s: string) => (out.stdout += s) },
    stderr: { write: (s: string) => (out.stderr += s) },
    env: {},
    cwd: '/',
    signal,
  };
  return { io, out };
}

/** A store failure: one operation acknowledged but not recorded, one never started. */
const storeFailed: ApplyResult = {
  done: [],
  failed: [],
  notAttempted: [{ address: `${ADDRESS}-2`, action: 'create' }],
  unrecorded: [
    {
      address: ADDRESS,
      action: 'delete',
      outcome: 'deleted',
      entry: { op: 'remove', address: ADDRESS },
      message: 'could not append to the journal',
    },
  ],
  stoppedBy: { message: 'could not append to the journal', cause: 'record' },
  skipped: [],
};

describe('reportApply', () => {
  it('with a rescue file: the next apply replays it', () => {
    const { io, out } = captured();
    const code = reportApply(
      storeFailed,
      { rescue: { path: '/tmp/state.json.rescue-1.json' }, interrupted: false, failuresListed: true },
      io,
    );
    expect(code).toBe(1);
    expect(out.stderr).toContain('saved in /tmp/state.json.rescue-1.json (mode 0600)');
    expect(out.stderr).toContain('Run apply again to continue; it replays the rescue file first.');
  });

  it('when no rescue file could be written, it never says one is replayed, and says how to keep the lines', () => {
    const { io, out } = captured();
    reportApply(
      storeFailed,
      {
        rescue: { path: null, problem: 'no space left on the device (ENOSPC)' },
        interrupted: false,
        failuresListed: true,
      },
      io,
    );
    expect(out.stderr).toContain('no rescue file could be written: no space left on the device (ENOSPC)');
    expect(out.stderr).not.toMatch(/replays the rescue file/);
    expect(out.stderr).toContain(
      'Before running apply again, save the "tenantform-rescue:" lines above to a file and record them with `tenantform state rescue FILE`',
    );
  });

  it('a stop for a closed output says so and exits 141; a signal says Interrupted and exits 130', () => {
    const result: ApplyResult = { ...storeFailed, unrecorded: [], stoppedBy: null };
    const options = { rescue: null, interrupted: true, failuresListed: true };
    const closed = new AbortController();
    closed.abort(new StopRequest('output', 'standard output was closed'));
    const a = captured(closed.signal);
    expect(reportApply(result, options, a.io)).toBe(141);
    expect(a.out.stderr).toContain(
      'Stopped: standard output was closed (its reader went away): no new request was sent after that;',
    );
    const interrupted = new AbortController();
    interrupted.abort(new StopRequest('signal', 'interrupted'));
    const b = captured(interrupted.signal);
    expect(reportApply(result, options, b.io)).toBe(130);
    expect(b.out.stderr).toContain('Interrupted: no new request was sent after the signal;');
  });
});

describe('429 answers, counted the same in text, JSON and the fleet table', () => {
  it.each([
    [3, 3, '3 requests answered 429 (rate limited) and were retried.', '3, all retried'],
    [1, 1, '1 request answered 429 (rate limited) and was retried.', '1, all retried'],
    [5, 4, '5 requests answered 429 (rate limited); 4 were retried.', '5, 4 retried'],
    [0, 0, null, '0'],
  ])('%i answered, %i retried', (answered, retried, text, cell) => {
    expect(rateLimitLine(answered, retried)).toBe(text);
    expect(rate429Cell(answered, retried)).toBe(cell);
    let json = '';
    createJsonProgress({ write: (s: string) => (json += s) }).summary(
      { done: [], failed: [], notAttempted: [], unrecorded: [], stoppedBy: null, skipped: [] },
      { requests: 10, status429: answered, retried429: retried },
    );
    expect(JSON.parse(json)).toMatchObject({ answered_429: answered, retried_429: retried });
  });
});
