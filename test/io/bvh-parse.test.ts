import { describe, expect, test } from 'vitest';
import { OptionError, RotsigError } from '../../src/errors.js';
import {
  BvhParseError,
  channelEulerOrder,
  parseBvh,
  parseBvhWithReport,
  writeBvh,
} from '../../src/io/index.js';
import { fromEuler } from '../../src/quat/euler.js';
import type { Clip } from '../../src/series/clip.js';
import { bvhOf } from '../support/bvh-source.js';
import { readQuirk } from './quirks.js';

const D = Math.PI / 180;

function rot(clip: Clip, frame: number, joint: number): number[] {
  const i = (frame * clip.rotations.joints + joint) * 4;
  return Array.from(clip.rotations.data.subarray(i, i + 4));
}

function pos(clip: Clip, frame: number, joint: number): number[] {
  const i = (frame * clip.translations.joints + joint) * 3;
  return Array.from(clip.translations.data.subarray(i, i + 3));
}

function expectSameRotation(a: ArrayLike<number>, b: ArrayLike<number>, tol = 1e-14): void {
  const s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  for (let k = 0; k < 4; k++) expect(Math.abs(a[k] - s * b[k])).toBeLessThan(tol);
}

/** The clip every layout variant of the two-joint test skeleton must produce. */
function expectTwoJointClip(clip: Clip): void {
  expect(clip.skeleton.names).toEqual(['Hips', 'Chest']);
  expect(Array.from(clip.skeleton.parents)).toEqual([-1, 0]);
  expect(Array.from(clip.skeleton.restTranslations)).toEqual([0, 0, 0, 0, 10, 0]);
  expect(bvhOf(clip).endSites).toEqual([{ parent: 1, offset: [0, 5, 0] }]);
  expect(clip.frames).toBe(2);
  expect(clip.frameTime).toBe(0.04);
  expect(pos(clip, 0, 0)).toEqual([1, 2, 3]);
  expect(pos(clip, 1, 0)).toEqual([4, 5, 6]);
  expect(pos(clip, 1, 1)).toEqual([0, 10, 0]);
}

