import { describe, expect, test } from 'vitest';
import { OptionError } from '../../src/errors.js';
import {
  BvhChunkParser,
  BvhParseError,
  type BvhParseResult,
  type ParseBvhOptions,
  parseBvhBytes,
  parseBvhStream,
  parseBvhWithReport,
} from '../../src/io/index.js';
import { rng as generator } from '../support/random.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../support/shared-data.js';
import { QUIRK_FILES, readQuirk } from './quirks.js';

const ENCODER = new TextEncoder();

/** Pushes `bytes` in pieces of `size` bytes (copies, so no piece is a view the parser could keep). */
function parseChunked(bytes: Uint8Array, size: number, options: ParseBvhOptions = {}): BvhParseResult {
  const parser = new BvhChunkParser(options);
  for (let at = 0; at < bytes.length; at += size) parser.push(bytes.slice(at, at + size));
  return parser.finish();
}

type Outcome =
  | { ok: true; result: BvhParseResult }
  | { ok: false; message: string; line: number; column: number; code: string };

function outcome(run: () => BvhParseResult): Outcome {
  try {
    return { ok: true, result: run() };
  } catch (e) {
    if (!(e instanceof BvhParseError)) throw e;
    return { ok: false, message: e.message, line: e.line, column: e.column, code: e.code };
  }
}

/** Same clip bit for bit (and -0 apart from 0), same warnings; or the same error at the same place. */
function expectSameOutcome(actual: Outcome, expected: Outcome, what: string): void {
  if (!expected.ok || !actual.ok) {
    expect(actual.ok ? 'a clip' : (actual as { message: string }).message, what).toBe(
      expected.ok ? 'a clip' : expected.message,
    );
    if (!actual.ok && !expected.ok) expect(actual, what).toEqual(expected);
    return;
  }
  const a = actual.result;
  const e = expected.result;
  expect(a.warnings, what).toEqual(e.warnings);
  expect(a.clip.skeleton.names, what).toEqual(e.clip.skeleton.names);
  expect(a.clip.source, what).toEqual(e.clip.source);
  expect(a.clip.frames, what).toBe(e.clip.frames);
  for (const key of ['rotations', 'translations'] as const) {
    const x = a.clip[key].data;
    const y = e.clip[key].data;
    expect(x.length, what).toBe(y.length);
    for (let i = 0; i < x.length; i++) {
      if (!Object.is(x[i], y[i]))
        expect({ what, key, i, value: x[i] }).toEqual({ what, key, i, value: y[i] });
    }
  }
}

/** Text as the byte readers see it: lone surrogates become U+FFFD, as UTF-8 cannot hold them. */
function wellFormed(text: string): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(ENCODER.encode(text));
}

function mutate(text: string, rand: () => number): string {
  const pick = (n: number): number => Math.floor(rand() * n);
  const junk = ' \t\r\n\r\n.-+eE0123456789#nanINF\u00a0\ufeff\u00e9\u65e5\ud83d\ude00{}';
  const kind = pick(5);
  const at = pick(text.length + 1);
  if (kind === 0) return text.slice(0, at);
  if (kind === 1) return text.slice(0, at) + junk[pick(junk.length)] + text.slice(at);
  if (kind === 2) return text.slice(0, at) + text.slice(at + 1 + pick(4));
  if (kind === 3) return text.replace(/\n/g, rand() < 0.5 ? '\r\n' : '\r');
  const tokens = text.split(/(\s+)/);
  tokens[pick(tokens.length)] = ['1e400', 'nan', '-0', '.5', '5.', '1e5', '0x10', '', '7 8'][pick(9)];
  return tokens.join('');
}

/** A real file cut to its hierarchy and first `rows` data rows. */
function head(text: string, rows: number): string {
  let at = text.search(/MOTION/i);
  for (let k = 0; k < 3 + rows && at >= 0; k++) at = text.indexOf('\n', at + 1);
  return at < 0 ? text : text.slice(0, at + 1);
}

