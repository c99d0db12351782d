// Spline resampling in the pipeline (`{ op: 'resample', spline: true }`). A joint turning about one fixed
// axis makes SciPy's RotationSpline a cubic in the angle with the same end conditions as the vector
// spline, so the output's angles are checked against vectorSplineTrack run on the key angles (each spline
// is checked against SciPy in test/ops/keys); the angles are read from the quaternions by hand.
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { vectorSplineTrack } from '../../src/ops/keys/vector-spline.js';
import { runKeyedSteps } from '../../src/pipeline/keyed.js';
import { runSteps } from '../../src/pipeline/steps.js';
import type { Clip, KeyedClip, Track } from '../../src/series/clip.js';
import { makeSkeleton } from '../../src/series/clip-create.js';
import { chainClip } from '../support/clips.js';

/** A one-joint clip at `rate` turning about z through `angles` (one per frame) and moving along x. */
function turning(angles: number[], rate: number, still = false): Clip {
  const n = angles.length;
  const rot = new Float64Array(n * 4);
  const tra = new Float64Array(n * 3);
  angles.forEach((a, f) => {
    rot.set([0, 0, Math.sin(a / 2), Math.cos(a / 2)], f * 4);
    tra.set([still ? 0 : Math.sin(3 * f) * 0.1 + f * 0.01, 0, 0], f * 3);
  });
  return chainClip(rot, tra, 1, rate);
}

const angleOf = (q: ArrayLike<number>, f: number) => 2 * Math.atan2(q[f * 4 + 2], q[f * 4 + 3]);

describe('resample with spline: C² splines through the frames', () => {
  const angles = [0, 0.3, 1.1, 0.9, -0.2, -0.4, 0.5, 1.6, 1.5, 0.2];
  const clip = turning(angles, 10);

  it('keeps every frame at its time and follows the spline between, angles and translations', () => {
    const out = runSteps(clip, [{ op: 'resample', rate: 40, spline: true }]);
    expect(out.rate).toBe(40);
    expect(out.frames).toBe(37);
    const times = Float64Array.from({ length: out.frames }, (_, f) => f / 40);
    const keyTimes = Float64Array.from(angles, (_, f) => f / 10);
    const track = (values: number[], width: number): Track =>
      ({
        joint: 0,
        path: 'translation',
        interpolation: 'linear',
        width,
        times: keyTimes,
        values: Float64Array.from(values),
      }) as unknown as Track;
    const expectedAngle = vectorSplineTrack(
      track(
        angles.flatMap((a) => [a, 0, 0]),
        3,
      ),
      times,
    );
    const xs = Array.from({ length: angles.length }, (_, f) => clip.translations.data[f * 3]);
    const expectedX = vectorSplineTrack(
      track(
        xs.flatMap((x) => [x, 0, 0]),
        3,
      ),
      times,
    );
    let worstAngle = 0;
    let worstX = 0;
    for (let f = 0; f < out.frames; f++) {
      worstAngle = Math.max(worstAngle, Math.abs(angleOf(out.rotations.data, f) - expectedAngle[f * 3]));
      worstX = Math.max(worstX, Math.abs(out.translations.data[f * 3] - expectedX[f * 3]));
    }
    expect(worstAngle).toBeLessThan(1e-9);
    expect(worstX).toBeLessThan(1e-12);
    for (let f = 0; f < angles.length; f++)
      expect(angleOf(out.rotations.data, f * 4)).toBeCloseTo(angles[f], 12);
  });

  it('is smoother than the default kernel: no jump of angular acceleration at the keys', () => {
    // on a cubic piece the central second difference is the second derivative exactly, and it is linear
    // in time: extrapolated from each side to the key, the two agree for a C² curve
    const jumps = (c: Clip) => {
      let worst = 0;
      const a = (f: number) => angleOf(c.rotations.data, f);
      const acc = (f: number) => (a(f + 1) - 2 * a(f) + a(f - 1)) * 80 * 80;
      for (let k = 2; k < angles.length - 2; k++) {
        const f = k * 8; // 80 Hz: 8 frames per key interval
        const left = 2 * acc(f - 1) - acc(f - 2);
        const right = 2 * acc(f + 1) - acc(f + 2);
        worst = Math.max(worst, Math.abs(left - right));
      }
      return worst;
    };
    const spline = runSteps(clip, [{ op: 'resample', rate: 80, spline: true }]);
    const kernel = runSteps(clip, [{ op: 'resample', rate: 80, loop: 'off' }]);
    // rad/s²: catmull-rom is C¹ only
    expect(jumps(spline)).toBeLessThan(1e-6);
    expect(jumps(kernel)).toBeGreaterThan(1);
  });

  it('refuses a rate below the clip’s (splines do not anti-alias) and optimal with it', () => {
    expect(() => runSteps(clip, [{ op: 'resample', rate: 5, spline: true }])).toThrow(OptionError);
    expect(() => runSteps(clip, [{ op: 'resample', rate: 40, spline: true, optimal: 'linear' }])).toThrow(
      OptionError,
    );
  });

  it('keeps a loop closed: the rate is fitted so the last frame is the first pose', () => {
    const loop = turning([0, 0.5, 1.2, 0.8, 0.1, -0.3, -0.6, -0.2, 0, 0.2, 0.4, 0.1, 0], 10, true);
    const out = runSteps(loop, [{ op: 'resample', rate: 33, spline: true }]);
    // 1.2 s at 33 Hz is 39.6 frames: 40 intervals, 33.33 Hz
    expect(out.frames).toBe(41);
    expect(out.rate).toBeCloseTo(40 / 1.2, 9);
    expect(Math.abs(angleOf(out.rotations.data, 40) - angleOf(out.rotations.data, 0))).toBeLessThan(1e-12);
    const open = runSteps(loop, [{ op: 'resample', rate: 33, spline: true, loop: 'off' }]);
    expect(open.rate).toBe(33);
    expect(open.frames).toBe(40);
  });
});

