import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh } from '../../src/io/index.js';
import { angle, nlerp } from '../../src/quat/index.js';
import type { Clip } from '../../src/series/clip.js';
import { HAS_SHARED_BVH, sharedBvhPath } from '../support/shared-data.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const WALK = join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
const CMU = join(ROOT, 'samples', '01_01.bvh');
const read = (path: string): Clip => parseBvh(readFileSync(path, 'utf8'));

function q(clip: Clip, f: number, j: number): Float64Array {
  const o = (f * clip.rotations.joints + j) * 4;
  return Float64Array.from(clip.rotations.data.subarray(o, o + 4));
}

/** Mean and max geodesic angle between the rotations of two clips of the same shape (radians). */
function rotationDistance(a: Clip, b: Clip, frameOf: (f: number) => number = (f) => f) {
  let sum = 0;
  let max = 0;
  let n = 0;
  for (let f = 0; f < a.frames; f++) {
    for (let j = 0; j < a.rotations.joints; j++) {
      const d = angle(q(a, f, j), q(b, frameOf(f), j));
      sum += d;
      max = Math.max(max, d);
      n++;
    }
  }
  return { mean: sum / n, max };
}

/** Mean geodesic step between consecutive frames over all joints (radians): a roughness measure. */
function meanStep(c: Clip): number {
  let s = 0;
  let n = 0;
  for (let f = 1; f < c.frames; f++)
    for (let j = 0; j < c.rotations.joints; j++) {
      s += angle(q(c, f - 1, j), q(c, f, j));
      n++;
    }
  return s / n;
}

/** Second-difference energy of the rotations: how jittery a clip is. */
function roughness(c: Clip): number {
  let s = 0;
  for (let f = 1; f + 1 < c.frames; f++)
    for (let j = 0; j < c.rotations.joints; j++) {
      const a = angle(q(c, f - 1, j), q(c, f, j));
      const b = angle(q(c, f, j), q(c, f + 1, j));
      s += (b - a) ** 2;
    }
  return s;
}

/** The MOTION values of a BVH text, frames x channels, as written (degrees for rotations). */
function motionRows(text: string): number[][] {
  const lines = text.split(/\r?\n/);
  const m = lines.findIndex((l) => /^\s*MOTION/i.test(l));
  return lines
    .slice(m + 3)
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s+/).map(Number));
}

/** Reads a NumPy .npy file (little-endian f4/f8, C order). */
function readNpy(bytes: Buffer): { shape: number[]; data: Float64Array | Float32Array; descr: string } {
  expect(bytes.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY');
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.subarray(10, 10 + headerLength).toString('latin1');
  const descr = header.match(/'descr': '([^']+)'/)![1];
  const shape = header
    .match(/'shape': \(([^)]*)\)/)![1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  expect(header).toMatch(/'fortran_order': False/);
  const body = bytes.subarray(10 + headerLength);
  const copy = new Uint8Array(body).buffer;
  const data = descr === '<f4' ? new Float32Array(copy) : new Float64Array(copy);
  return { shape, data, descr };
}

