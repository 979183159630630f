import { createRequire } from 'node:module';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const formats = require('./formats.cjs') as Record<string, (value: string) => boolean>;

describe('uri format', () => {
  const samples = [
    'https://api.example.com/',
    'urn:partner:token',
    'not a uri',
    '//no-scheme.example',
    'https://[::1]/x',
    'https://exa mple.com/',
    '',
  ];

  it("answers as ajv-formats' uri, the first time and when asked again", () => {
    const reference = fullFormats.uri as (value: string) => boolean;
    for (let round = 0; round < 2; round++) {
      for (const value of samples) expect(formats.uri!(value), value).toBe(reference(value));
    }
  });

  it('still checks values past what it remembers', () => {
    for (let i = 0; i < 1500; i++) formats.uri!(`https://api${i}.example.com/`);
    expect(formats.uri!('has space')).toBe(false);
    expect(formats.uri!('https://ok.example/')).toBe(true);
  });
});
