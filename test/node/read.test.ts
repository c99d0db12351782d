import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { BvhParseError, parseBvhWithReport } from '../../src/io/index.js';
import { readBvhFile } from '../../src/node/read.js';

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