describe('resample with spline on keyed clips: through each track’s own keys', () => {
  // three hand-set keys at uneven times, one turning about z, one moving; the clip's end at 2.0 s
  const keyTimes = [0, 0.7, 2.0];
  const angles = [0, 1.2, 0.4];
  const keyed: KeyedClip = {
    name: 'blocking',
    skeleton: makeSkeleton({ names: ['root'], parents: [-1], restTranslations: [0, 0, 0] }),
    tracks: [
      {
        joint: 0,
        path: 'rotation',
        interpolation: 'linear',
        width: 4,
        times: Float32Array.from(keyTimes),
        values: Float32Array.from(angles.flatMap((a) => [0, 0, Math.sin(a / 2), Math.cos(a / 2)])),
      },
      {
        joint: 0,
        path: 'translation',
        interpolation: 'step',
        width: 3,
        times: Float32Array.from(keyTimes),
        values: Float32Array.of(0, 0, 0, 1, 0.5, 0, 2, 0, 0),
      },
    ],
    orders: ['XYZ'],
  };

  it('keys at k / rate follow the splines through the keys; the key values are kept', () => {
    const out = runKeyedSteps(keyed, [{ op: 'resample', rate: 30, spline: true }]);
    const rot = out.tracks.find((t) => t.path === 'rotation')!;
    const pos = out.tracks.find((t) => t.path === 'translation')!;
    expect(rot.times.length).toBe(61);
    for (let k = 0; k < rot.times.length; k++) expect(Math.fround(rot.times[k])).toBe(Math.fround(k / 30));
    const expectedAngle = vectorSplineTrack(
      {
        ...keyed.tracks[1],
        interpolation: 'linear',
        values: Float64Array.from(angles.flatMap((a) => [a, 0, 0])),
      } as Track,
      Array.from(rot.times),
    );
    const expectedPos = vectorSplineTrack(
      { ...keyed.tracks[1], interpolation: 'linear' } as Track,
      Array.from(pos.times),
    );
    let worst = 0;
    let worstPos = 0;
    for (let k = 0; k < rot.times.length; k++) {
      worst = Math.max(worst, Math.abs(angleOf(rot.values, k) - expectedAngle[k * 3]));
      for (let c = 0; c < 3; c++)
        worstPos = Math.max(worstPos, Math.abs(pos.values[k * 3 + c] - expectedPos[k * 3 + c]));
    }
    // float32 key times in, float64 spline; the written values are float64 here
    expect(worst).toBeLessThan(1e-6);
    expect(worstPos).toBeLessThan(1e-6);
    // the key at 0.7 s is not on the 30 Hz grid (21 frames = 0.7 s is): its value is there
    expect(angleOf(rot.values, 21)).toBeCloseTo(1.2, 6);
    expect(angleOf(rot.values, 60)).toBeCloseTo(0.4, 6);
  });

  it('refuses a rate below the keys’ own', () => {
    // keys 0.7 and 1.3 s apart: their own rate is the median interval's, 1 / 1.0 s
    expect(() => runKeyedSteps(keyed, [{ op: 'resample', rate: 0.5, spline: true }])).toThrow(OptionError);
  });
});