function corpus(): string[] {
  const texts: string[] = QUIRK_FILES.map(readQuirk);
  if (HAS_SHARED_BVH) for (const file of SHARED_BVH_FILES) texts.push(head(readSharedBvh(file), 4));
  return texts;
}

describe('BvhChunkParser reads any chunking of the bytes as parseBvhWithReport reads the text', () => {
  test('new BvhChunkParser().push(pieces) gives the same clip, warnings or error for the quirk files and real file heads, in pieces of 1 to 4096 bytes', () => {
    for (const text of corpus()) {
      for (const options of [{}, { positionMode: 'add' as const }, { repair: true }]) {
        const expected = outcome(() => parseBvhWithReport(text, options));
        const bytes = ENCODER.encode(text);
        for (const size of [1, 2, 3, 7, 64, 4096]) {
          expectSameOutcome(
            outcome(() => parseChunked(bytes, size, options)),
            expected,
            `${text.slice(0, 40)} in ${size}`,
          );
        }
        expectSameOutcome(
          outcome(() => parseBvhBytes(bytes, options)),
          expected,
          'parseBvhBytes',
        );
      }
    }
  });

  test('new BvhChunkParser().push(pieces) agrees with parseBvhWithReport on 600 seeded mutations (errors with line:column, warnings, strict)', () => {
    const texts = corpus();
    let errors = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const rand = generator(seed);
      let text = texts[seed % texts.length];
      for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) text = mutate(text, rand);
      text = wellFormed(text);
      const options = { strict: rand() < 0.2, repair: rand() < 0.3 };
      const expected = outcome(() => parseBvhWithReport(text, options));
      if (!expected.ok) errors++;
      const bytes = ENCODER.encode(text);
      const size = 1 + Math.floor(rand() * 9);
      expectSameOutcome(
        outcome(() => parseChunked(bytes, size, options)),
        expected,
        `seed ${seed}`,
      );
    }
    // the mutations reach the error paths, not only clean files
    expect(errors).toBeGreaterThan(100);
  });
});

/** A generated file: a root with 3 position channels (printed as they are in 'replace' mode) and a child. */
function generatedFile(tokens: string[][], newline: string, names = ['Hips', 'Chest']): string {
  const lines = [
    'HIERARCHY',
    `ROOT ${names[0]}`,
    '{',
    '\tOFFSET 0 0 0',
    '\tCHANNELS 3 Xposition Yposition Zposition',
    `\tJOINT ${names[1]}`,
    '\t{',
    '\t\tOFFSET 0 1 0',
    '\t\tCHANNELS 3 Zrotation Xrotation Yrotation',
    '\t\tEnd Site',
    '\t\t{',
    '\t\t\tOFFSET 0 1 0',
    '\t\t}',
    '\t}',
    '}',
    'MOTION',
    `Frames: ${tokens.length}`,
    'Frame Time: 0.0083333',
  ];
  for (const row of tokens) lines.push(`${row.slice(0, 3).join(' ')} 0 0 0`);
  return lines.join(newline) + newline;
}

/** Decimal spellings of every length: short, 9 and 10 digits (the int32 edge), 15 to 25 digits, exponents. */
function numberToken(rand: () => number): string {
  const kind = Math.floor(rand() * 8);
  const x = (rand() - 0.5) * 10 ** Math.floor(rand() * 8 - 3);
  if (kind === 0) return x.toFixed(6);
  if (kind === 1) return String(x);
  if (kind === 2) return x.toExponential(Math.floor(rand() * 17));
  if (kind === 3) return x.toPrecision(1 + Math.floor(rand() * 21));
  if (kind === 4) return `${rand() < 0.5 ? '-' : '+'}${Math.floor(rand() * 1e9)}.${Math.floor(rand() * 10)}`;
  if (kind === 5) return `${Math.floor(rand() * 1e10)}`;
  if (kind === 6)
    return ['-0', '0', '.5', '-.25', '5.', '1E3', '1e-7', '900719925474099.9'][Math.floor(rand() * 8)];
  return `${'0'.repeat(Math.floor(rand() * 20))}${Math.floor(rand() * 1e6)}.${'0'.repeat(Math.floor(rand() * 12))}1`;
}

