// The reader's fast paths (whole lines of plain decimals; a joint's quaternion copied when its angles are
// those of the frame before) against an oracle built without them: every number read by Number() from its
// spelling, every quaternion composed by quat.fromEuler from those numbers, compared bit for bit.
import { afterEach, describe, expect, test } from 'vitest';
import { BvhChunkParser, BvhParseError, parseBvhBytes, parseBvhWithReport } from '../../src/io/index.js';
import { setSimdEnabled, simdAvailable } from '../../src/numeric/simd.js';
import { fromEuler } from '../../src/quat/euler.js';
import { rng as generator } from '../support/random.js';

const ORDERS = ['ZXY', 'YXZ', 'ZYX', 'XZY'] as const;
const DEG = Math.PI / 180;

/** A root with 6 channels and `joints - 1` children with 3, each in one of {@link ORDERS}. */
function hierarchy(joints: number): string {
  const axes = (o: string) => [...o].map((a) => `${a}rotation`).join(' ');
  let text = `HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 90 0\n\tCHANNELS 6 Xposition Yposition Zposition ${axes(ORDERS[0])}\n`;
  for (let j = 1; j < joints; j++)
    text += `\tJOINT J${j}\n\t{\n\t\tOFFSET 0 ${j} 0\n\t\tCHANNELS 3 ${axes(ORDERS[j % ORDERS.length])}\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t}\n\t}\n`;
  return `${text}}\n`;
}

/**
 * A spelling of a value in degrees: mostly what exporters write (six decimals, -0.000000, integers), now
 * and then one the general scanner reads (an exponent, a leading '+', '.5', 17 digits), and six decimals
 * with more after them or up to 10 integer digits before.
 */
function spell(rand: () => number, plain = false, range = 340): string {
  if (plain) return plainSpelling(rand, range);
  const r = rand();
  const v = (rand() - 0.5) * 340;
  if (r < 0.55) return v.toFixed(6);
  if (r < 0.65) return rand() < 0.5 ? '-0.000000' : '0.000000';
  if (r < 0.72) return String(Math.round(v));
  if (r < 0.76) return v.toExponential(4);
  if (r < 0.79) return `+${Math.abs(v).toFixed(3)}`;
  if (r < 0.82) return `.${Math.floor(rand() * 1000)}`;
  if (r < 0.85) return v.toPrecision(17);
  if (r < 0.88) return '-0';
  // six decimals read in one step, then more digits, or 15 and 16 digits in all (16 leave the fast path)
  if (r < 0.91) return v.toFixed(8 + Math.floor(rand() * 2));
  if (r < 0.94) return (v * 10 ** Math.floor(rand() * 8)).toFixed(6);
  if (r < 0.96) return v.toFixed(Math.floor(rand() * 6));
  return v.toFixed(2);
}

/** What the fast paths read: six decimals, zeros of both signs, integers, exponents, 0 to 9 decimals. */
function plainSpelling(rand: () => number, range: number): string {
  const r = rand();
  const v = (rand() - 0.5) * range;
  if (r < 0.6) return v.toFixed(6);
  if (r < 0.7) return rand() < 0.5 ? '-0.000000' : '0.000000';
  if (r < 0.8) return String(Math.round(v));
  if (r < 0.85) return v.toExponential(4);
  return v.toFixed(Math.floor(rand() * 10));
}

interface Generated {
  text: string;
  tokens: string[][];
}

/**
 * Frames of `joints` joints: rows that repeat the last (still joints, -0 against 0), separators of spaces
 * and tabs, line ends LF or CRLF, trailing blanks; with `odd`, a few rows that only the general scanner
 * reads (a non-breaking space, a vertical tab).
 */
