// The frame-data scanner reads decimals itself (digits into a double, Clinger's fast path, `Number()` for
// the rest): every spelling must give exactly the float64 `Number()` gives, whatever the chunking. CI
// reads 200,000 generated numbers; `npm run fuzz` (FUZZ_CASES=1000) reads 5,000,000.
import { describe, expect, test } from 'vitest';
import { BvhChunkParser, parseBvhBytes } from '../../src/io/index.js';
import { rng as generator } from '../support/random.js';

const NUMBERS = Math.max(20_000, Number(process.env.FUZZ_CASES ?? 40) * 5_000);
const ENCODER = new TextEncoder();

function digitString(rand: () => number, count: number): string {
  let s = '';
  for (let k = 0; k < count; k++) s += String(Math.floor(rand() * 10));
  return s;
}

/**
 * One decimal spelling, built digit by digit (not by formatting a double, which only gives the shortest
 * forms): signs, leading and trailing zeros, 0 to 30 digits on either side of the point, six decimals
 * (the writer's and most exporters' form) and the 15/16/17-digit edge of the fast path, exponents up to
 * ±400 (denormals, overflow to Infinity excluded: those are rejected), -0, `.5`, `5.`.
 */
function decimal(rand: () => number): string {
  const sign = rand() < 0.4 ? '-' : rand() < 0.05 ? '+' : '';
  const shape = rand();
  let intPart: string;
  let fracPart: string | undefined;
  if (shape < 0.35) {
    // %.6f, with 1 to 4 integer digits: the scanner's six-decimal step
    intPart = String(Math.floor(rand() * 10 ** Math.floor(1 + rand() * 4)));
    fracPart = digitString(rand, 6);
  } else if (shape < 0.55) {
    // around the fast path's 15 significant digits
    const total = 13 + Math.floor(rand() * 6);
    const split = Math.floor(rand() * (total + 1));
    intPart = digitString(rand, split) || '0';
    fracPart = digitString(rand, total - split);
  } else if (shape < 0.65) {
    // leading zeros on both sides, trailing zeros
    intPart = '0'.repeat(Math.floor(rand() * 4)) + digitString(rand, Math.floor(rand() * 4));
    fracPart =
      '0'.repeat(Math.floor(rand() * 12)) +
      digitString(rand, Math.floor(rand() * 10)) +
      '0'.repeat(Math.floor(rand() * 12));
    if (intPart === '' && fracPart === '') intPart = '0';
  } else if (shape < 0.7) {
    // .5 and 5.
    if (rand() < 0.5) {
      intPart = '';
      fracPart = digitString(rand, 1 + Math.floor(rand() * 8));
    } else {
      intPart = digitString(rand, 1 + Math.floor(rand() * 8));
      fracPart = '';
    }
  } else if (shape < 0.75) {
    // zeros: -0, 0.000000, 000
    intPart = '0'.repeat(1 + Math.floor(rand() * 3));
    fracPart = rand() < 0.5 ? undefined : '0'.repeat(Math.floor(rand() * 8));
  } else {
    // anything: 0 to 30 digits each side
    intPart = digitString(rand, Math.floor(rand() * 31));
    fracPart = rand() < 0.2 ? undefined : digitString(rand, Math.floor(rand() * 31));
    if (intPart === '' && !fracPart) intPart = digitString(rand, 1 + Math.floor(rand() * 20));
  }
  let s = sign + intPart + (fracPart === undefined ? '' : `.${fracPart}`);
  if (rand() < 0.2) {
    const e = Math.floor(rand() < 0.5 ? rand() * 30 : rand() * 400) * (rand() < 0.5 ? -1 : 1);
    const expSign = e < 0 ? '-' : rand() < 0.3 ? '+' : '';
    s += `${rand() < 0.5 ? 'e' : 'E'}${expSign}${'0'.repeat(rand() < 0.1 ? 2 : 0)}${Math.abs(e)}`;
  }
  // Infinity is rejected as a non-finite value (tested elsewhere): keep the finite spellings
  return Number.isFinite(Number(s)) ? s : '1.5';
}

/** A one-joint file whose frame data are the numbers themselves (position channels, `replace`). */
function fileOf(values: string[], separators: (i: number) => string): Uint8Array {
  let data = '';
  for (let i = 0; i < values.length; i++) data += values[i] + separators(i);
  const frames = values.length / 3;
  return ENCODER.encode(
    `HIERARCHY\nROOT a\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: ${frames}\nFrame Time: 0.01\n${data}`,
  );
}

function firstMismatch(read: ArrayLike<number>, values: string[]): string | undefined {
  for (let i = 0; i < values.length; i++) {
    const want = Number(values[i]);
    if (!Object.is(read[i], want)) return `'${values[i]}' read as ${read[i]}, Number() gives ${want}`;
  }
  return undefined;
}

describe('frame data decimals read as Number() reads them', () => {
  test(`${NUMBERS.toLocaleString('en')} generated spellings, whole and cut into chunks of any size`, () => {
    const rand = generator(20261123);
    const values: string[] = [];
    for (let i = 0; i < NUMBERS - (NUMBERS % 3); i++) values.push(decimal(rand));
    // rows one per line (LF or CRLF), separated by spaces or tabs
    const bytes = fileOf(values, (i) => (i % 3 === 2 ? (i % 6 === 5 ? '\r\n' : '\n') : i % 5 ? ' ' : '\t'));
    const whole = parseBvhBytes(bytes).clip.translations.data;
    expect(firstMismatch(whole, values)).toBeUndefined();
    // chunks of random sizes cut numbers (and the six-decimal step) anywhere
    const parser = new BvhChunkParser({ byteLength: bytes.length });
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 16 : 70_000));
      parser.push(bytes.slice(at, at + size));
      at += size;
    }
    expect(firstMismatch(parser.finish().clip.translations.data, values)).toBeUndefined();
  });

  test('the edges of the fast paths: 15 to 17 digits, 2^53, six decimals next to other bytes, -0', () => {
    const values = [
      '999999999999999',
      '9999999999999999',
      '99999999999999999',
      '9007199254740993',
      '9007199254740992.5',
      '900719925474099.3',
      '0.1234567890123456789',
      '123456.789012',
      '-0.000000',
      '-0',
      '+0.000000',
      '1.000000e1',
      '1.000000E-1',
      '0.1000000',
      '-123.456789',
      '1e22',
      '1e23',
      '4.9e-324',
      '2.2250738585072011e-308',
      '1.7976931348623157e308',
      '0.5e-5',
    ];
    const clip = parseBvhBytes(fileOf(values, (i) => (i % 3 === 2 ? '\n' : ' '))).clip;
    expect(firstMismatch(clip.translations.data, values)).toBeUndefined();
    expect(Object.is(clip.translations.data[8], -0)).toBe(true);
    expect(Object.is(clip.translations.data[9], -0)).toBe(true);
  });
});
