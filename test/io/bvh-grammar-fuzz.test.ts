/**
 * BVH files generated from the grammar (HIERARCHY, nested ROOT/JOINT/End Site blocks, OFFSET, CHANNELS,
 * MOTION, Frames:, Frame Time:, rows), with random nesting and sizes, number spellings, whitespace and line
 * endings, keyword case, name encodings, and truncation. A file the generator wrote validly must read back
 * with the joints, offsets and frame count it wrote; a file it spoiled must give a `BvhParseError` with a
 * line and column, or a valid clip; nothing may take longer than the time bound.
 */
import { describe, expect, test } from 'vitest';
import { BvhParseError, parseBvh } from '../../src/io/index.js';
import type { Clip } from '../../src/series/clip.js';
import { generator, int, pick, type Rand } from '../support/fuzz.js';

const CASES = Number(process.env.FUZZ_CASES ?? 40) * 25;
const SEED = Number(process.env.FUZZ_SEED ?? 17);
const HANG_MS = 2000;

const CHANNELS = ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'];
/** Spellings of finite numbers the reader accepts, with their values. */
const GOOD_NUMBERS: [string, number][] = [
  ['0', 0],
  ['-0', -0],
  ['1', 1],
  ['+1.5', 1.5],
  ['.5', 0.5],
  ['-.25', -0.25],
  ['5.', 5],
  ['1e3', 1000],
  ['1E-3', 0.001],
  ['2.5e+2', 250],
  ['0012', 12],
  ['-7.125', -7.125],
  // correctly rounded, as JavaScript's own parser rounds it
  ['123456789.123456789', Number('123456789.123456789')],
];
/** Spellings that are not finite decimal numbers. */
const BAD_NUMBERS = [
  'nan',
  'NaN',
  'inf',
  '-Infinity',
  '1e999',
  '0x10',
  '1_000',
  '١٢',
  '1,5',
  '--1',
  '1e',
  '.',
  'e5',
  '',
];
const NAME_PARTS = [
  'hip',
  'Spine_01',
  'l.arm',
  'bone 7',
  'épaule',
  '肩',
  '😀',
  'a#b',
  'x:y',
  'mixamorig:Hips',
];

interface Plan {
  text: string;
  /** What a reader must find when the text is valid; null when the generator spoiled it. */
  expect: { joints: number; frames: number; offsets: number[]; channels: number } | null;
}

function number(rand: Rand): [string, number] {
  return pick(rand, GOOD_NUMBERS);
}

/** A BVH text from the grammar; `spoil` breaks it in one of many ways. */
function generate(rand: Rand): Plan {
  const nl = pick(rand, ['\n', '\r\n', '\n', '\r']);
  const sp = () => pick(rand, [' ', ' ', '\t', '  ', ' \t ']);
  const kw = (w: string) => (rand() < 0.15 ? (rand() < 0.5 ? w.toLowerCase() : w.toUpperCase()) : w);
  const lines: string[] = [];
  const offsets: number[] = [];
  let joints = 0;
  let channels = 0;
  const maxJoints = pick(rand, [1, 2, 5, 20, 60]);
  const deepChain = rand() < 0.03;
  const emit = (depth: number, root: boolean) => {
    const indent = '\t'.repeat(Math.min(depth, 8));
    const name = `${pick(rand, NAME_PARTS)}${joints}`;
    joints++;
    lines.push(`${indent}${kw(root ? 'ROOT' : 'JOINT')}${sp()}${name}`);
    lines.push(`${indent}{`);
    const o = [number(rand), number(rand), number(rand)];
    offsets.push(...o.map((x) => x[1]));
    lines.push(`${indent}${sp()}${kw('OFFSET')}${sp()}${o.map((x) => x[0]).join(sp())}`);
    const n = root ? pick(rand, [0, 3, 6, 6]) : pick(rand, [0, 1, 2, 3, 3, 6]);
    const list = [...CHANNELS].sort(() => rand() - 0.5).slice(0, n);
    channels += n;
    lines.push(`${indent}${sp()}${kw('CHANNELS')}${sp()}${n}${list.map((c) => sp() + c).join('')}`);
    const children = deepChain ? (depth < 40 ? 1 : 0) : joints < maxJoints ? int(rand, 3) : 0;
    for (let c = 0; c < children && (deepChain || joints < maxJoints); c++) emit(depth + 1, false);
    if (children === 0 || rand() < 0.2) {
      lines.push(`${indent}${sp()}${kw('End')} ${kw('Site')}`, `${indent}${sp()}{`);
      lines.push(`${indent}${sp()}${sp()}${kw('OFFSET')} 0 1 0`, `${indent}${sp()}}`);
    }
    lines.push(`${indent}}`);
  };
  lines.push(kw('HIERARCHY'));
  const roots = pick(rand, [1, 1, 1, 2, 3]);
  for (let r = 0; r < roots; r++) emit(0, true);
  const frames = pick(rand, [0, 1, 2, 5, 17]);
  lines.push(
    kw('MOTION'),
    `${kw('Frames:')}${sp()}${frames}`,
    `${kw('Frame')} ${kw('Time:')}${sp()}${pick(rand, ['0.0333333', '.0083333', '0.01', '1'])}`,
  );
  for (let f = 0; f < frames; f++) {
    const row: string[] = [];
    for (let c = 0; c < channels; c++) row.push(number(rand)[0]);
    lines.push(row.join(sp()));
  }
  let text = (rand() < 0.05 ? '\uFEFF' : '') + lines.join(nl) + (rand() < 0.8 ? nl : '');
  let valid = true;
  if (rand() < 0.5) {
    valid = false;
    text = spoil(rand, text, nl);
  }
  return { text, expect: valid ? { joints, frames, offsets, channels } : null };
}