describe('parseBvh(text) reads the quirks of real exporters', () => {
  test('parseBvh(text) accepts keywords and channel names in any case (hierarchy, ZPosition, end site, frames:)', () => {
    const clip = parseBvh(readQuirk('case-insensitive.bvh'));
    expectTwoJointClip(clip);
    expect(bvhOf(clip).channels[0]).toEqual([
      'Xposition',
      'Yposition',
      'Zposition',
      'Zrotation',
      'Xrotation',
      'Yrotation',
    ]);
    expect(clip.orders).toEqual(['ZXY', 'ZXY']);
    expectSameRotation(rot(clip, 0, 0), fromEuler([0, 0, 0, 0], [10 * D, 20 * D, 30 * D], 'ZXY'));
  });

  test('parseBvh(text) accepts tabs, blank lines anywhere, trailing spaces and no final newline', () => {
    const text = readQuirk('whitespace.bvh');
    expect(text.endsWith('\n')).toBe(false);
    const clip = parseBvh(text);
    expectTwoJointClip(clip);
    expect(clip.orders).toEqual(['ZYX', 'ZYX']);
  });

  test('parseBvh(text) reads CRLF, CR-only and LF files alike and counts lines in each', () => {
    const lf = readQuirk('whitespace.bvh');
    for (const eol of ['\r\n', '\r']) {
      const clip = parseBvh(lf.replace(/\n/g, eol));
      expectTwoJointClip(clip);
      // the error location is counted in lines of that ending too
      const broken = lf.replace('-40', '-4O').replace(/\n/g, eol);
      try {
        parseBvh(broken);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(BvhParseError);
        expect((e as BvhParseError).line).toBe(30);
      }
    }
  });

  test('parseBvh(text) skips a byte-order mark', () => {
    expectTwoJointClip(parseBvh(`\uFEFF${readQuirk('case-insensitive.bvh')}`));
  });

  test('parseBvh(text) reads { on the ROOT/JOINT line, one-line End Site { OFFSET } and End Site labels', () => {
    const clip = parseBvh(readQuirk('braces-on-line.bvh'));
    expect(clip.skeleton.names).toEqual(['Hips', 'Chest', 'Leg']);
    expect(Array.from(clip.skeleton.parents)).toEqual([-1, 0, 0]);
    expect(bvhOf(clip).endSites).toEqual([
      { parent: 1, offset: [0, 5, 0] },
      { parent: 2, offset: [0, -5, 0], label: 'Leg_end' },
    ]);
    expect(pos(clip, 0, 2)).toEqual([3, -10, 0]);
  });

  test('parseBvh(text) takes the rest of the line as the joint name (colons, dots, dashes, spaces)', () => {
    const clip = parseBvh(readQuirk('names.bvh'));
    expect(clip.skeleton.names).toEqual(['mixamorig:Hips', 'Left Arm.001', 'r-hand_2 (tip)']);
  });

  test('parseBvh(text) reads 0 to 6 channels per joint in any order, positions anywhere', () => {
    const clip = parseBvh(readQuirk('channels.bvh'));
    const ch = bvhOf(clip).channels;
    expect(ch.map((c) => c.length)).toEqual([6, 0, 1, 2, 3]);
    expect(clip.orders).toEqual(['ZYX', 'ZYX', 'YXZ', 'XZY', 'ZYX']);
    // root: Zrot 10, Xpos 11, Yrot 20, Ypos 12, Xrot 30, Zpos 13 -> position (11, 12, 13), rotation ZYX (10, 20, 30)
    expect(pos(clip, 0, 0)).toEqual([11, 12, 13]);
    expectSameRotation(rot(clip, 0, 0), fromEuler([0, 0, 0, 0], [10 * D, 20 * D, 30 * D], 'ZYX'));
    expect(rot(clip, 0, 1)).toEqual([0, 0, 0, 1]);
    expectSameRotation(rot(clip, 0, 2), [0, Math.sin(22.5 * D), 0, Math.cos(22.5 * D)]);
    expectSameRotation(rot(clip, 0, 3), fromEuler([0, 0, 0, 0], [15 * D, 25 * D, 0], 'XZY'));
    expect(pos(clip, 0, 4)).toEqual([8, 9, 7]);
    expect(rot(clip, 0, 4)).toEqual([0, 0, 0, 1]);
  });

  test('parseBvh(text) uses each joint rotation order as listed (ZXY, YXZ, XYZ, XZY, YZX, ZYX)', () => {
    const clip = parseBvh(readQuirk('orders.bvh'));
    expect(clip.orders).toEqual(['ZXY', 'YXZ', 'XYZ', 'XZY', 'YZX', 'ZYX']);
    expectSameRotation(rot(clip, 0, 3), fromEuler([0, 0, 0, 0], [-20 * D, 60 * D, 10 * D], 'XZY'));
  });

  test('parseBvh(text) reads several ROOTs', () => {
    const clip = parseBvh(readQuirk('multi-root.bvh'));
    expect(clip.skeleton.names).toEqual(['Body', 'Head', 'Prop']);
    expect(Array.from(clip.skeleton.parents)).toEqual([-1, 0, -1]);
    expect(bvhOf(clip).endSites.map((s) => s.parent)).toEqual([1, 2]);
    expect(pos(clip, 0, 2)).toEqual([50, 0, 0]);
  });

  test("parseBvh(text) reads 'Frames:' and 'Frame Time:' followed by a TAB or by nothing, and '.0083333' as 120 Hz", () => {
    for (const file of ['frames-tab.bvh', 'frames-no-space.bvh']) {
      const { clip, warnings } = parseBvhWithReport(readQuirk(file));
      expect(clip.frames).toBe(2);
      // the standard rate the digits stand for, said once as a note; the text is kept for the writer
      expect(clip.rate).toBe(120);
      expect(clip.frameTime).toBe(1 / 120);
      expect(bvhOf(clip).frameTimeText).toBe('.0083333');
      expect(warnings.filter((w) => w.code === 'frame-rate')).toHaveLength(1);
      expect(warnings.find((w) => w.code === 'frame-rate')?.message).toMatch(/\.0083333 is read as 120 Hz/);
      expect(writeBvh(clip)).toMatch(/Frame Time: \.0083333\n/);
      // strict mode reads it too: a note, not an error
      expect(parseBvh(readQuirk(file), { strict: true }).rate).toBe(120);
    }
  });

  test("parseBvh(text) keeps a frame time that stands for no standard rate: '0.033' is 30.303 Hz, '0.04' 25 Hz without a note", () => {
    const base = readQuirk('frames-tab.bvh');
    const odd = parseBvhWithReport(base.replace(/Frame Time:\s*\.0083333/, 'Frame Time: 0.033'));
    expect(odd.clip.frameTime).toBe(0.033);
    expect(odd.clip.rate).toBe(1 / 0.033);
    expect(odd.warnings.filter((w) => w.code === 'frame-rate')).toEqual([]);
    const pal = parseBvhWithReport(base.replace(/Frame Time:\s*\.0083333/, 'Frame Time: 0.04'));
    expect(pal.clip.rate).toBe(25);
    expect(pal.warnings.filter((w) => w.code === 'frame-rate')).toEqual([]);
  });

  test('parseBvh(text) reads e-notation, -0, +3, .5 and 5. exactly as Number() does', () => {
    const clip = parseBvh(readQuirk('numbers.bvh'));
    expect(Array.from(clip.skeleton.restTranslations)).toEqual([2.30099286e-5, -0, 100]);
    expect(Object.is(clip.skeleton.restTranslations[1], -0)).toBe(true);
    expect(pos(clip, 0, 0)).toEqual([-0, 3, 0.5]);
    expect(Object.is(clip.translations.data[0], -0)).toBe(true);
    expect(clip.frameTime).toBe(3.33333e-2);
    expectSameRotation(rot(clip, 0, 0), fromEuler([0, 0, 0, 0], [5 * D, 15 * D, -0.25 * D], 'ZYX'));
  });

  test('parseBvh(text) parses frame numbers bit-exactly like Number() for many random decimals', () => {
    let seed = 12345;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const values: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const digits = 1 + Math.floor(rand() * 17);
      const x = (rand() - 0.5) * 10 ** Math.floor(rand() * 8 - 3);
      let s = x.toPrecision(digits);
      if (i % 7 === 0) s = x.toExponential(Math.min(digits, 16));
      if (i % 11 === 0) s = String(x);
      values.push(s);
    }
    const text = `HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 1000\nFrame Time: 1\n${values.join(' ')}`;
    const clip = parseBvh(text);
    for (let i = 0; i < values.length; i++) {
      if (!Object.is(clip.translations.data[i], Number(values[i]))) {
        throw new Error(
          `'${values[i]}' read as ${clip.translations.data[i]}, Number() gives ${Number(values[i])}`,
        );
      }
    }
  });

  test('parseBvh(text) reads frame data as one stream split by the channel count (rows may wrap)', () => {
    const clip = parseBvh(readQuirk('wrapped-rows.bvh'));
    expect(clip.frames).toBe(3);
    expect(pos(clip, 1, 0)).toEqual([4, 5, 6]);
    expect(pos(clip, 2, 0)).toEqual([7, 8, 9]);
    expectSameRotation(rot(clip, 2, 1), fromEuler([0, 0, 0, 0], [4 * D, 5 * D, 6 * D], 'ZYX'));
  });

  test('parseBvhWithReport(text) uses the rows present when Frames: declares fewer, and warns', () => {
    const { clip, warnings } = parseBvhWithReport(readQuirk('extra-row.bvh'));
    expect(clip.frames).toBe(3);
    expect(warnings).toEqual([
      {
        code: 'frame-count',
        message: "'Frames:' declares 2 frames but the data has 3 rows; using 3",
        line: 8,
        column: 1,
      },
    ]);
    expect(() => parseBvh(readQuirk('extra-row.bvh'), { strict: true })).toThrow(
      "'Frames:' declares 2 frames but the data has 3 rows; using 3 (strict mode) at 8:1",
    );
  });

  test('parseBvhWithReport(text) uses the rows present when Frames: declares more, and warns', () => {
    const seen: string[] = [];
    const { clip, warnings } = parseBvhWithReport(readQuirk('missing-row.bvh'), {
      onWarning: (w) => seen.push(w.code),
    });
    expect(clip.frames).toBe(2);
    expect(warnings.map((w) => w.code)).toEqual(['frame-count']);
    expect(seen).toEqual(['frame-count']);
  });

  test("parseBvh(text) replaces OFFSET components by position channels, or adds them with positionMode 'add'", () => {
    const text = readQuirk('additive-root.bvh');
    const replaced = parseBvhWithReport(text);
    expect(pos(replaced.clip, 0, 0)).toEqual([0.5, 1.5, -0.5]);
    expect(replaced.warnings.map((w) => w.code)).toEqual(['position-offset']);
    expect(replaced.warnings[0].message).toMatch(/root 'Hips' sit far from its OFFSET \(0 100 0\).*'add'/);
    expect(replaced.warnings[0].line).toBe(2);
    const added = parseBvhWithReport(text, { positionMode: 'add' });
    expect(pos(added.clip, 1, 0)).toEqual([1, 102, -1]);
    expect(bvhOf(added.clip).positionMode).toBe('add');
    expect(added.warnings).toEqual([]);
  });

  test("parseBvh(text, { positionMode: 'add' }) warns when position channels sit on a non-zero OFFSET", () => {
    const text = readQuirk('additive-root.bvh').replace(/\n0\.5 1\.5|\n1\.0 2\.0|\n1\.5 1\.0/g, (m) =>
      m.replace(/ (\d\.\d)$/, (_, y) => ` ${100 + Number(y)}`),
    );
    const { warnings } = parseBvhWithReport(text, { positionMode: 'add' });
    expect(warnings.map((w) => w.code)).toEqual(['position-offset']);
    expect(parseBvhWithReport(text).warnings).toEqual([]);
  });

  test('parseBvh(text) throws BvhParseError on NaN or Inf values, naming frame, channel and joint', () => {
    expect(() => parseBvh(readQuirk('non-finite.bvh'))).toThrow(
      "non-finite value 'nan' for frame 1, channel Yposition of joint 'Hips' at 20:3",
    );
  });

  test('parseBvh(text, { repair: true }) interpolates NaN/Inf along the channel and reports it', () => {
    const { clip, warnings } = parseBvhWithReport(readQuirk('non-finite.bvh'), { repair: true });
    expect(warnings.map((w) => w.code)).toEqual(['repaired']);
    expect(warnings[0].message).toMatch(
      /^repaired 5 non-finite value\(s\).*frame 1, channel Yposition of joint 'Hips'$/,
    );
    expect(pos(clip, 1, 0)).toEqual([1, 1, 0]); // between 0 and 2
    expect(pos(clip, 4, 0)).toEqual([3, 4, 0]); // last frame holds the previous value
    expectSameRotation(rot(clip, 2, 1), fromEuler([0, 0, 0, 0], [30 * D, 0, 0], 'ZYX')); // between 20 and 40
    expectSameRotation(rot(clip, 3, 1), fromEuler([0, 0, 0, 0], [40 * D, 0, 0], 'ZYX')); // inf -> 0 between 0 and 0
    expectSameRotation(rot(clip, 4, 1), fromEuler([0, 0, 0, 0], [40 * D, 0, 0], 'ZYX'));
    expect(() => parseBvh(readQuirk('non-finite.bvh'), { repair: true, strict: true })).toThrow(
      /strict mode/,
    );
  });

  test('parseBvh(text, { repair: true }) throws when a channel has no finite value at all', () => {
    const text = readQuirk('extra-row.bvh').replace(/\n(\d) /g, '\nnan ');
    expect(() => parseBvh(text, { repair: true })).toThrow(
      "channel Xposition of joint 'Hips' has no finite value to repair from",
    );
  });

  test('parseBvh(text) reads a file with 0 frames and a hierarchy without channels', () => {
    const clip = parseBvh(
      'HIERARCHY\nROOT a\n{\nOFFSET 1 2 3\nCHANNELS 0\n}\nMOTION\nFrames: 0\nFrame Time: 0.1\n',
    );
    expect(clip.frames).toBe(0);
    expect(clip.rotations.data.length).toBe(0);
    const still = parseBvh(
      'HIERARCHY\nROOT a\n{\nOFFSET 1 2 3\nCHANNELS 0\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n',
    );
    expect(still.frames).toBe(2);
    expect(pos(still, 1, 0)).toEqual([1, 2, 3]);
  });

  test('parseBvhWithReport(text) warns about a joint without OFFSET or CHANNELS and a hierarchy without ROOT', () => {
    const { warnings } = parseBvhWithReport('HIERARCHY\nROOT a\n{\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n');
    expect(warnings.map((w) => [w.code, w.message, w.line])).toEqual([
      ['missing-offset', "joint 'a' has no OFFSET; using 0 0 0", 2],
      ['missing-channels', "joint 'a' has no CHANNELS line; reading it as CHANNELS 0", 2],
    ]);
    const empty = parseBvhWithReport('HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.1\n');
    expect(empty.warnings.map((w) => w.message)).toEqual(['the hierarchy has no ROOT']);
    expect(empty.clip.skeleton.names).toEqual([]);
  });
});

