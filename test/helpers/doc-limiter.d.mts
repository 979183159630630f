/** Types of doc-limiter.mjs (a limiter written from the service's docs alone). */
export interface DocLimit {
  burst: number;
  perWindow: number;
  windowSec?: number;
}

export class DocBucket {
  constructor(limit: DocLimit);
  admit(t: number): { ok: boolean; headers: Record<string, string> };
}

export interface DocLimiterStats {
  requests: number;
  byStatus: Record<string, number>;
  byRoute: Record<string, number>;
  byGroup: Record<
    string,
    { requests: number; byStatus: Record<string, number>; firstRequestAt?: number; lastRequestAt?: number }
  >;
  firstRequestAt?: number;
  lastRequestAt?: number;
}

export interface DocLimiter {
  origin: string;
  baseUrl: string;
  token: string;
  rateLimit: { burst: number; perWindow: number; windowSec: number };
  stats(): DocLimiterStats;
  stop(): Promise<void>;
}

export function startDocLimiter(options: {
  limit: DocLimit;
  groups?: { name: string; limit: DocLimit; routes: string[] }[];
  date?: 'node' | 'exact' | 'absent';
  frontEndOffsetMs?: number;
  now?: () => number;
}): Promise<DocLimiter>;
