/**
 * Numbers as BVH text, written byte by byte: the growing ASCII buffer of the writer ({@link RowWriter}), the
 * digit tables, fixed-point formatting and the shortest round-trip text of a float64.
 *
 * @module
 */

/** ASCII bytes to string in one native call where the platform has the (universal) Encoding API. */
const DECODER: { decode(bytes: Uint8Array): string } | undefined =
  typeof TextDecoder === 'function' ? new TextDecoder() : undefined;

/**
 * Writes `s` as UTF-8 into `b` from `at` (room for 3 bytes per UTF-16 unit is the caller's); returns the end.
 * A function of its own so that the first, long header text compiles the loop on the fly (on-stack
 * replacement) without a store after it that the optimised code has never seen.
 */
function encodeUtf8(s: string, b: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) b[at++] = c;
    else if (c < 0x800) {
      b[at++] = 0xc0 | (c >> 6);
      b[at++] = 0x80 | (c & 63);
    } else {
      // a surrogate pair is one code point of 4 bytes (2 UTF-16 units, so within the 3-per-unit room)
      const next = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        b[at++] = 0xf0 | (c >> 18);
        b[at++] = 0x80 | ((c >> 12) & 63);
      } else {
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // a lone surrogate, as TextEncoder writes it
        b[at++] = 0xe0 | (c >> 12);
      }
      b[at++] = 0x80 | ((c >> 6) & 63);
      b[at++] = 0x80 | (c & 63);
    }
  }
  return at;
}

/**
 * Growable ASCII byte buffer for the motion rows: numbers are written digit by digit, so a 100,000-frame
 * file costs no string per value. Rows become strings one at a time.
 */
export class RowWriter {
  bytes: Uint8Array;
  length = 0;
  /** The last `scale` of {@link fixed} and its reciprocal. */
  private scale = 1;
  private inverse = 1;

  /** A writer into `bytes` (default: a new 4 KiB buffer; it grows as needed). */
  constructor(bytes: Uint8Array = new Uint8Array(4096)) {
    this.bytes = bytes;
  }

  /** Makes room for `extra` more bytes at once (one allocation instead of repeated doubling). */
  reserve(extra: number): void {
    this.ensure(extra);
  }

  /** Appends `s` encoded as UTF-8 (the header: joint names may be any Unicode). */
  text(s: string): void {
    this.ensure(3 * s.length);
    this.length = encodeUtf8(s, this.bytes, this.length);
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + extra));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(c: number): void {
    this.ensure(1);
    this.bytes[this.length++] = c;
  }

  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.bytes[this.length++] = s.charCodeAt(i);
  }

  /**
   * Writes `v` with `places` decimals like `toFixed`: scaled and rounded once (half away from zero), which
   * can differ from `toFixed` only in the last digit of a value within a rounding error of a tie. Negative
   * values that round to zero print without a sign. `scale` is `10 ** places`.
   */
  fixed(v: number, places: number, scale: number): void {
    const scaled = Math.round(Math.abs(v) * scale);
    if (scaled < 2147483648 && scale < 2147483648) {
      // angles and positions of real files (|v| < 2147 at 6 decimals) take this path
      this.ensure(places + 20);
      const b = this.bytes;
      let at = this.length;
      if (v < 0 && scaled !== 0) b[at++] = 45;
      if (scale !== this.scale) {
        this.scale = scale;
        this.inverse = 1 / scale;
      }
      at = writeFixed32(b, at, scaled, places, scale, this.inverse);
      this.length = at;
      return;
    }
    this.fixedLarge(v, places, scale, scaled);
  }

  /** {@link fixed} for values whose scaled integer does not fit in 31 bits. */
  private fixedLarge(v: number, places: number, scale: number, scaled: number): void {
    if (!(scaled < 9007199254740992)) {
      this.ascii(v.toFixed(places));
      return;
    }
    this.ensure(places + 20);
    const b = this.bytes;
    let at = this.length;
    if (v < 0 && scaled !== 0) b[at++] = 45;
    let int = Math.floor(scaled / scale);
    let frac = scaled - int * scale;
    if (frac < 0) {
      int -= 1;
      frac += scale;
    }
    let digits = 1;
    for (let t = int; t >= 10; t = Math.floor(t / 10)) digits++;
    for (let k = digits - 1; k >= 0; k--) {
      b[at + k] = 48 + (int % 10);
      int = Math.floor(int / 10);
    }
    at += digits;
    if (places > 0) {
      b[at++] = 46;
      for (let k = places - 1; k >= 0; k--) {
        b[at + k] = 48 + (frac % 10);
        frac = Math.floor(frac / 10);
      }
      at += places;
    }
    this.length = at;
  }

  /** The buffered bytes as a string, then empties the buffer. */
  take(): string {
    if (DECODER !== undefined) {
      const text = DECODER.decode(this.bytes.subarray(0, this.length));
      this.length = 0;
      return text;
    }
    let out = '';
    // without TextDecoder: 8 KiB at a time, under engines' argument-count limits
    for (let i = 0; i < this.length; i += 8192) {
      const end = Math.min(this.length, i + 8192);
      out += String.fromCharCode.apply(null, this.bytes.subarray(i, end) as unknown as number[]);
    }
    this.length = 0;
    return out;
  }
}

