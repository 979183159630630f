import { describe, expect, it } from 'vitest';
import { toLockInfo } from './lock-holder.js';

const record = { id: 'l1', pid: 42, host: 'ci-1', command: 'apply', since: '2024-01-01T00:00:00.000Z' };

describe('a lock record read back by a backend', () => {
  it('keeps every field a holder has, and the process identity when recorded', () => {
    expect(toLockInfo(record)).toEqual(record);
    expect(toLockInfo({ ...record, start: '123', pidNamespace: 'pid:[1]', extra: 1 })).toEqual({
      ...record,
      start: '123',
      pidNamespace: 'pid:[1]',
    });
  });

  it.each([
    ['a missing field', { ...record, host: undefined }],
    ['a field of another type', { ...record, pid: '42' }],
    ['not an object', 'l1'],
    ['nothing', null],
  ])('is held by "unknown" when it has %s', (_why, value) => {
    expect(toLockInfo(value).id).toBe('unknown');
  });
});