function generate(
  seed: number,
  joints: number,
  frames: number,
  odd: boolean,
  plain = false,
  range = 340,
): Generated {
  const rand = generator(seed);
  const width = 6 + 3 * (joints - 1);
  const tokens: string[][] = [];
  let body = '';
  let previous: string[] = [];
  for (let f = 0; f < frames; f++) {
    const row: string[] = [];
    for (let c = 0; c < width; c++) {
      // a joint that keeps its three angles, or flips the sign of a zero
      const still = f > 0 && rand() < 0.4;
      row.push(still ? previous[c] : spell(rand, plain, range));
      if (still && previous[c] === '0.000000' && rand() < 0.2) row[c] = '-0.000000';
    }
    tokens.push(row);
    previous = row;
    const sep = () => (rand() < 0.9 ? ' ' : rand() < 0.5 ? '\t' : '  ');
    let line = row[0];
    for (let c = 1; c < width; c++) {
      const s = odd && rand() < 0.002 ? (rand() < 0.5 ? '\u00a0' : '\v') : sep();
      line += s + row[c];
    }
    if (rand() < 0.2) line += ' ';
    body += line + (rand() < 0.3 ? '\r\n' : '\n');
  }
  return { text: `${hierarchy(joints)}MOTION\nFrames: ${frames}\nFrame Time: 0.01\n${body}`, tokens };
}

/** The clip the file describes, computed from each token's Number() and quat.fromEuler. */
function oracle(g: Generated, joints: number): { rotations: Float64Array; translations: Float64Array } {
  const frames = g.tokens.length;
  const rotations = new Float64Array(frames * joints * 4);
  const translations = new Float64Array(frames * joints * 3);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    const v = g.tokens[f].map(Number);
    translations.set([v[0], v[1], v[2]], f * joints * 3);
    for (let j = 1; j < joints; j++) translations.set([0, j, 0], (f * joints + j) * 3);
    for (let j = 0; j < joints; j++) {
      const c = j === 0 ? 3 : 6 + 3 * (j - 1);
      fromEuler(q, [v[c] * DEG, v[c + 1] * DEG, v[c + 2] * DEG], ORDERS[j % ORDERS.length]);
      rotations.set(q, (f * joints + j) * 4);
    }
  }
  return { rotations, translations };
}

/** Bit-for-bit equality that tells -0 from 0; returns the first index that differs, or -1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

/** `bytes` pushed to a {@link BvhChunkParser} in pieces of 1 to `largest` bytes (seeded). */
function parseInPieces(bytes: Uint8Array, seed: number, largest: number) {
  const rand = generator(seed);
  const parser = new BvhChunkParser();
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(rand() * largest);
    parser.push(bytes.subarray(at, at + size));
    at += size;
  }
  return parser.finish();
}

afterEach(() => {
  setSimdEnabled(true);
});