const BASE = [
  'HIERARCHY',
  'ROOT Hips',
  '{',
  '  OFFSET 0 0 0',
  '  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation',
  '  JOINT Chest',
  '  {',
  '    OFFSET 0 10 0',
  '    CHANNELS 3 Zrotation Yrotation Xrotation',
  '    End Site',
  '    {',
  '      OFFSET 0 5 0',
  '    }',
  '  }',
  '}',
  'MOTION',
  'Frames: 2',
  'Frame Time: 0.04',
  '1 2 3 10 20 30 40 50 60',
  '4 5 6 -10 -20 -30 -40 -50 -60',
].join('\n');

/** BASE with line `line` (1-based) replaced. */
function withLine(line: number, text: string): string {
  const lines = BASE.split('\n');
  lines[line - 1] = text;
  return lines.join('\n');
}

// [what, text, exact message including location]
const ERRORS: [string, string, string][] = [
  ['empty file', '  \n ', 'the file is empty; expected HIERARCHY at 1:1'],
  [
    'no HIERARCHY',
    BASE.replace('HIERARCHY', 'HIERARCHIE'),
    "expected HIERARCHY at the start of the file, found 'HIERARCHIE' at 1:1",
  ],
  ['no MOTION', BASE.slice(0, BASE.indexOf('MOTION')), 'the file ends before MOTION at 16:1'],
  ['stray word', withLine(16, 'MOTIONS'), "expected ROOT or MOTION, found 'MOTIONS' at 16:1"],
  ['unnamed ROOT', withLine(2, 'ROOT   '), 'ROOT has no name at 2:8'],
  ['no brace', withLine(7, '  OFFSET 0 10 0'), "expected '{' after JOINT Chest, found 'OFFSET' at 7:3"],
  [
    'unclosed joint',
    BASE.slice(0, BASE.indexOf('  }\n}')),
    "the file ends inside joint 'Chest' (opened at 6:3) at 14:1",
  ],
  ['second OFFSET', withLine(9, '    OFFSET 1 1 1'), "joint 'Chest' has a second OFFSET at 9:5"],
  ['second CHANNELS', withLine(8, '    CHANNELS 0'), "joint 'Chest' has a second CHANNELS line at 9:5"],
  [
    'stray keyword in joint',
    withLine(8, '    OFFSETT 0 10 0'),
    "unexpected 'OFFSETT' in joint 'Chest'; expected OFFSET, CHANNELS, JOINT, End Site or '}' at 8:5",
  ],
  ['bad OFFSET value', withLine(8, '    OFFSET 0 1O 0'), "expected an OFFSET value, found '1O' at 8:14"],
  [
    'infinite OFFSET value',
    withLine(8, '    OFFSET 0 1e999 0'),
    "the OFFSET value '1e999' is not finite at 8:14",
  ],
  [
    'bad channel count',
    withLine(9, '    CHANNELS 7 Zrotation Yrotation Xrotation'),
    "expected a channel count from 0 to 6 after CHANNELS, found '7' at 9:14",
  ],
  [
    'short channel list',
    withLine(9, '    CHANNELS 3 Zrotation Yrotation'),
    "CHANNELS of joint 'Chest' declares 3 channels but lists 2 at 9:14",
  ],
  [
    'unknown channel',
    withLine(9, '    CHANNELS 3 Zrotation Wrotation Xrotation'),
    "unknown channel 'Wrotation' at 9:26",
  ],
  [
    'duplicate channel',
    withLine(9, '    CHANNELS 3 Zrotation Zrotation Xrotation'),
    "channel 'Zrotation' appears twice in joint 'Chest' at 9:26",
  ],
  ['End without Site', withLine(10, '    End Sight'), "expected 'Site' after 'End' at 10:9"],
  [
    'End Site without brace',
    withLine(11, '      OFFSET 0 5 0'),
    "expected '{' after End Site, found 'OFFSET' at 11:7",
  ],
  [
    'unclosed End Site',
    BASE.slice(0, BASE.indexOf('    }')).replace(/\n$/, ''),
    'the file ends inside the End Site opened at 10:5 at 12:19',
  ],
  [
    'joint in End Site',
    withLine(12, '      JOINT x'),
    "unexpected 'JOINT' in End Site; expected OFFSET or '}' at 12:7",
  ],
  ['no Frames', withLine(17, 'Frame: 2'), "expected 'Frames:' after MOTION, found 'Frame:' at 17:1"],
  ['no colon after Frames', withLine(17, 'Frames 2'), "expected ':' after 'Frames' at 17:8"],
  [
    'bad frame count',
    withLine(17, 'Frames: two'),
    "expected a frame count after 'Frames:', found 'two' at 17:9",
  ],
  [
    'no Frame Time',
    withLine(18, 'Time: 0.04'),
    "expected 'Frame Time:' after the frame count, found 'Time:' at 18:1",
  ],
  ['no colon after Frame Time', withLine(18, 'Frame Time 0.04'), "expected ':' after 'Frame Time' at 18:12"],
  [
    'bad frame time',
    withLine(18, 'Frame Time: fast'),
    "expected a frame time in seconds, found 'fast' at 18:13",
  ],
  [
    'zero frame time',
    withLine(18, 'Frame Time: 0'),
    "Frame Time must be a positive number of seconds with a finite rate, found '0' at 18:13",
  ],
  ['short row', withLine(20, '4 5 6 -10 -20 -30 -40 -50'), 'expected 9 numbers for frame 1, found 8 at 20:1'],
  [
    'long row',
    withLine(19, '1 2 3 10 20 30 40 50 60 70'),
    'expected 9 numbers for frame 0, found 10 at 19:1',
  ],
  [
    'truncated wrapped data',
    withLine(19, '1 2 3 10 20 30 40 50'),
    'expected 9 numbers for frame 1, found 8 at 20:3',
  ],
  ['bad number', withLine(20, '4 5 6 -10 0.0-7.5 -30 -40 -50 -60'), "'0.0-7.5' is not a number at 20:11"],
  ['dangling exponent', withLine(20, '4 5 6 -10 -20 -30 -40 -50 6e'), "'6e' is not a number at 20:27"],
  [
    'non-finite number',
    withLine(20, '4 5 6 -10 -20 -30 -40 -50 1e400'),
    "non-finite value '1e400' for frame 1, channel Xrotation of joint 'Chest' at 20:27",
  ],
  [
    'data without channels',
    'HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 1\nFrame Time: 1\n0',
    'found frame data but the hierarchy declares no channels at 10:1',
  ],
];

