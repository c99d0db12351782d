import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { OptionError, ShapeError } from '../../src/errors.js';
import {
  amassToClip,
  amassToClipWithReport,
  clipToAmass,
  clipToAmassWithReport,
  type NdArray,
  parseNpz,
  SMPL_JOINT_NAMES,
  SMPL_PARENTS,
  SMPLH_JOINT_NAMES,
  SMPLH_PARENTS,
  SMPLX_JOINT_NAMES,
  SMPLX_PARENTS,
  writeNpz,
} from '../../src/io/index.js';
import { subclip } from '../../src/ops/keys/subclip.js';
import { motionFeatures } from '../../src/ops/ml/motion-features.js';
import { resampleClip } from '../../src/ops/resample/resample-clip.js';
import { forwardKinematics } from '../../src/ops/skeleton/forward-kinematics.js';
import { readFixture } from '../support/shared-data.js';
import { TOL } from '../support/tolerances.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'npz');
const npz = (name: string) => parseNpz(new Uint8Array(readFileSync(join(DIR, name))));

interface AmassRef {
  frames: number;
  rate: number;
  parents: number[];
  sampleFrames: number[];
  local: number[];
  positions?: number[];
  global?: number[];
}
const ref = readFixture<{ amass: { smplh: AmassRef; smplx: AmassRef } }>('npz/expected.json').amass;

/** Largest |a − b| over quaternions, up to sign. */
function quatError(a: ArrayLike<number>, aAt: number, b: ArrayLike<number>, bAt: number): number {
  let plus = 0;
  let minus = 0;
  for (let k = 0; k < 4; k++) {
    plus = Math.max(plus, Math.abs(a[aAt + k] - b[bAt + k]));
    minus = Math.max(minus, Math.abs(a[aAt + k] + b[bAt + k]));
  }
  return Math.min(plus, minus);
}

const scalar = (a: NdArray) => Number((a.data as Float64Array)[0]);

describe('SMPL family kinematic trees', () => {
  test('SMPL, SMPL+H and SMPL-X have 24, 52 and 55 joints, parents before children, rooted at the pelvis', () => {
    for (const [names, parents, n] of [
      [SMPL_JOINT_NAMES, SMPL_PARENTS, 24],
      [SMPLH_JOINT_NAMES, SMPLH_PARENTS, 52],
      [SMPLX_JOINT_NAMES, SMPLX_PARENTS, 55],
    ] as const) {
      expect(names.length).toBe(n);
      expect(parents.length).toBe(n);
      expect(parents[0]).toBe(-1);
      for (let j = 1; j < n; j++) expect(parents[j]).toBeLessThan(j);
      expect(new Set(names).size).toBe(n);
    }
    expect(SMPLH_PARENTS).toEqual(ref.smplh.parents);
    expect(SMPLX_PARENTS).toEqual(ref.smplx.parents);
    // every finger's first joint hangs from its wrist, the next two from the one before
    const wrist = (names: readonly string[], parents: readonly number[], name: string) =>
      names[parents[names.indexOf(name)]];
    expect(wrist(SMPLH_JOINT_NAMES, SMPLH_PARENTS, 'left_thumb1')).toBe('left_wrist');
    expect(wrist(SMPLX_JOINT_NAMES, SMPLX_PARENTS, 'right_pinky3')).toBe('right_pinky2');
    expect(wrist(SMPLX_JOINT_NAMES, SMPLX_PARENTS, 'jaw')).toBe('head');
    expect(wrist(SMPL_JOINT_NAMES, SMPL_PARENTS, 'left_hand')).toBe('left_wrist');
  });
});

