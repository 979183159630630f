import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, MAX_BODY_BYTES, sendOnce, type WireRequest } from './transport.js';

const REQUEST: WireRequest = {
  origin: 'https://tenant.example',
  method: 'POST',
  path: '/api/v2/rate-limit-policies',
  headers: {},
  requestTimeoutMs: 1000,
};

/** A dispatcher that answers every request with `chunks` as the body, each its own 'data' event. */
function answering(chunks: Buffer[]): Dispatcher {
  const request = async () => ({ statusCode: 201, headers: {}, body: Readable.from(chunks) });
  return { request } as unknown as Dispatcher;
}

describe('sendOnce reads the whole body', () => {
  it('joins chunks before decoding, so a character split between two chunks stays whole', async () => {
    const bytes = Buffer.from('{"message":"déjà là"}');
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of é
    const res = await sendOnce(answering([bytes.subarray(0, cut), bytes.subarray(cut)]), REQUEST);
    expect(res).toMatchObject({ status: 201, body: '{"message":"déjà là"}' });
  });

  it('reads an empty body as an empty string', async () => {
    expect((await sendOnce(answering([]), REQUEST)).body).toBe('');
  });

  it('refuses a body larger than MAX_BODY_BYTES, counted across chunks', async () => {
    const half = Buffer.alloc(MAX_BODY_BYTES / 2 + 1, 0x20);
    await expect(sendOnce(answering([half, half]), REQUEST)).rejects.toBeInstanceOf(BodyTooLargeError);
    const exact = Buffer.alloc(MAX_BODY_BYTES / 2, 0x20);
    expect((await sendOnce(answering([exact, exact]), REQUEST)).body).toHaveLength(MAX_BODY_BYTES);
  });
});