describe('parseBvh(text) error messages', () => {
  for (const [what, text, message] of ERRORS) {
    test(`parseBvh(text) with ${what} throws BvhParseError "${message}"`, () => {
      let caught: unknown;
      try {
        parseBvh(text);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(BvhParseError);
      const err = caught as BvhParseError;
      expect(err.message).toBe(message);
      const [, line, column] = /at (\d+):(\d+)$/.exec(message) ?? [];
      expect(err.line).toBe(Number(line));
      expect(err.column).toBe(Number(column));
      expect(err.code.startsWith('bvh')).toBe(true);
    });
  }

  test('parseBvh(text) with joints nested 5000 deep throws BvhParseError, not a stack overflow', () => {
    const open = 'JOINT j\n{\nOFFSET 0 1 0\nCHANNELS 0\n'.repeat(5000);
    const text = `HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 0\n${open}`;
    expect(() => parseBvh(text)).toThrow(/nested more than 1000 levels deep/);
  });

  test('parseBvh with a bad token of megabytes quotes 40 characters of it and its length, in the hierarchy or the frames', () => {
    const nul = '\0'.repeat(8 << 20);
    const head =
      'HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n';
    const cases: [string, string, string][] = [
      [
        '8 MiB of NUL as frame data',
        `${head}${nul}\n`,
        `'${'\\0'.repeat(40)}…' (8388608 characters) is not a number at 10:1`,
      ],
      [
        '8 MiB of NUL as a channel name',
        `HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 1 ${nul}\n}\n`,
        `unknown channel '${'\\0'.repeat(40)}…' (8388608 characters) at 5:12`,
      ],
      [
        'a 100,000-letter keyword',
        `HIERARCHY\n${'x'.repeat(100000)}\n`,
        `expected ROOT or MOTION, found '${'x'.repeat(40)}…' (100000 characters) at 2:1`,
      ],
    ];
    for (const [what, text, message] of cases) {
      let caught: unknown;
      try {
        parseBvh(text);
      } catch (e) {
        caught = e;
      }
      expect(caught, what).toBeInstanceOf(BvhParseError);
      expect((caught as Error).message, what).toBe(message);
    }
    // a token of 40 characters or fewer is quoted whole
    expect(() => parseBvh(`HIERARCHY\n${'y'.repeat(40)}\n`)).toThrow(`found '${'y'.repeat(40)}' at 2:1`);
  });

  test("parseBvh(text, { positionMode: 'both' }) throws OptionError", () => {
    expect(() => parseBvh(BASE, { positionMode: 'both' as 'add' })).toThrow(OptionError);
    expect(() => parseBvh(42 as unknown as string)).toThrow(OptionError);
  });
});

describe('parseBvh(text) on long files (rows converted in chunks)', () => {
  function longText(declared: number, rows: number, breakAt = -1): string {
    const lines = [
      'HIERARCHY',
      'ROOT Hips',
      '{',
      '  OFFSET 0 90 0',
      '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      '  JOINT Chest',
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
      `Frames: ${declared}`,
      'Frame Time: 0.01',
    ];
    for (let f = 0; f < rows; f++) {
      const v = [
        f * 0.01,
        90 + Math.sin(f),
        -f * 0.02,
        3 * f,
        40 * Math.sin(0.1 * f),
        -2 * f,
        17 * Math.cos(f),
        5,
        -f,
      ];
      lines.push((f === breakAt ? v.slice(0, 8) : v).map((x) => x.toFixed(5)).join(' '));
    }
    return lines.join('\n');
  }

  test('parseBvh(text) gives the same clip chunked and in one piece (repair path), rows above and below Frames:', () => {
    for (const [declared, rows] of [
      [2500, 2500],
      // whole chunks only: the last chunk fills exactly at the end of the text
      [1024, 1024],
      [2048, 2048],
      [2000, 2600],
      [3000, 2100],
      [0, 1500],
    ]) {
      const text = longText(declared, rows);
      const chunked = parseBvh(text);
      const whole = parseBvh(text, { repair: true });
      expect(chunked.frames).toBe(rows);
      expect(chunked.rotations.data.length).toBe(rows * 2 * 4);
      expect(Array.from(chunked.rotations.data)).toEqual(Array.from(whole.rotations.data));
      expect(Array.from(chunked.translations.data)).toEqual(Array.from(whole.translations.data));
      // spot check of the last frame against the text
      expect(chunked.translations.data[(rows - 1) * 6]).toBe(Number(((rows - 1) * 0.01).toFixed(5)));
    }
  });

  test('parseBvh(text) names the right frame and line for a short row after several chunks', () => {
    expect(() => parseBvh(longText(3000, 3000, 2500))).toThrow(
      'expected 9 numbers for frame 2500, found 8 at 2519:1',
    );
    // the short row is the last one and a chunk boundary falls just before it
    expect(() => parseBvh(longText(2049, 2049, 2048))).toThrow(
      'expected 9 numbers for frame 2048, found 8 at 2067:1',
    );
  });

  test("parseBvh(text) refuses 'Frames: 5000000' without channel data instead of allocating it", () => {
    const text =
      'HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 5000000\nFrame Time: 1\n';
    expect(() => parseBvh(text)).toThrow(
      "'Frames:' declares 5000000 frames of 1 joints for a file without channel data; at most 1000000 frames x joints are read at 8:1",
    );
  });
});

describe('BvhParseError codes', () => {
  function codeOf(run: () => unknown): string | undefined {
    try {
      run();
    } catch (e) {
      return (e as BvhParseError).code;
    }
    return undefined;
  }

  test("BvhParseError.code is 'bvh-parse', 'bvh-non-finite' or 'bvh-<warning>' under strict", () => {
    expect(codeOf(() => parseBvh('HIERARCHY\nROOT'))).toBe('bvh-parse');
    expect(codeOf(() => parseBvh(readQuirk('non-finite.bvh')))).toBe('bvh-non-finite');
    expect(codeOf(() => parseBvh(readQuirk('extra-row.bvh'), { strict: true }))).toBe('bvh-frame-count');
    expect(codeOf(() => parseBvh(readQuirk('additive-root.bvh'), { strict: true }))).toBe(
      'bvh-position-offset',
    );
    expect(new BvhParseError('x', 1, 2)).toBeInstanceOf(RotsigError);
  });
});

describe('channelEulerOrder(channels)', () => {
  test('channelEulerOrder(channels) spells the rotation channels in order, appends missing axes, ZYX for none', () => {
    expect(
      channelEulerOrder(['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation']),
    ).toBe('ZXY');
    expect(channelEulerOrder(['Yrotation', 'Xposition', 'Zrotation', 'Xrotation'])).toBe('YZX');
    expect(channelEulerOrder(['Yrotation'])).toBe('YXZ');
    expect(channelEulerOrder(['Xrotation', 'Zrotation'])).toBe('XZY');
    expect(channelEulerOrder([])).toBe('ZYX');
  });
});