describe('BvhChunkParser at chunk boundaries', () => {
  test('numbers cut anywhere by a chunk boundary read as Number(text), the correctly rounded float64', () => {
    const rand = generator(42);
    const rows: string[][] = [];
    for (let f = 0; f < 300; f++) rows.push([numberToken(rand), numberToken(rand), numberToken(rand)]);
    const bytes = ENCODER.encode(generatedFile(rows, '\n'));
    for (const size of [1, 2, 3, 5, 8, 13, 1000]) {
      const { clip } = parseChunked(bytes, size);
      expect(clip.frames).toBe(rows.length);
      const t = clip.translations.data;
      for (let f = 0; f < rows.length; f++) {
        for (let k = 0; k < 3; k++) {
          const got = t[(f * 2 + 0) * 3 + k];
          if (!Object.is(got, Number(rows[f][k]))) {
            expect({ size, token: rows[f][k], got }).toEqual({
              size,
              token: rows[f][k],
              got: Number(rows[f][k]),
            });
          }
        }
      }
    }
  });

  test('CRLF, CR and LF files cut between CR and LF count lines alike, and name the right line in errors', () => {
    const rows = Array.from({ length: 40 }, (_, f) => [String(f), String(-f), `${f}.5`]);
    for (const newline of ['\r\n', '\r', '\n']) {
      const text = generatedFile(rows, newline);
      const bytes = ENCODER.encode(text);
      for (const size of [1, 2, 3, 4]) {
        const { clip, warnings } = parseChunked(bytes, size);
        expect(clip.frames).toBe(40);
        // the one note: Frame Time 0.0083333 is read as 120 Hz
        expect(warnings.map((w) => w.code)).toEqual(['frame-rate']);
        expect(clip.translations.data[39 * 6 + 2]).toBe(39.5);
      }
      // a short row on line 19 + 30 = 49 (rows start on line 19)
      const broken = generatedFile(
        rows.map((r, f) => (f === 30 ? [r[0], r[1]] : r)),
        newline,
      );
      const encoded = ENCODER.encode(broken);
      for (const size of [1, 2, 3]) {
        expect(() => parseChunked(encoded, size)).toThrow('expected 6 numbers for frame 30, found 5 at 49:1');
      }
    }
  });

  test('UTF-8 joint names cut inside a character read whole, and columns after U+00A0, U+FEFF and 😀 count UTF-16 units', () => {
    const names = ['Hüfte_é', '胸😀 spine'];
    const rows = Array.from({ length: 5 }, (_, f) => [String(f), '1', '2']);
    const text = generatedFile(rows, '\n', names);
    const bytes = ENCODER.encode(text);
    for (let size = 1; size <= 6; size++) {
      const { clip } = parseChunked(bytes, size);
      expect(clip.skeleton.names).toEqual(names);
      expect(clip.frames).toBe(5);
    }
    // U+00A0 (2 bytes) and U+FEFF (3 bytes) separate numbers; a word with 😀 (4 bytes) is no number
    const line = '0\u00a01\ufeff2 0 0 0';
    const spaced = generatedFile(rows, '\n', names).replace('0 1 2 0 0 0', line);
    for (let size = 1; size <= 4; size++) {
      expect(parseChunked(ENCODER.encode(spaced), size).clip.translations.data[1]).toBe(1);
    }
    const bad = spaced.replace('\n1 1 2 0 0 0', '\n1\u00a0\ufeff1😀x 2 0 0 0');
    expect(bad).not.toBe(spaced);
    const badLine = bad.split('\n').findIndex((l) => l.includes('😀x'));
    const column = bad.split('\n')[badLine].indexOf('1😀') + 1;
    for (let size = 1; size <= 5; size++) {
      expect(() => parseChunked(ENCODER.encode(bad), size)).toThrow(
        `'1😀x' is not a number at ${badLine + 1}:${column}`,
      );
    }
  });

  test('a hierarchy longer than the first 64 kB header attempt reads the same, cut small or large', () => {
    const names = Array.from({ length: 1500 }, (_, j) => `joint_${j}_${'x'.repeat(40)}`);
    const lines = ['HIERARCHY', 'ROOT root', '{', 'OFFSET 0 0 0', 'CHANNELS 3 Xposition Yposition Zposition'];
    for (const name of names) lines.push(`JOINT ${name}`, '{', 'OFFSET 0 1 0', 'CHANNELS 1 Zrotation', '}');
    lines.push('}', 'MOTION', 'Frames: 3', 'Frame Time: 0.01');
    for (let f = 0; f < 3; f++) lines.push(Array.from({ length: 1503 }, (_, c) => (f * c) % 7).join(' '));
    const text = lines.join('\n');
    const bytes = ENCODER.encode(text);
    expect(bytes.length).toBeGreaterThan(1 << 17);
    const expected = outcome(() => parseBvhWithReport(text));
    expect(expected.ok).toBe(true);
    for (const size of [1000, 1 << 16, 1 << 20])
      expectSameOutcome(
        outcome(() => parseChunked(bytes, size)),
        expected,
        `${size}`,
      );
  });

  test('rows beyond or short of Frames: without a known size grow the arrays and warn as for text', () => {
    const rows = Array.from({ length: 3000 }, (_, f) => [String(f), '0', '0']);
    for (const declared of [0, 10, 2999, 5000]) {
      const text = generatedFile(rows, '\n').replace('Frames: 3000', `Frames: ${declared}`);
      const expected = outcome(() => parseBvhWithReport(text));
      expectSameOutcome(
        outcome(() => parseChunked(ENCODER.encode(text), 4096)),
        expected,
        `${declared}`,
      );
    }
  });
});

