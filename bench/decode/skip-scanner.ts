/**
 * A JSON reader that walks the text and builds only the values asked for, stepping over the rest
 * (a bench-only candidate against `JSON.parse` + schema: see bench/decode-ab.ts). Strings without
 * escapes are sliced; anything else it keeps is handed to JSON.parse in its own span.
 */
export class SkipScanner {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++this.i);
  }

  expect(ch: string): void {
    this.ws();
    if (this.s[this.i] !== ch) throw new SyntaxError(`expected ${ch} at ${this.i}`);
    this.i++;
  }

  /** The end of the string starting at `i` (its opening quote), past the closing quote. */
  private stringEnd(i: number): number {
    const s = this.s;
    for (let j = i + 1; ;) {
      const q = s.indexOf('"', j);
      if (q < 0) throw new SyntaxError('unterminated string');
      let b = q - 1;
      while (s.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) return q + 1;
      j = q + 1;
    }
  }

  /** Steps over one value of any kind. */
  skip(): void {
    this.ws();
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === 34) {
      this.i = this.stringEnd(this.i);
      return;
    }
    if (c === 123 || c === 91) {
      let depth = 0;
      for (let j = this.i; j < s.length; j++) {
        const d = s.charCodeAt(j);
        if (d === 34) j = this.stringEnd(j) - 1;
        else if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) {
          if (--depth === 0) {
            this.i = j + 1;
            return;
          }
        }
      }
      throw new SyntaxError('unterminated container');
    }
    let j = this.i;
    while (j < s.length) {
      const d = s.charCodeAt(j);
      if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) break;
      j++;
    }
    if (j === this.i) throw new SyntaxError(`unexpected ${s[j]} at ${j}`);
    this.i = j;
  }

  /** One value, built. */
  value(): unknown {
    this.ws();
    const start = this.i;
    if (this.s.charCodeAt(start) === 34) {
      const end = this.stringEnd(start);
      this.i = end;
      const raw = this.s.slice(start + 1, end - 1);
      return raw.includes('\\') ? JSON.parse(this.s.slice(start, end)) : raw;
    }
    this.skip();
    return JSON.parse(this.s.slice(start, this.i));
  }

  /** Calls `each` with every key of the object here, the scanner on its value: `each` reads it or skips it. */
  object(each: (key: string) => void): void {
    this.expect('{');
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      const key = this.value();
      if (typeof key !== 'string') throw new SyntaxError('object key is not a string');
      this.expect(':');
      const before = this.i;
      each(key);
      if (this.i === before) this.skip();
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return;
      if (c !== ',') throw new SyntaxError(`expected , or } at ${this.i - 1}`);
    }
  }

  array(each: () => void): void {
    this.expect('[');
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      each();
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return;
      if (c !== ',') throw new SyntaxError(`expected , or ] at ${this.i - 1}`);
    }
  }
}
