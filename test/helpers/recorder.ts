/** A Recorder that keeps what apply records in memory, in order (executor tests). */
import type { Recorder } from '../../src/apply/index.js';
import type { RecordedResource } from '../../src/resources/index.js';

export type RecordedEntry = { op: 'put'; resource: RecordedResource } | { op: 'remove'; address: string };

export function memoryRecorder(): { recorder: Recorder; entries: RecordedEntry[] } {
  const entries: RecordedEntry[] = [];
  const recorder: Recorder = {
    async record(entry) {
      entries.push(entry);
    },
  };
  return { recorder, entries };
}