describe('parseBvhStream(source)', () => {
  const text = HAS_SHARED_BVH ? head(readSharedBvh(SHARED_BVH_FILES[0]), 50) : readQuirk('wrapped-rows.bvh');
  const bytes = ENCODER.encode(text);

  test('parseBvhStream(ReadableStream) and parseBvhStream(async iterable) read what parseBvhWithReport reads', async () => {
    const expected = outcome(() => parseBvhWithReport(text));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 777) controller.enqueue(bytes.slice(at, at + 777));
        controller.close();
      },
    });
    expectSameOutcome({ ok: true, result: await parseBvhStream(stream) }, expected, 'ReadableStream');
    async function* pieces(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < bytes.length; at += 5) yield bytes.slice(at, at + 5);
    }
    expectSameOutcome({ ok: true, result: await parseBvhStream(pieces()) }, expected, 'async iterable');
  });

  test('parseBvhStream rejects with BvhParseError on malformed data and cancels the stream', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(ENCODER.encode('HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Wrotation\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(parseBvhStream(stream)).rejects.toThrow("unknown channel 'Wrotation' at 5:12");
    expect(cancelled).toBe(true);
    await expect(parseBvhStream(42 as never)).rejects.toThrow(OptionError);
  });

  test('BvhChunkParser rejects a chunk that is not bytes, a push after finish and a bad byteLength', () => {
    const parser = new BvhChunkParser();
    expect(() => parser.push('text' as never)).toThrow(OptionError);
    parser.push(bytes);
    const result = parser.finish();
    expect(parser.finish()).toBe(result);
    expect(() => parser.push(bytes)).toThrow(OptionError);
    expect(() => new BvhChunkParser({ byteLength: -1 })).toThrow(OptionError);
    expect(() => parseBvhBytes('text' as never)).toThrow(OptionError);
  });
});