describe('amassToClip(arrays, options)', () => {
  test('amassToClip(SMPL+H file) gives 52 joints at mocap_framerate with SciPy from_rotvec local rotations', () => {
    const { clip, warnings } = amassToClipWithReport(npz('amass_smplh.npz'));
    expect(warnings).toEqual([]);
    expect(clip.skeleton.names).toEqual(SMPLH_JOINT_NAMES);
    expect(clip.rate).toBe(120);
    expect(clip.frames).toBe(ref.smplh.frames);
    let worst = 0;
    ref.smplh.sampleFrames.forEach((f, i) => {
      for (let j = 0; j < 52; j++)
        worst = Math.max(
          worst,
          quatError(clip.rotations.data, (f * 52 + j) * 4, ref.smplh.local, (i * 52 + j) * 4),
        );
    });
    expect(worst).toBeLessThan(TOL.oracle);
    // no template: zero rest offsets, the root carries trans
    expect(Array.from(clip.skeleton.restTranslations).every((v) => v === 0)).toBe(true);
    const trans = npz('amass_smplh.npz').trans.data as Float64Array;
    expect(Array.from(clip.translations.data.subarray(52 * 3 * 5, 52 * 3 * 5 + 3))).toEqual(
      Array.from(trans.subarray(15, 18)),
    );
  });

  test('amassToClip with the joint template J (npz or JSON) gives SMPL forward kinematics equal to SciPy', () => {
    const fromNpz = amassToClip(npz('amass_smplh.npz'), { template: npz('template_smplh.npz').J });
    const json = JSON.parse(readFileSync(join(DIR, 'template_smplh.json'), 'utf8')).J as number[][];
    const fromJson = amassToClip(npz('amass_smplh.npz'), { template: json });
    for (const clip of [fromNpz, fromJson]) {
      const fk = forwardKinematics(clip);
      let pos = 0;
      let rot = 0;
      ref.smplh.sampleFrames.forEach((f, i) => {
        for (let j = 0; j < 52; j++) {
          for (let k = 0; k < 3; k++)
            pos = Math.max(
              pos,
              Math.abs(fk.positions.data[(f * 52 + j) * 3 + k] - ref.smplh.positions![(i * 52 + j) * 3 + k]),
            );
          rot = Math.max(
            rot,
            quatError(fk.rotations.data, (f * 52 + j) * 4, ref.smplh.global!, (i * 52 + j) * 4),
          );
        }
      });
      expect(pos).toBeLessThan(TOL.oracle);
      expect(rot).toBeLessThan(TOL.oracle);
    }
  });

  test('amassToClip(SMPL-X file) reads mocap_frame_rate 59.9999885 and the 55-joint tree', () => {
    const { clip, warnings } = amassToClipWithReport(npz('amass_smplx.npz'));
    expect(warnings).toEqual([]);
    expect(clip.rate).toBe(59.9999885);
    expect(clip.skeleton.names).toEqual(SMPLX_JOINT_NAMES);
    let worst = 0;
    ref.smplx.sampleFrames.forEach((f, i) => {
      for (let j = 0; j < 55; j++)
        worst = Math.max(
          worst,
          quatError(clip.rotations.data, (f * 55 + j) * 4, ref.smplx.local, (i * 55 + j) * 4),
        );
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  test('amassToClip warns, naming the rate used, when the rate is missing, two keys disagree or the length disagrees', () => {
    const arrays = npz('amass_smplh.npz');
    const { mocap_framerate: _, ...noRate } = arrays;
    const missing = amassToClipWithReport(noRate);
    expect(missing.clip.rate).toBe(120);
    expect(missing.warnings.map((w) => w.code)).toEqual(['rate-missing']);
    expect(missing.warnings[0].message).toMatch(/using 120 Hz/);
    expect(amassToClipWithReport(noRate, { fallbackRate: 60 }).clip.rate).toBe(60);
    const both = {
      ...arrays,
      mocap_frame_rate: { data: Float64Array.of(100), shape: [], dtype: 'float64' as const },
    };
    const disagree = amassToClipWithReport(both);
    expect(disagree.clip.rate).toBe(120);
    expect(disagree.warnings[0].message).toBe(
      'frame rates disagree (mocap_framerate = 120, mocap_frame_rate = 100); using 120 Hz',
    );
    const x = npz('amass_smplx.npz');
    const length = amassToClipWithReport({
      ...x,
      mocap_time_length: { data: Float64Array.of(1), shape: [], dtype: 'float64' },
    });
    expect(length.warnings.map((w) => w.code)).toEqual(['rate-length']);
    const forced = amassToClipWithReport(arrays, { rate: 30 });
    expect(forced.clip.rate).toBe(30);
    expect(forced.warnings.map((w) => w.code)).toEqual(['rate-disagree']);
  });

  test('amassToClip throws ShapeError on a missing or misshapen poses array and OptionError on bad options', () => {
    const arrays = npz('amass_smplh.npz');
    expect(() => amassToClip({ trans: arrays.trans })).toThrow(ShapeError);
    expect(() => amassToClip({ ...arrays, poses: { ...arrays.poses, shape: [96, 78] } })).toThrow(
      /expected 72/,
    );
    expect(() => amassToClip({ ...arrays, gender: arrays.gender, poses: arrays.gender })).toThrow(ShapeError);
    expect(() => amassToClip(arrays, { modle: 'smplh' } as never)).toThrow(OptionError);
    expect(() => amassToClip(arrays, { template: [[1, 2, 3]] })).toThrow(/template has 1 joints/);
  });

  test('a file without poses is named as such, with its members, and SMPL parameters point to their reader', () => {
    const arrays = npz('amass_smplh.npz');
    // no 'poses' member: the message names the missing member and the ones there are, not a column count
    let message = '';
    try {
      amassToClip({ trans: arrays.trans, betas: arrays.betas });
    } catch (e) {
      expect(e).toBeInstanceOf(ShapeError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/no 'poses' member/);
    expect(message).toContain("'trans', 'betas'");
    expect(message).not.toMatch(/columns/);
    expect(message).not.toMatch(/smplParamsToClip/);
    // a pose estimator's SMPL parameters (global_orient / body_pose / transl)
    const rows = (cols: number) => ({ ...arrays.trans, shape: [2, cols], data: new Float64Array(2 * cols) });
    const smpl = { global_orient: rows(3), body_pose: rows(69), transl: rows(3) } as never;
    expect(() => amassToClip(smpl)).toThrow(
      /no 'poses' member.*'global_orient', 'body_pose', 'transl'.*'global_orient', 'body_pose' look like SMPL parameters.*smplParamsToClip.*rotsig clean/,
    );
  });
});

describe('clipToAmass(clip, arrays)', () => {
  test('clipToAmass(amassToClip(file)) gives back every member: poses as the same rotations, the rest unchanged', () => {
    for (const file of ['amass_smplh.npz', 'amass_smplx.npz']) {
      const arrays = npz(file);
      const back = parseNpz(writeNpz(clipToAmass(amassToClip(arrays))));
      expect(Object.keys(back).sort()).toEqual(Object.keys(arrays).sort());
      for (const name of Object.keys(arrays)) {
        if (
          name === 'poses' ||
          ['root_orient', 'pose_body', 'pose_hand', 'pose_jaw', 'pose_eye'].includes(name)
        ) {
          const a = arrays[name].data as Float64Array;
          const b = back[name].data as Float64Array;
          expect(back[name].shape).toEqual(arrays[name].shape);
          // rotation vectors below π come back to rounding
          let worst = 0;
          for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
          expect(worst, `${file} ${name}`).toBeLessThan(1e-12);
        } else if (name === 'trans' || name === 'dmpls' || name === 'mocap_time_length') {
          const a = arrays[name].data as Float64Array;
          const b = back[name].data as Float64Array;
          for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 12);
        } else expect(back[name], `${file} ${name}`).toEqual(arrays[name]);
      }
    }
  });

  test('clipToAmass(resampleClip(SMPL+H 120 Hz, 30 Hz)) updates mocap_framerate, trans, dmpls rows and keeps betas and gender', () => {
    const arrays = npz('amass_smplh.npz');
    const clip30 = resampleClip(amassToClip(arrays), { targetRate: 30 });
    const out = clipToAmass(clip30);
    const frames = Math.floor((arrays.poses.shape[0] - 1) / 4) + 1;
    expect(out.poses.shape).toEqual([frames, 156]);
    expect(out.trans.shape).toEqual([frames, 3]);
    expect(out.dmpls.shape).toEqual([frames, 8]);
    expect(scalar(out.mocap_framerate)).toBe(30);
    expect(out.betas).toBe(arrays.betas);
    expect(out.gender.data).toEqual(['male']);
    // the root translation is linear in x: resampling keeps it on the exact 30 Hz grid
    const x0 = (arrays.trans.data as Float64Array)[0];
    const step = ((arrays.trans.data as Float64Array)[3] - x0) * 4;
    // away from the ends, where the widened kernel meets the clamped boundary
    for (let i = 3; i < frames - 3; i++)
      expect((out.trans.data as Float64Array)[i * 3]).toBeCloseTo(x0 + i * step, 12);
  });

  test('clipToAmass(SMPL-X at 59.9999885 Hz resampled to 20 Hz) writes mocap_frame_rate 20 and the split pose members', () => {
    const arrays = npz('amass_smplx.npz');
    const out = clipToAmass(resampleClip(amassToClip(arrays), { targetRate: 20 }));
    expect(scalar(out.mocap_frame_rate)).toBe(20);
    expect('mocap_framerate' in out).toBe(false);
    const frames = out.poses.shape[0];
    expect(frames).toBe(Math.floor(((30 - 1) * 20) / 59.9999885) + 1);
    expect(scalar(out.mocap_time_length)).toBe(frames / 20);
    expect(out.pose_hand.shape).toEqual([frames, 90]);
    const poses = out.poses.data as Float64Array;
    const hand = out.pose_hand.data as Float64Array;
    expect(Array.from(hand.subarray(90, 180))).toEqual(Array.from(poses.subarray(165 + 75, 165 + 165)));
    expect(out.markers_latent).toBe(arrays.markers_latent);
  });

  test('clipToAmass rejects a clip whose joint count fits no SMPL model', () => {
    const clip = amassToClip(npz('amass_smplh.npz'));
    const bad = {
      ...clip,
      source: undefined,
      skeleton: { ...clip.skeleton, names: clip.skeleton.names.slice(0, 50) },
    };
    expect(() => clipToAmass(bad)).toThrow(ShapeError);
  });
});

/** An SMPL+H AMASS file where joint 1 swings about x by `angle(t)` radians and the root walks along x at 1 m/s. */
function syntheticAmass(
  rate: number,
  seconds: number,
  angle: (t: number) => number,
  key = 'mocap_framerate',
) {
  const frames = Math.floor(seconds * rate) + 1;
  const poses = new Float64Array(frames * 156);
  const trans = new Float64Array(frames * 3);
  for (let f = 0; f < frames; f++) {
    poses[f * 156 + 3] = angle(f / rate);
    trans[f * 3] = f / rate;
    trans[f * 3 + 2] = 0.9;
  }
  return parseNpz(
    writeNpz({
      poses: { data: poses, shape: [frames, 156], dtype: 'float64' },
      trans: { data: trans, shape: [frames, 3], dtype: 'float64' },
      betas: { data: new Float64Array(16), shape: [16], dtype: 'float64' },
      gender: { data: ['neutral'], shape: [], dtype: 'str' },
      [key]: { data: Float64Array.of(rate), shape: [], dtype: 'float64' },
    }),
  );
}

/** Amplitude of the `hz` component of `x` sampled at `rate` (least-squares sine and cosine over whole cycles). */
function amplitudeAt(x: ArrayLike<number>, rate: number, hz: number, from: number, to: number): number {
  let s = 0;
  let c = 0;
  let n = 0;
  for (let i = from; i < to; i++) {
    s += x[i] * Math.sin((2 * Math.PI * hz * i) / rate);
    c += x[i] * Math.cos((2 * Math.PI * hz * i) / rate);
    n += 1;
  }
  return (2 * Math.hypot(s, c)) / n;
}

describe('resampling AMASS files at any ratio', () => {
  /**
   * Suppression in dB of a wobble above the new Nyquist: `wobbleHz` on joint 1 over a slow 1 Hz swing, taken
   * from `rate` to `target` by `resampleClip` with `options` and by integer-stride decimation. Returns the
   * amplitude the decimated series carries at the alias frequency (whole seconds from 1 s to 9 s, away from
   * the ends where the kernel meets the boundary) and the ratio of it to what the resampled file keeps there.
   */
  function suppression(rate: number, target: number, wobbleHz: number, options: object = {}) {
    const slow = (t: number) => 0.3 * Math.sin(2 * Math.PI * t);
    const arrays = syntheticAmass(rate, 10, (t) => slow(t) + 0.05 * Math.sin(2 * Math.PI * wobbleHz * t));
    const poses = arrays.poses.data as Float64Array;
    const stride = Math.round(rate / target);
    const aliasHz = Math.abs(wobbleHz - target * Math.round(wobbleHz / target));
    // stride decimation, as the pipelines in the wild do it (at the true rate / stride)
    const strided: number[] = [];
    for (let f = 0; f < arrays.poses.shape[0]; f += stride) strided.push(poses[f * 156 + 3] - slow(f / rate));
    const clip = resampleClip(amassToClip(arrays), { targetRate: target, ...options });
    expect(clip.rate).toBe(target);
    const out = clipToAmass(clip);
    const p = out.poses.data as Float64Array;
    const frames = out.poses.shape[0];
    const residual = Array.from({ length: frames }, (_, i) => p[i * 156 + 3] - slow(i / target));
    const aliased = amplitudeAt(strided, rate / stride, aliasHz, target, 9 * target);
    const kept = amplitudeAt(residual, target, aliasHz, target, 9 * target);
    return { aliased, db: 20 * Math.log10(aliased / kept) };
  }

  test('120 → 30 Hz with the defaults: a 25 Hz wobble that stride-4 decimation aliases to 5 Hz is suppressed by ≥ 40 dB', () => {
    const { aliased, db } = suppression(120, 30, 25);
    // the alias carries the wobble's full amplitude
    expect(aliased).toBeCloseTo(0.05, 6);
    // measured 46.3 dB (lanczos3, the default kernel for down-sampling)
    expect(db).toBeGreaterThanOrEqual(40);
  });

  test('59.9999885 → 20 Hz with the defaults: a 17 Hz wobble that stride-3 decimation aliases to 3 Hz is suppressed by ≥ 40 dB', () => {
    const { aliased, db } = suppression(59.9999885, 20, 17);
    expect(aliased).toBeCloseTo(0.05, 4);
    // measured 52.8 dB
    expect(db).toBeGreaterThanOrEqual(40);
  });

  test('the default down-sampling kernel is lanczos3: the same as asking for it, deeper than catmull-rom', () => {
    const byDefault = suppression(120, 30, 25).db;
    expect(suppression(120, 30, 25, { kernel: 'lanczos3' }).db).toBe(byDefault);
    // measured 36.0 dB: catmull-rom's stop band is shallower
    const catmullRom = suppression(120, 30, 25, { kernel: 'catmull-rom' }).db;
    expect(catmullRom).toBeGreaterThan(33);
    expect(catmullRom).toBeLessThan(40);
    // and with no anti-aliasing the resampler decimates: the alias stays at full amplitude (0 dB)
    expect(Math.abs(suppression(120, 30, 25, { kernel: 'nearest', antialias: false }).db)).toBeLessThan(0.1);
  });

  test('59.9999885 → 20 Hz keeps exact times over two minutes, where an int() stride runs 1.5x fast', () => {
    const rate = 59.9999885;
    const angle = (t: number) => 0.4 * Math.sin(2 * Math.PI * 0.5 * t);
    const arrays = syntheticAmass(rate, 120, angle, 'mocap_frame_rate');
    const clip20 = resampleClip(amassToClip(arrays), { targetRate: 20 });
    expect(clip20.rate).toBe(20);
    const out = clipToAmass(clip20);
    expect(scalar(out.mocap_frame_rate)).toBe(20);
    const frames = out.poses.shape[0];
    const sourceFrames = arrays.poses.shape[0];
    expect(frames).toBe(Math.floor(((sourceFrames - 1) * 20) / rate) + 1);
    const p = out.poses.data as Float64Array;
    const tr = out.trans.data as Float64Array;
    let worst = 0;
    let worstTrans = 0;
    for (let i = 10; i < frames - 10; i++) {
      worst = Math.max(worst, Math.abs(p[i * 156 + 3] - angle(i / 20)));
      worstTrans = Math.max(worstTrans, Math.abs(tr[i * 3] - i / 20));
    }
    // the filter's small pass-band loss at 0.5 Hz, and no drift in time: the root at x = t stays within
    // lanczos3's weight ripple (measured 2.9e-7 m at 1 m/s) of i / 20 over the two minutes, where a time
    // error of one source frame would show as 1.7e-2 m
    expect(worst).toBeLessThan(1e-3);
    expect(worstTrans).toBeLessThan(1e-6);
    const stride = Math.trunc(rate / 20);
    expect(stride).toBe(2);
    expect((stride * (frames - 1)) / rate / ((frames - 1) / 20)).toBeCloseTo(2 / 3, 6);
  });
});

describe('clipToAmass: per-frame members follow the poses through resample and subclip', () => {
  /** The SMPL+H fixture (48 frames, 120 Hz) with marker_data (frames x 2 x 3), dmpls and an unknown 'foo'. */
  function withMarkers() {
    const arrays = npz('amass_smplh.npz');
    const F = arrays.poses.shape[0];
    // marker k, axis c at frame f holds f + 1000 k + 100 c: a ramp in time, so every frame says which it is
    const markers = Float64Array.from(
      { length: F * 6 },
      (_, i) => Math.floor(i / 6) + 1000 * (Math.floor(i / 3) % 2) + 100 * (i % 3),
    );
    arrays.marker_data = { data: markers, shape: [F, 2, 3], dtype: 'float64' };
    arrays.dmpls = {
      data: Float64Array.from({ length: F * 8 }, (_, i) => Math.floor(i / 8)),
      shape: [F, 8],
      dtype: 'float64',
    };
    arrays.foo = { data: new Float64Array(F * 2), shape: [F, 2], dtype: 'float64' };
    return arrays;
  }

  test('the reader names a per-frame member of no known layout', () => {
    const { warnings } = amassToClipWithReport(withMarkers());
    expect(warnings.find((w) => w.code === 'unknown-per-frame')?.message).toContain("'foo'");
  });

  test('subclip keeps marker_data rows of the same frames as the poses; the unknown member is dropped by name', () => {
    const clip = amassToClip(withMarkers());
    const cut = subclip(clip, { start: 10 / 120, end: 29 / 120 });
    const { arrays, warnings } = clipToAmassWithReport(cut);
    expect(arrays.poses.shape[0]).toBe(20);
    expect(arrays.marker_data.shape).toEqual([20, 2, 3]);
    const m = arrays.marker_data.data as Float64Array;
    for (let i = 0; i < 20; i++) expect(m[i * 6 + 4]).toBeCloseTo(10 + i + 1000 + 100, 9); // marker 1, y
    expect(arrays.dmpls.shape).toEqual([20, 8]);
    expect((arrays.dmpls.data as Float64Array)[19 * 8]).toBeCloseTo(29, 9);
    expect('foo' in arrays).toBe(false);
    expect(warnings.map((w) => w.code)).toEqual(['dropped']);
    expect(warnings[0].message).toContain("'foo'");
  });

  test('resample to 30 Hz gives marker_data the poses row count, at the poses times', () => {
    const clip = amassToClip(withMarkers());
    const out = clipToAmass(resampleClip(clip, { targetRate: 30 }));
    const F = out.poses.shape[0];
    expect(out.marker_data.shape).toEqual([F, 2, 3]);
    const m = out.marker_data.data as Float64Array;
    // a ramp resampled at t = i / 30 s is frame 4 i of the source (beyond the kernel's reach of the clamped ends)
    for (let i = 4; i < F - 3; i++) expect(m[i * 6]).toBeCloseTo(4 * i, 6);
  });
});

describe('motionFeatures on an AMASS clip without a template', () => {
  test('z-up by default, and no joint position, velocity or contact columns (they would copy the root), with a warning', () => {
    const arrays = npz('amass_smplh.npz');
    const f = motionFeatures(amassToClip(arrays));
    expect(f.up).toBe('z');
    expect(f.positions).toBe(false);
    expect(f.warnings.map((w) => w.code)).toEqual(['positions-omitted']);
    expect(f.warnings[0].message).toContain('template');
    const names = new Set(f.columns.map((c) => c.name.split('.')[0]));
    expect([...names]).toEqual(['root', 'rotation6d']);
    // root height is trans z, the up coordinate of AMASS's world
    const trans = arrays.trans.data as Float64Array;
    const C = f.columns.length;
    for (const i of [0, 10, 47]) expect(f.data[i * C + 4]).toBeCloseTo(trans[i * 3 + 2], 12);
    // no two columns alike
    const seen = new Set<string>();
    for (let c = 0; c < C; c++) {
      const column = Array.from({ length: f.frames }, (_, i) => f.data[i * C + c]).join(',');
      seen.add(column);
    }
    expect(seen.size).toBe(C);
    const withJ = motionFeatures(amassToClip(arrays, { template: npz('template_smplh.npz').J }));
    expect(withJ.positions).toBe(true);
    expect(withJ.warnings).toEqual([]);
  });
});