/** ASCII digit triples "000" to "999": three digits per table read (3 kB, stays in cache). */
export const DIGIT_TRIPLES = new Uint8Array(3000);
for (let k = 0; k < 1000; k++) {
  DIGIT_TRIPLES[3 * k] = 48 + Math.floor(k / 100);
  DIGIT_TRIPLES[3 * k + 1] = 48 + (Math.floor(k / 10) % 10);
  DIGIT_TRIPLES[3 * k + 2] = 48 + (k % 10);
}

/**
 * Writes `scaled / scale` (both below 2^31, `scale = 10^places`, `inverse = 1 / scale`) with `places`
 * decimals into `b` at `at`; returns the end. Exact integer arithmetic throughout:
 * - the quotient by `scale` taken through `inverse` is within 2^31 · 2^-52 < 1 of the true one, and one
 *   step corrects it either way;
 * - a quotient by 10 or 1000 is `(x * 0.1) | 0` or `(x * 0.001) | 0`, which for 0 <= x < 2^31 is exactly
 *   ⌊x / 10⌋ (⌊x / 1000⌋): the double nearest 0.1 (0.001) is above it, so a multiple cannot fall below its
 *   quotient, and the product's error (under 10^-8) is far from the next integer for the others.
 * Digits go three at a time through a table, so a value costs few dependent multiplications.
 */
export function writeFixed32(
  b: Uint8Array,
  at: number,
  scaled: number,
  places: number,
  scale: number,
  inverse: number,
): number {
  let int = Math.floor(scaled * inverse);
  let frac = scaled - int * scale;
  if (frac < 0) {
    int--;
    frac += scale;
  } else if (frac >= scale) {
    int++;
    frac -= scale;
  }
  // integer part: up to 10 digits
  if (int < 10) b[at++] = 48 + int;
  else if (int < 100) {
    const t = 3 * int;
    b[at] = DIGIT_TRIPLES[t + 1];
    b[at + 1] = DIGIT_TRIPLES[t + 2];
    at += 2;
  } else if (int < 1000) {
    const t = 3 * int;
    b[at] = DIGIT_TRIPLES[t];
    b[at + 1] = DIGIT_TRIPLES[t + 1];
    b[at + 2] = DIGIT_TRIPLES[t + 2];
    at += 3;
  } else at = writeInteger(b, at, int);
  if (places === 0) return at;
  b[at] = 46;
  // fraction: `places` digits with leading zeros, from the last group back
  let k = at + 1 + places;
  let left = places;
  while (left >= 3) {
    const q = (frac * 0.001) | 0;
    const t = 3 * (frac - q * 1000);
    b[k - 3] = DIGIT_TRIPLES[t];
    b[k - 2] = DIGIT_TRIPLES[t + 1];
    b[k - 1] = DIGIT_TRIPLES[t + 2];
    k -= 3;
    frac = q;
    left -= 3;
  }
  while (left > 0) {
    const q = (frac * 0.1) | 0;
    b[--k] = 48 + frac - q * 10;
    frac = q;
    left--;
  }
  return at + 1 + places;
}

/** Writes the decimal digits of an integer from 1,000 to 2^31 − 1 (see {@link writeFixed32}). */
function writeInteger(b: Uint8Array, at: number, int: number): number {
  let digits = 4;
  for (let t = 10000; t <= int && digits < 10; t *= 10) digits++;
  let k = at + digits;
  while (int >= 1000) {
    const q = (int * 0.001) | 0;
    const t = 3 * (int - q * 1000);
    b[k - 3] = DIGIT_TRIPLES[t];
    b[k - 2] = DIGIT_TRIPLES[t + 1];
    b[k - 1] = DIGIT_TRIPLES[t + 2];
    k -= 3;
    int = q;
  }
  while (k > at) {
    const q = (int * 0.1) | 0;
    b[--k] = 48 + int - q * 10;
    int = q;
  }
  return at + digits;
}

/** Shortest text that reads back to the same float64, `-0` included. */
export function formatExact(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}
