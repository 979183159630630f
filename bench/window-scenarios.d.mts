/** Types of bench/window-scenarios.mjs, for test/bench-smoke.test.ts. */
import type { RateLimitOptions } from '../src/emulator/index.js';

export interface WindowCell {
  name: string;
  limit: RateLimitOptions;
  n: number;
  note?: string;
}
export interface WindowShape {
  burst: number;
  perWindow: number;
  windowSec: number;
}
export interface CellResult {
  code: number;
  floorMs: number;
  httpMs: number;
  httpRatio: number;
  processRatio: number;
  share429: number;
  status429: number;
  failed: number;
  accepted: number;
  recorded: number;
}
export interface Figure {
  name: string;
  unit: string;
  value: number | null;
  runs: number[];
  pass: boolean | null;
  note: string;
}

export const MINUTE_SCALE: number;
export const WINDOW_CELLS: WindowCell[];
export const SKEWS_MS: number[];
export function windowsNeeded(shape: WindowShape, n: number): number;
export function windowFloorMs(shape: WindowShape, n: number, firstAtMs: number): number;
export function nominalFloorS(cell: WindowCell): number;
export interface DateVariant {
  server: 'emulator' | 'docs';
  name: string;
  options: Record<string, unknown>;
}
export const DATE_VARIANTS: DateVariant[];
export function runWindowCell(
  work: string,
  cell: WindowCell,
  options?: {
    clockSkewMs?: number;
    args?: string[];
    dir?: string;
    server?: 'emulator' | 'docs';
    options?: Record<string, unknown>;
  },
): Promise<CellResult>;
export function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]>;
export function offersMaxRate(helpText: string): boolean;
export function maxRateMissing(): Figure[];
