import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { BvhParseError, parseBvhWithReport } from '../../src/io/index.js';
import { readAheadBvhFile, readBvhFile } from '../../src/node/read.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'rotsig-read-'));

/** A two-joint file with `rows` frames of varied numbers, CRLF line ends and a UTF-8 joint name. */
function generated(rows: number): string {
  const lines = [
    'HIERARCHY',
    'ROOT Hüfte',
    '{',
    '  OFFSET 0 90 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '  JOINT 胸😀',
    '  {',
    '    OFFSET 0 10 0',
    '    CHANNELS 3 Yrotation Xrotation Zrotation',
    '    End Site',
    '    {',
    '      OFFSET 0 5 0',
    '    }',
    '  }',
    '}',
    'MOTION',
    `Frames: ${rows}`,
    'Frame Time: 0.0083333',
  ];
  for (let f = 0; f < rows; f++) {
    lines.push(
      [f * 0.01, 90 + Math.sin(f), -f * 0.02, 3 * f, 40 * Math.sin(0.1 * f), -2 * f, 17 * Math.cos(f), 5, -f]
        .map((x, k) => (k % 3 === 0 ? x.toFixed(6) : String(x)))
        .join(' '),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

describe('readBvhFile(path, options)', () => {
  it('readBvhFile(path, { chunkSize }) reads in pieces of any size what parseBvhWithReport reads from the text', () => {
    const dir = fresh();
    const path = join(dir, 'walk.bvh');
    const text = generated(700);
    writeFileSync(path, text);
    const expected = parseBvhWithReport(text);
    for (const chunkSize of [1, 3, 17, 4096, undefined]) {
      const { clip, warnings } = readBvhFile(path, chunkSize === undefined ? {} : { chunkSize });
      expect(warnings).toEqual(expected.warnings);
      expect(clip.skeleton.names).toEqual(['Hüfte', '胸😀']);
      expect(clip.frames).toBe(700);
      expect(Array.from(clip.rotations.data)).toEqual(Array.from(expected.clip.rotations.data));
      expect(Array.from(clip.translations.data)).toEqual(Array.from(expected.clip.translations.data));
    }
    // the parse options pass through
    const add = readBvhFile(path, { positionMode: 'add', chunkSize: 5 });
    expect(add.clip.translations.data[1]).toBe(90 + 90 + Math.sin(0));
  });

  it('readBvhFile reads each of several files of different sizes alone (its read buffer carries nothing over)', () => {
    const dir = fresh();
    // a long file, then shorter ones, then one cut short: each must read as its own text does
    const texts = [generated(900), generated(40), generated(300), generated(300).slice(0, -60)];
    for (let k = 0; k < 2; k++) {
      for (const [i, text] of texts.entries()) {
        const path = join(dir, `f${i}.bvh`);
        writeFileSync(path, text);
        let want: unknown;
        let got: unknown;
        try {
          const r = parseBvhWithReport(text);
          want = [r.clip.frames, Array.from(r.clip.rotations.data), Array.from(r.clip.translations.data)];
        } catch (error) {
          want = (error as Error).message;
        }
        try {
          const r = readBvhFile(path);
          got = [r.clip.frames, Array.from(r.clip.rotations.data), Array.from(r.clip.translations.data)];
        } catch (error) {
          got = (error as Error).message;
        }
        expect(got).toEqual(want);
      }
    }
  });
  it('readBvhFile(path) reports a malformed file with line and column, whatever the chunk size', () => {
    const dir = fresh();
    const path = join(dir, 'broken.bvh');
    writeFileSync(path, generated(50).replace('\r\n0.300000 ', '\r\n0.300000x '));
    for (const chunkSize of [2, 64, undefined]) {
      let caught: unknown;
      try {
        readBvhFile(path, chunkSize === undefined ? {} : { chunkSize });
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(BvhParseError);
      // rows start on line 19: frame 30 is on line 49
      expect((caught as BvhParseError).message).toBe("'0.300000x' is not a number at 49:1");
    }
  });

  it('readBvhFile(path, { chunkSize: 0 }) throws OptionError; a missing file throws ENOENT', () => {
    const dir = fresh();
    const path = join(dir, 'a.bvh');
    writeFileSync(path, generated(2));
    expect(() => readBvhFile(path, { chunkSize: 0 })).toThrow(OptionError);
    expect(() => readBvhFile(path, { chunkSize: 1.5 })).toThrow(OptionError);
    expect(() => readBvhFile(join(dir, 'missing.bvh'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

/** The descriptors this process has open (Linux), or undefined where /proc/self/fd is not there. */
function openDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

describe('readAheadBvhFile(path): the first chunk read on the thread pool for readBvhFile', () => {
  it('a file read ahead (one chunk, or more than one) parses as it does without, and its bytes are the ones used', async () => {
    const dir = fresh();
    // 60,000 rows are about 5.6 MB: more than the 4 MiB read ahead
    for (const rows of [3, 700, 60_000]) {
      const path = join(dir, `walk${rows}.bvh`);
      const text = generated(rows);
      writeFileSync(path, text);
      const plain = readBvhFile(path);
      await readAheadBvhFile(path);
      // the frame time changed on disk after the read-ahead (same length): the parse sees the bytes read
      // ahead, so the first chunk must have come from it
      writeFileSync(path, text.replace('Frame Time: 0.0083333', 'Frame Time: 0.0083334'));
      const early = readBvhFile(path);
      // 0.0083333 is read as 120 Hz, 0.0083334 (6.7e-8 s off 1/120, past its digits' rounding) as written
      expect(early.clip.frameTime).toBe(1 / 120);
      expect(early.clip.frames).toBe(rows);
      expect(early.warnings).toEqual(plain.warnings);
      expect(Array.from(early.clip.rotations.data)).toEqual(Array.from(plain.clip.rotations.data));
      expect(Array.from(early.clip.translations.data)).toEqual(Array.from(plain.clip.translations.data));
      // taken once: the next read is of the file as it is now
      expect(readBvhFile(path).clip.frameTime).toBe(0.0083334);
    }
  });

  it('a read-ahead still running when readBvhFile comes is dropped and the file read anew', async () => {
    const dir = fresh();
    const path = join(dir, 'a.bvh');
    writeFileSync(path, generated(50));
    const before = openDescriptors();
    const done = readAheadBvhFile(path);
    // no turn of the loop: the read-ahead's callback has not run
    expect(readBvhFile(path).clip.frames).toBe(50);
    await done;
    expect(openDescriptors()).toBe(before);
  });

  it('read-aheads not taken are dropped (two are kept) and close their files; errors are left to readBvhFile', async () => {
    const dir = fresh();
    const before = openDescriptors();
    const paths = [0, 1, 2, 3].map((k) => join(dir, `f${k}.bvh`));
    for (const [k, p] of paths.entries()) writeFileSync(p, generated(10 + k));
    for (const p of paths) await readAheadBvhFile(p);
    // the two newest are kept
    if (before !== undefined) expect(openDescriptors()).toBe(before + 2);
    expect(readBvhFile(paths[3]).clip.frames).toBe(13);
    expect(readBvhFile(paths[2]).clip.frames).toBe(12);
    expect(openDescriptors()).toBe(before);
    // a missing file, a directory and a malformed file: readBvhFile reports each as it would anyway
    readAheadBvhFile(join(dir, 'missing.bvh'));
    expect(() => readBvhFile(join(dir, 'missing.bvh'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    readAheadBvhFile(dir);
    expect(() => readBvhFile(dir)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    const bad = join(dir, 'bad.bvh');
    writeFileSync(bad, generated(40).replace('0.300000', '0.300000x'));
    await readAheadBvhFile(bad);
    expect(() => readBvhFile(bad)).toThrow(BvhParseError);
    expect(openDescriptors()).toBe(before);
  });
});
