import { describe, expect, it } from 'vitest';
import { checkSchema } from '../schemas/index.js';
import { createJsonProgress } from './apply-json.js';
import type { Plan } from '../plan/types.js';

const A = 'rate_limit_policy["oauth_authentication_api","client","default"]';
const B = 'token_exchange_profile["urn:x:token"]';

function plan(): Plan {
  return {
    format_version: 3,
    api: 'full',
    state: { lineage: null, serial: 0 },
    targets: [A, B],
    changes: [],
    summary: { create: 1, update: 0, replace: 1, delete: 0, forget: 0, blocked: 0, no_op: 0 },
  } as unknown as Plan;
}

describe('apply --json lines', () => {
  it('turns progress events into schema-valid lines with durations from the injected clock', () => {
    let out = '';
    let clock = 1000;
    const json = createJsonProgress({ write: (s: string) => (out += s) }, () => clock);
    json.plan(plan(), [
      { address: A, action: 'replace' },
      { address: B, action: 'create' },
    ]);
    json.onEvent({ type: 'start', address: A, action: 'replace', count: 1 });
    json.onEvent({ type: 'start', address: B, action: 'create', count: 1 });
    clock += 250;
    json.onEvent({ type: 'wait', waitMs: 1500, message: 'rate limit reset' });
    json.onEvent({ type: 'done', address: A, action: 'replace', outcome: 'replaced', status: 201, count: 1 });
    clock += 100;
    json.onEvent({
      type: 'failed',
      address: B,
      action: 'create',
      message: 'the API answered 400',
      status: 400,
      code: 'API_BAD_REQUEST',
      count: 1,
    });
    json.summary(
      {
        done: [{ address: A, action: 'replace', outcome: 'replaced' }],
        failed: [{ address: B, action: 'create', message: 'the API answered 400', code: 'API_BAD_REQUEST' }],
        notAttempted: [],
        unrecorded: [],
        stoppedBy: null,
        skipped: [],
      },
      { requests: 7, status429: 3, retried429: 3 },
    );

    const lines = out
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of lines) expect(checkSchema('applyEvent', line), JSON.stringify(line)).toEqual([]);
    expect(lines).toEqual([
      {
        type: 'plan',
        api: 'full',
        summary: { create: 1, update: 0, replace: 1, delete: 0, forget: 0, blocked: 0, no_op: 0 },
        changes: [
          { address: A, action: 'replace' },
          { address: B, action: 'create' },
        ],
        partial: true,
        destroy: false,
      },
      { type: 'started', address: A, action: 'replace', resources: 1 },
      { type: 'started', address: B, action: 'create', resources: 1 },
      { type: 'wait', wait_ms: 1500, reason: 'rate limit reset' },
      {
        type: 'done',
        address: A,
        action: 'replace',
        outcome: 'replaced',
        status: 201,
        duration_ms: 250,
        resources: 1,
      },
      {
        type: 'failed',
        address: B,
        action: 'create',
        status: 400,
        code: 'API_BAD_REQUEST',
        message: 'the API answered 400',
        duration_ms: 350,
        resources: 1,
      },
      {
        type: 'summary',
        complete: false,
        outcomes: { replaced: 1 },
        done: 1,
        failed: [{ address: B, action: 'create', code: 'API_BAD_REQUEST', message: 'the API answered 400' }],
        not_attempted: [],
        skipped: [],
        requests: 7,
        answered_429: 3,
        retried_429: 3,
      },
    ]);
  });

  it('the schema refuses a line that is not one of the events', () => {
    expect(checkSchema('applyEvent', { type: 'done', address: A })).not.toEqual([]);
    expect(checkSchema('applyEvent', { type: 'progress' })).not.toEqual([]);
  });
});