function spoil(rand: Rand, text: string, nl: string): string {
  const kind = int(rand, 9);
  if (kind === 0) return text.slice(0, int(rand, text.length)); // truncation anywhere
  if (kind === 1) {
    // a number spelled in a way the reader must refuse
    const numbers = [...text.matchAll(/(?<=[ \t])-?\d[\d.eE+-]*/g)];
    if (numbers.length === 0) return text.slice(0, -3);
    const m = pick(rand, numbers);
    return text.slice(0, m.index) + pick(rand, BAD_NUMBERS) + text.slice((m.index ?? 0) + m[0].length);
  }
  if (kind === 2) {
    // nesting deeper than the reader's limit
    const depth = 1001 + int(rand, 50);
    const open = Array.from(
      { length: depth },
      (_, i) => `JOINT j${i}${nl}{${nl}OFFSET 0 0 0${nl}CHANNELS 0`,
    ).join(nl);
    return `HIERARCHY${nl}ROOT r${nl}{${nl}OFFSET 0 0 0${nl}CHANNELS 0${nl}${open}${nl}${'}'.repeat(depth + 1)}${nl}MOTION${nl}Frames: 0${nl}Frame Time: 0.1${nl}`;
  }
  if (kind === 3)
    return text.replace(
      /Frames:\s*\d+/i,
      `Frames: ${pick(rand, ['99999999999', '-1', '1.5', '1e9', '4294967297'])}`,
    );
  if (kind === 4)
    return text.replace(
      /Time:\s*\S+/i,
      `Time: ${pick(rand, ['0', '-1', '1e-310', 'nan', '1e999', '5e-324'])}`,
    );
  if (kind === 5) {
    // bytes of another encoding decoded as text: lone surrogates, NUL, latin-1
    const at = int(rand, text.length);
    return (
      text.slice(0, at) +
      pick(rand, ['\uD800', '\uDFFF', '\u0000', '\u00ff\u00fe', '\u001b[2J', '\u2028']) +
      text.slice(at)
    );
  }
  if (kind === 6)
    return text.replace(/CHANNELS(\s+)\d/i, `CHANNELS$1${pick(rand, ['7', '99', '-1', '3.0', 'x'])}`);
  if (kind === 7) return text.replace('}', '');
  return text.replace(/MOTION/i, `MOTION${nl}MOTION`);
}

function checkClip(clip: Clip): string | null {
  const J = clip.skeleton.names.length;
  if (clip.rotations.data.length !== clip.frames * J * 4) return 'rotations do not fit frames x joints';
  if (clip.translations.data.length !== clip.frames * J * 3) return 'translations do not fit frames x joints';
  const d = clip.rotations.data;
  for (let i = 0; i < d.length; i += 4) {
    const n = Math.hypot(d[i], d[i + 1], d[i + 2], d[i + 3]);
    if (!(Math.abs(n - 1) < 1e-9)) return `quaternion ${i / 4} has norm ${n}`;
  }
  for (const v of clip.translations.data) if (!Number.isFinite(v)) return 'non-finite translation';
  if (!(clip.rate > 0 && Number.isFinite(clip.rate))) return `rate ${clip.rate}`;
  for (let j = 0; j < J; j++) if (!(clip.skeleton.parents[j] < j)) return `parent of ${j}`;
  return null;
}

describe('parseBvh(text) on grammar-generated files', () => {
  test(`valid files read back as written; spoiled ones throw BvhParseError with line:column (${CASES} files, seed ${SEED})`, () => {
    const tally = { valid: 0, spoiledRead: 0, typed: 0, defect: 0, hang: 0 };
    const defects: string[] = [];
    for (let c = 0; c < CASES; c++) {
      const seed = (SEED * 7919 + c) >>> 0;
      const rand = generator(seed);
      const plan = generate(rand);
      const t0 = performance.now();
      let clip: Clip | undefined;
      let problem: string | null = null;
      try {
        clip = parseBvh(plan.text, { positionMode: rand() < 0.5 ? 'replace' : 'add' });
      } catch (e) {
        if (!(e instanceof BvhParseError)) problem = `${(e as Error)?.name}: ${(e as Error)?.message}`;
        else if (!(e.line >= 1 && e.column >= 1)) problem = `BvhParseError without a location: ${e.message}`;
        else if (plan.expect !== null) problem = `a valid file was refused: ${e.message}`;
      }
      const ms = performance.now() - t0;
      if (ms > HANG_MS) {
        tally.hang++;
        defects.push(`seed ${seed}: ${ms.toFixed(0)} ms`);
        continue;
      }
      if (clip !== undefined) {
        problem ??= checkClip(clip);
        const e = plan.expect;
        if (problem === null && e !== null) {
          if (clip.skeleton.names.length !== e.joints)
            problem = `${clip.skeleton.names.length} joints, wrote ${e.joints}`;
          else if (clip.frames !== e.frames && e.channels > 0)
            problem = `${clip.frames} frames, wrote ${e.frames}`;
          else if (!e.offsets.every((v, i) => Object.is(clip?.skeleton.restTranslations[i], v)))
            problem = 'offsets differ from what was written';
        }
      }
      if (problem !== null) {
        tally.defect++;
        if (defects.length < 10) defects.push(`seed ${seed}: ${problem}`);
      } else if (clip === undefined) tally.typed++;
      else if (plan.expect !== null) tally.valid++;
      else tally.spoiledRead++;
    }
    if (process.env.FUZZ_REPORT) console.log(`BVH grammar fuzz: ${CASES} files`, tally);
    expect(defects).toEqual([]);
    // the generator reaches both sides
    expect(tally.valid).toBeGreaterThan(CASES / 5);
    expect(tally.typed).toBeGreaterThan(CASES / 10);
  });
});
