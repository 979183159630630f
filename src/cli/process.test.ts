import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardOutput, type RawStream } from './process.js';
import { StopRequest, stopRequested, writeChunks } from './io.js';

/** A stream that keeps what it was given until `close()`; then every write fails as EPIPE does. */
class FakeStream extends EventEmitter implements RawStream {
  text = '';
  errored: Error | null = null;
  constructor(readonly isTTY = false) {
    super();
  }
  close(): void {
    this.errored = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  }
  write(chunk: string): boolean {
    if (this.errored) return false;
    this.text += chunk;
    return true;
  }
}

function setUp() {
  const raw = { stdout: new FakeStream(), stderr: new FakeStream(true) };
  const controller = new AbortController();
  return { raw, controller, output: guardOutput(controller, raw) };
}

describe('guardOutput', () => {
  it('passes writes through while both streams work', () => {
    const { raw, controller, output } = setUp();
    output.stdout.write('plan\n');
    output.stderr.write('note\n');
    expect([raw.stdout.text, raw.stderr.text]).toEqual(['plan\n', 'note\n']);
    expect(output.stderr.isTTY).toBe(true);
    expect(controller.signal.aborted).toBe(false);
    expect(output.closed()).toBeNull();
  });

  it('a failed write stops the run as a closed output; later writes go to the other stream', () => {
    const { raw, controller, output } = setUp();
    raw.stdout.close();
    output.stdout.write('the rest of the plan\n');
    expect(stopRequested(controller.signal)?.kind).toBe('output');
    expect(stopRequested(controller.signal)?.message).toBe('standard output was closed');
    expect(output.stdout.closed).toBe(true);
    expect(output.closed()).toBe('standard output');
    // The output the reader walked away from is dropped; what comes later is not.
    output.stdout.write('Apply incomplete: no change was made.\n');
    expect(raw.stderr.text).toBe('Apply incomplete: no change was made.\n');
  });

  it('while the run is already stopping (Ctrl+C under | tee), the write that failed goes to the other stream too', () => {
    const { raw, controller, output } = setUp();
    controller.abort(new StopRequest('signal', 'interrupted'));
    raw.stdout.close();
    output.stdout.write('Apply incomplete: 3 created.\n');
    expect(raw.stderr.text).toBe('Apply incomplete: 3 created.\n');
    expect(stopRequested(controller.signal)?.kind).toBe('signal');
  });

  it('an error event (a write that failed later) marks the stream closed too', () => {
    const { raw, controller, output } = setUp();
    raw.stderr.emit('error', new Error('write EIO'));
    expect(output.stderr.closed).toBe(true);
    expect(stopRequested(controller.signal)?.message).toBe('standard error was closed');
    output.stderr.write('warning\n');
    expect(raw.stdout.text).toBe('warning\n');
  });

  it('writes nothing anywhere once both streams are closed, and never throws', () => {
    const { raw, output } = setUp();
    raw.stdout.close();
    raw.stderr.close();
    expect(() => output.stdout.write('a\n')).not.toThrow();
    expect(() => output.stderr.write('b\n')).not.toThrow();
    expect(raw.stdout.text + raw.stderr.text).toBe('');
  });

  it('bulk output (writeChunks) stops at a closed stream instead of moving to the other one', () => {
    const { raw, output } = setUp();
    raw.stdout.close();
    writeChunks(
      output.stdout,
      Array.from({ length: 5000 }, (_, i) => `line ${i} `.padEnd(100, '.') + '\n'),
    );
    expect(raw.stderr.text).toBe('');
  });
});

describe('StopRequest', () => {
  it('a Ctrl+C after a closed output makes the stop an interruption, once', () => {
    const stop = new StopRequest('output', 'standard output was closed');
    expect(stop.kind).toBe('output');
    expect(stop.noteSignal()).toBe(true);
    expect(stop.kind).toBe('signal');
    expect(stop.noteSignal()).toBe(false);
  });
});
