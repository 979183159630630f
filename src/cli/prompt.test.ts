import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmOnTerminal } from './prompt.js';

describe('the apply question', () => {
  it('approves only "yes"', async () => {
    for (const [typed, approved] of [
      ['yes\n', true],
      ['y\n', false],
    ] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      const answer = confirmOnTerminal('Apply?', input, output);
      input.write(typed);
      expect(await answer).toBe(approved);
    }
  });

  it('cancels with exit 130 and says nothing was sent when the input closes (Ctrl+C / Ctrl+D)', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (c: Buffer) => (shown += c.toString()));
    const answer = confirmOnTerminal('Apply?', input, output);
    input.end();
    await expect(answer).rejects.toMatchObject({
      exitCode: 130,
      message: expect.stringMatching(/nothing was sent/),
    });
    expect(shown).not.toContain('Error');
  });
});