describe('rotsig commands on real files, outputs re-parsed', () => {
  it('rotsig smooth --sigma 2f stays close to the input and is smoother than it', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.smooth.bvh');
    const r = rotsig(['smooth', WALK, '-o', out, '--sigma', '2f', '--quiet']);
    expect(r.code).toBe(0);
    const src = read(WALK);
    const sm = read(out);
    expect(sm.frames).toBe(src.frames);
    const d = rotationDistance(sm, src);
    // A 2-frame gaussian at 120 Hz moves a walk by a fraction of a degree on average.
    expect((d.mean * 180) / Math.PI).toBeLessThan(0.5);
    expect(roughness(sm)).toBeLessThan(0.5 * roughness(src));
  });

  it('rotsig smooth --kernel unsharp sharpens: rougher than the input', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.sharp.bvh');
    const r = rotsig([
      'smooth',
      WALK,
      '-o',
      out,
      '--kernel',
      'unsharp',
      '--sigma',
      '2f',
      '--amount',
      '1',
      '--space',
      'eigen',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    expect(roughness(read(out))).toBeGreaterThan(roughness(read(WALK)));
  });

  it('rotsig smooth --joints only changes the named joints', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.hands.bvh');
    const r = rotsig([
      'smooth',
      WALK,
      '-o',
      out,
      '--sigma',
      '3f',
      '--joints',
      'LeftHand,RightHand',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const src = read(WALK);
    const sm = read(out);
    const names = src.skeleton.names;
    for (let j = 0; j < names.length; j++) {
      let max = 0;
      for (let f = 0; f < src.frames; f++) max = Math.max(max, angle(q(src, f, j), q(sm, f, j)));
      if (names[j] === 'LeftHand' || names[j] === 'RightHand') expect(max, names[j]).toBeGreaterThan(1e-4);
      else expect(max, names[j]).toBeLessThan(1e-6); // only the printed precision
    }
  });

  it.skipIf(!HAS_SHARED_BVH)(
    'rotsig unroll removes every wrap of the Bandai dance and keeps the rotations',
    () => {
      const input = sharedBvhPath('bandai-namco/dataset-1_dance-short_normal_001.bvh');
      const dir = tempDir();
      const out = join(dir, 'dance.bvh');
      const r = rotsig(['unroll', input, '-o', out, '--quiet']);
      expect(r.code).toBe(0);
      const wraps = (rows: number[][]) => {
        let n = 0;
        for (let f = 1; f < rows.length; f++)
          for (let c = 0; c < rows[f].length; c++) if (Math.abs(rows[f][c] - rows[f - 1][c]) > 180) n++;
        return n;
      };
      expect(wraps(motionRows(readFileSync(input, 'utf8')))).toBeGreaterThan(300);
      expect(wraps(motionRows(readFileSync(out, 'utf8')))).toBe(0);
      const d = rotationDistance(read(out), read(input));
      expect(d.max).toBeLessThan(1e-5);
    },
  );

  it('rotsig resample --rate 30 writes a 30 Hz clip on the exact grid, close to the source at shared times', () => {
    const dir = tempDir();
    const out = join(dir, 'walk30.bvh');
    const r = rotsig(['resample', WALK, '-o', out, '--rate', '30', '--kernel', 'lanczos3', '--quiet']);
    expect(r.code).toBe(0);
    const src = read(WALK);
    const rs = read(out);
    // floor policy: last output time on or before the source's last time (1063 / 120.0048 s).
    const end = (src.frames - 1) / src.rate;
    expect(rs.frames).toBe(Math.floor(end * 30 + 1e-9) + 1);
    expect(rs.frameTime).toBeCloseTo(1 / 30, 12);
    // Output frame i is at i/30 s, source frame at the nearest i/30 * rate; anti-aliasing blurs a little.
    const d = rotationDistance(rs, src, (f) => Math.min(src.frames - 1, Math.round((f / 30) * src.rate)));
    expect((d.mean * 180) / Math.PI).toBeLessThan(2);
  });

  it('rotsig resample --optimal --playback linear: keys a linear player maps back onto the source better than decimation', () => {
    const dir = tempDir();
    const r = rotsig(['resample', WALK, '-o', join(dir, 'keys.bvh'), '--rate', '30', '--optimal', '--quiet']);
    expect(r.code).toBe(0);
    const keys = read(join(dir, 'keys.bvh'));
    const src = read(WALK);
    expect(keys.frames).toBe(Math.ceil(((src.frames - 1) / src.rate) * 30 - 1e-9) + 1);
    // Play both key sets back linearly (nlerp between neighbouring keys) at every source time: the optimal
    // keys reconstruct the source better than plain decimation (the nearest source frame at each key time).
    const J = src.rotations.joints;
    const decimated = (i: number, j: number) =>
      q(src, Math.min(src.frames - 1, Math.round((i / 30) * src.rate)), j);
    const playback = (key: (i: number, j: number) => Float64Array) => {
      let sum = 0;
      const out = new Float64Array(4);
      for (let f = 0; f < src.frames; f++) {
        const t = (f / src.rate) * 30;
        const i = Math.min(Math.floor(t), keys.frames - 2);
        for (let j = 0; j < J; j++) {
          nlerp(out, key(i, j), key(i + 1, j), t - i);
          sum += angle(out, q(src, f, j));
        }
      }
      return sum / (src.frames * J);
    };
    const optimal = playback((i, j) => q(keys, i, j));
    const plain = playback(decimated);
    expect(optimal).toBeLessThan(0.9 * plain);
  });

  it('rotsig velocity -o .csv: one row per frame, angular speed close to the central difference', () => {
    const dir = tempDir();
    const out = join(dir, 'v.csv');
    const r = rotsig(['velocity', WALK, '-o', out, '--quiet']);
    expect(r.code).toBe(0);
    const src = read(WALK);
    const J = src.skeleton.names.length;
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const header = lines[0].split(',');
    expect(header.slice(0, 5)).toEqual(['frame', 'time', 'Hips.x', 'Hips.y', 'Hips.z']);
    expect(header).toHaveLength(2 + (J + 1) * 3);
    expect(header.at(-1)).toBe('Hips:linear.z');
    expect(lines).toHaveLength(src.frames + 1);
    const rows = lines.slice(1).map((l) => l.split(',').map(Number));
    // Independent check: |omega| at frame f vs the geodesic angle from f-1 to f+1 over 2 dt.
    const errors: number[] = [];
    for (let f = 1; f + 1 < src.frames; f++) {
      for (let j = 0; j < J; j++) {
        const central = angle(q(src, f - 1, j), q(src, f + 1, j)) * (src.rate / 2);
        if (central < 1) continue;
        const w = rows[f].slice(2 + j * 3, 5 + j * 3);
        errors.push(Math.abs(Math.hypot(...w) - central) / central);
      }
    }
    errors.sort((a, b) => a - b);
    expect(errors.length).toBeGreaterThan(1000);
    expect(errors[errors.length >> 1]).toBeLessThan(0.02);
  });

  it('rotsig export --as quat -o .npy holds the clip quaternions, frames x joints x 4', () => {
    const dir = tempDir();
    const r = rotsig(['export', WALK, '-o', join(dir, 'q.npy'), '--as', 'quat', '--quiet']);
    expect(r.code).toBe(0);
    const { shape, data, descr } = readNpy(readFileSync(join(dir, 'q.npy')));
    const src = read(WALK);
    expect(descr).toBe('<f8');
    expect(shape).toEqual([src.frames, 23, 4]);
    let max = 0;
    for (let f = 0; f < src.frames; f += 7)
      for (let j = 0; j < 23; j++)
        max = Math.max(max, angle(data.subarray((f * 23 + j) * 4, (f * 23 + j) * 4 + 4), q(src, f, j)));
    expect(max).toBeLessThan(1e-12);
  });

  it('rotsig export --as quat --sign continuous: consecutive quaternions of every joint share a hemisphere', () => {
    const dir = tempDir();
    const r = rotsig([
      'export',
      WALK,
      '-o',
      join(dir, 'q.npy'),
      '--as',
      'quat',
      '--sign',
      'continuous',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const { data, shape } = readNpy(readFileSync(join(dir, 'q.npy')));
    const [F, J] = shape;
    let negative = 0;
    for (let f = 1; f < F; f++)
      for (let j = 0; j < J; j++) {
        let d = 0;
        for (let k = 0; k < 4; k++) d += data[((f - 1) * J + j) * 4 + k] * data[(f * J + j) * 4 + k];
        if (d < 0) negative++;
      }
    expect(negative).toBe(0);
    // The clip as read has sign flips at the root (Euler wraps in the file), so the option did something.
    const src = read(WALK);
    let flips = 0;
    for (let f = 1; f < src.frames; f++) {
      let d = 0;
      for (let k = 0; k < 4; k++) d += q(src, f - 1, 0)[k] * q(src, f, 0)[k];
      if (d < 0) flips++;
    }
    expect(flips).toBeGreaterThan(0);
  });

  it('rotsig export --as 6d --dtype float32: orthonormal column pairs', () => {
    const dir = tempDir();
    const r = rotsig([
      'export',
      CMU,
      '-o',
      join(dir, 'r6.npy'),
      '--as',
      '6d',
      '--dtype',
      'float32',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const { shape, data, descr } = readNpy(readFileSync(join(dir, 'r6.npy')));
    expect(descr).toBe('<f4');
    expect(shape).toEqual([2752, 31, 6]);
    for (let i = 0; i < data.length; i += 6 * 97) {
      const [a0, a1, a2, b0, b1, b2] = data.subarray(i, i + 6);
      expect(Math.hypot(a0, a1, a2)).toBeCloseTo(1, 5);
      expect(Math.hypot(b0, b1, b2)).toBeCloseTo(1, 5);
      expect(a0 * b0 + a1 * b1 + a2 * b2).toBeCloseTo(0, 5);
    }
  });

  it('rotsig export --as positions -o .json: root positions are the root translations', () => {
    const dir = tempDir();
    const r = rotsig(['export', WALK, '-o', join(dir, 'p.json'), '--as', 'positions', '--quiet']);
    expect(r.code).toBe(0);
    const p = JSON.parse(readFileSync(join(dir, 'p.json'), 'utf8'));
    const src = read(WALK);
    expect(p.shape).toEqual([src.frames, 23, 3]);
    expect(p.names[0]).toBe('Hips');
    for (let f = 0; f < src.frames; f += 50)
      for (let k = 0; k < 3; k++)
        expect(p.data[f][0][k]).toBeCloseTo(src.translations.data[f * 23 * 3 + k], 9);
  });

  it('rotsig export --as euler -o - --format csv writes the table to stdout', () => {
    const r = rotsig(['export', WALK, '-o', '-', '--as', 'euler', '--format', 'csv', '--quiet']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1065);
    expect(lines[0].startsWith('frame,time,Hips.a1,Hips.a2,Hips.a3')).toBe(true);
  });

  it('rotsig process --unroll --smooth gaussian:2f --resample 30 over a directory', () => {
    const dir = tempDir();
    const r = rotsig([
      'process',
      join(ROOT, 'samples'),
      '-o',
      join(dir, 'out'),
      '--unroll',
      '--smooth',
      'gaussian:2f',
      '--resample',
      '30',
      '--jobs',
      '2',
    ]);
    expect(r.code).toBe(0);
    // the two BVH captures and the glTF fox (the default glob takes .bvh, .gltf and .glb)
    expect(r.stderr).toMatch(/3 files, 3 ok/);
    expect(
      readFileSync(join(dir, 'out', 'Fox.glb'))
        .subarray(0, 4)
        .toString(),
    ).toBe('glTF');
    const walk = read(join(dir, 'out', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'));
    const cmu = read(join(dir, 'out', '01_01.bvh'));
    expect(walk.frameTime).toBeCloseTo(1 / 30, 12);
    expect(cmu.frames).toBe(688);
    expect(meanStep(walk)).toBeGreaterThan(0);
  });
});

describe('rotsig spectrum', () => {
  it('rotsig spectrum --json: the energy frequency of a 120 Hz walk is far below Nyquist, safe rate twice it', () => {
    const r = rotsig(['spectrum', WALK, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.rate).toBe(120); // Frame Time 0.008333 read as 120 Hz
    expect(s.share).toBe(0.99);
    expect(s.energyFrequency).toBeGreaterThan(0.5);
    expect(s.energyFrequency).toBeLessThan(15);
    expect(s.safeRate).toBeCloseTo(2 * s.energyFrequency, 12);
  });

  it('rotsig spectrum -o .svg writes a standalone plot with axes, labels and the energy line', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.svg');
    const r = rotsig(['spectrum', WALK, '-o', out, '--quiet']);
    expect(r.code).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('frequency (Hz)');
    expect(svg).toContain('magnitude (dB');
    expect(svg).toMatch(/99% of energy below [\d.]+ Hz/);
    expect(svg).toContain('<polyline');
    expect(svg).not.toMatch(/<script/);
  });

  it('rotsig spectrum -o .csv: one row per bin from 0 to Nyquist, consistent with the JSON summary', () => {
    const dir = tempDir();
    const r = rotsig(['spectrum', WALK, '-o', join(dir, 's.csv'), '--json', '--quiet']);
    expect(r.code).toBe(0);
    const rows = readFileSync(join(dir, 's.csv'), 'utf8').trim().split('\n');
    expect(rows[0]).toBe('frequency_hz,max_db,power');
    const bins = rows.slice(1).map((l) => l.split(',').map(Number));
    expect(bins).toHaveLength((1064 >> 1) + 1);
    expect(bins[0][0]).toBe(0);
    expect(bins.at(-1)![0]).toBe(120 / 2);
    // Independent of the library's summary: the 99% point of the cumulative power column.
    const total = bins.reduce((s, b) => s + b[2], 0);
    let acc = 0;
    let f99 = 0;
    for (const b of bins) {
      acc += b[2];
      if (acc >= 0.99 * total) {
        f99 = b[0];
        break;
      }
    }
    const info = JSON.parse(rotsig(['info', WALK, '--json']).stdout);
    expect(info.spectrum.energyFrequency).toBeCloseTo(f99, 9);
  });
});

describe('rotsig smooth/resample --json lists where --segments jumps splits', () => {
  it('CMU 01_01: the T-pose first frame is split in the joints that jump there, each named with its time', () => {
    const dir = tempDir();
    const r = rotsig(['smooth', CMU, '-o', join(dir, 'a.bvh'), '--json', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const splits: { joint: string; frame: number; time: number; angle: number }[] = JSON.parse(r.stdout)
      .files[0].splits;
    const atFirst = splits.filter((s) => s.frame === 1).map((s) => s.joint);
    expect(atFirst).toEqual(expect.arrayContaining(['LeftArm', 'LeftForeArm', 'RightArm', 'RThumb']));
    // LeftForeArm turns 136° between frames 0 and 1 (rotsig info's worst jump)
    const forearm = splits.find((s) => s.joint === 'LeftForeArm' && s.frame === 1)!;
    expect(forearm.angle / (Math.PI / 180)).toBeGreaterThan(130);
    expect(forearm.time).toBeCloseTo(1 / 120, 4);
    const none = rotsig(['smooth', CMU, '-o', join(dir, 'b.bvh'), '--json', '--quiet', '--segments', 'none']);
    expect(JSON.parse(none.stdout).files[0].splits).toBeUndefined();
  });
});