// The plain rows go through the WebAssembly row scanner where the engine has one (numeric/simd.wat,
// bvhRows) and through plainRow otherwise: both paths against the same oracle.
describe.each([
  ['the WebAssembly row scanner', true],
  ['the JavaScript row scanner', false],
])('BVH reader fast paths, %s', (_, kernel) => {
  test.each([
    [1, false],
    [2, true],
    [3, false],
    [4, true],
  ])(
    'parseBvhBytes(file %i, odd rows %s) equals Number() and fromEuler bit for bit, -0 apart',
    (seed, odd) => {
      setSimdEnabled(kernel);
      const joints = 9;
      const g = generate(seed, joints, 700, odd);
      const expected = oracle(g, joints);
      const bytes = new TextEncoder().encode(g.text);
      for (const clip of [
        parseBvhBytes(bytes).clip,
        parseBvhWithReport(g.text).clip,
        parseInPieces(bytes, seed, 5000).clip,
      ]) {
        expect(clip.frames).toBe(700);
        expect(firstDifference(clip.rotations.data, expected.rotations)).toBe(-1);
        expect(firstDifference(clip.translations.data, expected.translations)).toBe(-1);
      }
    },
  );

  test("a file of several megabytes (over the WebAssembly scanner's windows of 1 MB), whole and in pieces of up to 300 kB", () => {
    setSimdEnabled(kernel);
    const joints = 31;
    // plain spellings only, so the row scanners run long stretches (buffer ends, windows, chunk ends)
    const g = generate(9, joints, 3000, false, true);
    const bytes = new TextEncoder().encode(g.text);
    expect(bytes.length).toBeGreaterThan(2.5e6);
    const expected = oracle(g, joints);
    for (const clip of [parseBvhBytes(bytes).clip, parseInPieces(bytes, 3, 300_000).clip]) {
      expect(clip.frames).toBe(3000);
      expect(firstDifference(clip.rotations.data, expected.rotations)).toBe(-1);
      expect(firstDifference(clip.translations.data, expected.translations)).toBe(-1);
    }
  });

  test('angles of any size (half angles beyond ±90°, where the converters leave the polynomials) as Number() and fromEuler', () => {
    setSimdEnabled(kernel);
    const joints = 7;
    const g = generate(12, joints, 400, false, true, 1500);
    const expected = oracle(g, joints);
    const clip = parseBvhBytes(new TextEncoder().encode(g.text)).clip;
    expect(firstDifference(clip.rotations.data, expected.rotations)).toBe(-1);
    expect(firstDifference(clip.translations.data, expected.translations)).toBe(-1);
  });

  test('the WebAssembly scanner is in use where it is available, and not when switched off', () => {
    setSimdEnabled(kernel);
    expect(simdAvailable()).toBe(kernel);
  });

  test('a row the fast path cannot finish is read again with the general rules and messages', () => {
    setSimdEnabled(kernel);
    const g = generate(5, 3, 40, false);
    const lines = g.text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Frame Time')) + 21;
    // a word that is not a number late in a line of plain decimals: the error names its line and column
    const words = lines[at].trimEnd().split(' ');
    words[words.length - 2] = '1.5x';
    lines[at] = words.join(' ');
    const text = lines.join('\n');
    const column = lines[at].indexOf('1.5x') + 1;
    expect(() => parseBvhBytes(new TextEncoder().encode(text))).toThrow(BvhParseError);
    try {
      parseBvhBytes(new TextEncoder().encode(text));
    } catch (e) {
      expect((e as BvhParseError).line).toBe(at + 1);
      expect((e as BvhParseError).column).toBe(column);
      expect((e as BvhParseError).message).toContain("'1.5x' is not a number");
    }
  });

  test.each(['12.34-5678', '0.1,23456', '7.123/456', '3.14159*2', '-0.000+001'])(
    'a decimal with %s in its six decimals is no number (no byte of * + , - . / passes for a digit)',
    (word) => {
      setSimdEnabled(kernel);
      const g = generate(7, 3, 30, false, true);
      const lines = g.text.split('\n');
      const at = lines.findIndex((l) => l.startsWith('Frame Time')) + 5;
      const words = lines[at].trimEnd().split(' ');
      words[1] = word;
      lines[at] = words.join(' ');
      expect(() => parseBvhBytes(new TextEncoder().encode(lines.join('\n')))).toThrow(
        `'${word}' is not a number`,
      );
    },
  );

  test('a line with one number too many or too few is reported as in the general scanner', () => {
    setSimdEnabled(kernel);
    const g = generate(6, 3, 30, false);
    const lines = g.text.split('\n');
    // frame 10: the data starts on the line after Frame Time
    const at = lines.findIndex((l) => l.startsWith('Frame Time')) + 1 + 10;
    const short = [...lines];
    short[at] = short[at].trimEnd().split(/\s+/).slice(1).join(' ');
    expect(() => parseBvhBytes(new TextEncoder().encode(short.join('\n')))).toThrow(
      /expected 12 numbers for frame 10, found 11/,
    );
    const long = [...lines];
    long[at] = `${long[at].trimEnd()} 1.000000`;
    expect(() => parseBvhBytes(new TextEncoder().encode(long.join('\n')))).toThrow(
      /expected 12 numbers for frame 10, found 13/,
    );
  });
});
