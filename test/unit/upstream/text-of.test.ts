import { describe, expect, it } from 'vitest';
import { textOf } from '../../../src/upstream/parse.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('textOf', () => {
  it('decodes an ASCII body to the same text', () => {
    const text = '{"Name":"node-1","Status":"alive","Tags":{"dc":"eu-west"}}';
    expect(textOf(utf8(text))).toBe(text);
  });

  it('decodes non-ASCII UTF-8 as UTF-8, not byte by byte', () => {
    const text = '{"name":"équipe Zürich ✓ 日本 🚀"}';
    const out = textOf(utf8(text));
    expect(out).toBe(text);
    expect(JSON.parse(out)).toEqual({ name: 'équipe Zürich ✓ 日本 🚀' });
  });

  it('replaces invalid UTF-8 with U+FFFD as the UTF-8 decoder does', () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]);
    expect(textOf(bytes)).toBe('{"a":"\ufffd\ufffd"}');
  });

  it('reads only the view, not the whole buffer behind it', () => {
    const whole = utf8('xx{"a":"é"}yy');
    const view = whole.subarray(2, whole.length - 2);
    expect(textOf(view)).toBe('{"a":"é"}');
    const ascii = utf8('••{"a":1}••');
    expect(textOf(ascii.subarray(6, ascii.length - 6))).toBe('{"a":1}');
  });

  it('keeps a byte-order mark and an empty body as the UTF-8 decoder does', () => {
    expect(textOf(new Uint8Array([0xef, 0xbb, 0xbf, 0x31]))).toBe('\ufeff1');
    expect(textOf(new Uint8Array(0))).toBe('');
  });

  it('agrees with the UTF-8 decoder on every byte value between ASCII ones', () => {
    for (let b = 0; b < 256; b++) {
      const bytes = new Uint8Array([0x61, b, 0x62]);
      expect(textOf(bytes)).toBe(Buffer.from(bytes).toString('utf8'));
    }
  });
});
