/**
 * The wire: an undici Agent with keep-alive, sized connection pools, connect
 * and request timeouts and TLS verification forced on; and one attempt of one
 * request through any undici Dispatcher (the built-in Agent or an injected
 * one). Requests go through Dispatcher.request with origin and path kept apart,
 * so the encoded path is sent exactly as built.
 */
import { Agent, type Dispatcher } from 'undici';
import type { Headers } from './retry.js';
import type { HttpMethod } from '../resources/index.js';

export interface TransportSettings {
  parallelism: number;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/** Largest response body read; a larger one is a bad response. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Options of the built-in Agent. rejectUnauthorized is explicit so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn it off. */
export function agentOptions(settings: TransportSettings): Agent.Options {
  return {
    connections: Math.max(1, Math.floor(settings.parallelism)),
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    headersTimeout: settings.requestTimeoutMs,
    bodyTimeout: settings.requestTimeoutMs,
    connect: { timeout: settings.connectTimeoutMs, rejectUnauthorized: true },
  };
}

export function createAgent(settings: TransportSettings): Agent {
  return new Agent(agentOptions(settings));
}

export interface WireRequest {
  origin: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  body?: string;
  requestTimeoutMs: number;
  signal?: AbortSignal;
}

export interface WireResponse {
  status: number;
  headers: Headers;
  body: string;
}

export class BodyTooLargeError extends Error {
  readonly code = 'BODY_TOO_LARGE';
}

async function readBody(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new BodyTooLargeError(`response body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends one request and reads the whole answer. Throws undici's errors for network trouble. */
export async function sendOnce(dispatcher: Dispatcher, req: WireRequest): Promise<WireResponse> {
  const res = await dispatcher.request({
    origin: req.origin,
    path: req.path,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    headersTimeout: req.requestTimeoutMs,
    bodyTimeout: req.requestTimeoutMs,
    signal: req.signal ?? null,
  });
  const body = await readBody(res.body);
  return { status: res.statusCode, headers: res.headers as Headers, body };
}
