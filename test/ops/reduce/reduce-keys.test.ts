import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import * as THREE from 'three';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { type ReduceKeysOptions, reduceKeys } from '../../../src/ops/reduce/reduce-keys.js';
import type { Clip, KeyedClip } from '../../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';
import { createSkeleton, toAnimationClip } from '../../../src/three/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The bundled captures, cut to their first 600 frames to keep the suite quick. */
function sample(name: string, frames = 600): Clip {
  const clip = parseBvh(readFileSync(join(root, 'samples', name), 'utf8'));
  const J = clip.skeleton.names.length;
  const F = Math.min(frames, clip.frames);
  return {
    ...clip,
    frames: F,
    rotations: { data: clip.rotations.data.slice(0, F * J * 4), frames: F, joints: J },
    translations: { data: clip.translations.data.slice(0, F * J * 3), frames: F, joints: J },
  };
}

/**
 * The largest displacement of the six virtual vertices (± each local axis at `shell`) of every joint, at
 * every original frame, between the reduced keys played by three.js's AnimationMixer and the original
 * clip posed on three.js bones: an evaluator that shares no code with the reducer.
 */
function objectError(original: Clip, keyed: KeyedClip, shell: number): number {
  const play = (clipLike: Clip | KeyedClip) => {
    const skeleton = createSkeleton(original);
    const group = new THREE.Group();
    for (const bone of skeleton.bones) if (bone.parent === null) group.add(bone);
    const mixer = new THREE.AnimationMixer(group);
    const action = mixer.clipAction(toAnimationClip(clipLike, { precision: 'float64' }));
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    return { skeleton, group, mixer };
  };
  const a = play(original);
  const b = play(keyed);
  const va = new THREE.Vector3();
  const vb = new THREE.Vector3();
  let worst = 0;
  for (let f = 0; f < original.frames; f++) {
    const t = f * original.frameTime;
    a.mixer.setTime(t);
    b.mixer.setTime(t);
    a.group.updateMatrixWorld(true);
    b.group.updateMatrixWorld(true);
    for (let j = 0; j < a.skeleton.bones.length; j++) {
      for (let k = 0; k < 6; k++) {
        const offset = [0, 0, 0];
        offset[k >> 1] = k & 1 ? -shell : shell;
        va.fromArray(offset).applyMatrix4(a.skeleton.bones[j].matrixWorld);
        vb.fromArray(offset).applyMatrix4(b.skeleton.bones[j].matrixWorld);
        worst = Math.max(worst, va.distanceTo(vb));
      }
    }
  }
  return worst;
}

const CASES: [string, ReduceKeysOptions][] = [
  ["'acl' preset (3 cm shell, 0.01 cm), centimetres", { preset: 'acl', unitsPerMeter: 100 }],
  ["'ozz' preset (10 cm shell, 1 mm)", { preset: 'ozz', unitsPerMeter: 100 }],
  ['cubic spline keys', { preset: 'acl', unitsPerMeter: 100, interpolation: 'cubicspline' }],
  [
    '16-bit rotations, 0.05 cm',
    { preset: 'acl', unitsPerMeter: 100, tolerance: 0.05, quantization: 'int16' },
  ],
  [
    "effort 'best' (points check, fitted rotation keys)",
    { preset: 'acl', unitsPerMeter: 100, effort: 'best' },
  ],
  [
    "effort 'best', 16-bit rotations, 0.05 cm",
    { preset: 'acl', unitsPerMeter: 100, tolerance: 0.05, quantization: 'int16', effort: 'best' },
  ],
  [
    "effort 'best', cubic spline keys (points check only)",
    { preset: 'acl', unitsPerMeter: 100, interpolation: 'cubicspline', effort: 'best' },
  ],
];

describe('reduceKeys(clip, { metric: object }) holds its bound at every original frame', () => {
  for (const name of ['01_01.bvh', 'AV_8Walk_Meredith_HVHA_Rep1.bvh']) {
    const clip = sample(name);
    for (const [label, options] of CASES) {
      it(`${name}, ${label}: fewer keys, max error <= tolerance in its report and in three.js's playback`, () => {
        const { clip: keyed, report } = reduceKeys(clip, options);
        expect(report.keysAfter).toBeLessThan(report.keysBefore);
        expect(keyed.tracks.reduce((n, t) => n + t.times.length, 0)).toBe(report.keysAfter);
        expect(report.maxError).toBeLessThanOrEqual(report.tolerance);
        expect(report.p99Error).toBeLessThanOrEqual(report.maxError);
        const played = objectError(clip, keyed, report.shellDistance);
        // the mixer's float64 matrices agree with the report to round-off; the bound holds for both. With
        // 16-bit keys three.js does not normalise the decoded quaternions (the report's model does), which
        // moves points by about |1 - |q|²| times their distance: within 1% of the tolerance here.
        expect(played).toBeLessThanOrEqual(report.tolerance * (1 + 1e-9));
        const agreement = options.quantization === 'int16' ? 1e-2 : 1e-6;
        expect(Math.abs(played - report.maxError)).toBeLessThan(agreement * report.tolerance + 1e-9);
      });
    }
  }

  it('a larger tolerance never keeps more keys on these captures', () => {
    const clip = sample('01_01.bvh', 300);
    const counts = [0.01, 0.03, 0.1, 0.3].map(
      (tolerance) => reduceKeys(clip, { tolerance, shellDistance: 3 }).report.keysAfter,
    );
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeLessThanOrEqual(counts[i - 1]);
  });
});

describe("reduceKeys(clip, { effort: 'best' })", () => {
  it('keeps fewer keys than effort fast at the same tolerance on both captures, both within it', () => {
    for (const name of ['01_01.bvh', 'AV_8Walk_Meredith_HVHA_Rep1.bvh']) {
      const clip = sample(name, 400);
      for (const tolerance of [0.002, 0.01, 0.1]) {
        const options: ReduceKeysOptions = { preset: 'acl', unitsPerMeter: 100, tolerance };
        const fast = reduceKeys(clip, options).report;
        const best = reduceKeys(clip, { ...options, effort: 'best' }).report;
        expect(best.maxError).toBeLessThanOrEqual(tolerance);
        expect(fast.maxError).toBeLessThanOrEqual(tolerance);
        expect(best.keysAfter, `${name} at ${tolerance}`).toBeLessThan(fast.keysAfter);
      }
      // cubic splines keep sample values: the points check alone saves keys there
      const cubic: ReduceKeysOptions = { preset: 'acl', unitsPerMeter: 100, interpolation: 'cubicspline' };
      const fast = reduceKeys(clip, cubic).report;
      const best = reduceKeys(clip, { ...cubic, effort: 'best' }).report;
      expect(best.maxError).toBeLessThanOrEqual(best.tolerance);
      expect(best.keysAfter, `${name} cubic`).toBeLessThan(fast.keysAfter);
    }
  });

  it('fitted rotation keys leave the samples (unit quaternions, on the original frames) and hold the bound in three.js', () => {
    const clip = sample('01_01.bvh', 300);
    const { clip: keyed, report } = reduceKeys(clip, { preset: 'acl', unitsPerMeter: 100, effort: 'best' });
    const J = clip.skeleton.names.length;
    let off = 0;
    let keys = 0;
    for (const track of keyed.tracks) {
      if (track.path !== 'rotation') continue;
      for (let k = 0; k < track.times.length; k++) {
        const f = Math.round(track.times[k] / clip.frameTime);
        expect(Math.abs(track.times[k] - f * clip.frameTime)).toBeLessThan(1e-9);
        const v = track.values.subarray(k * 4, k * 4 + 4);
        expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(1e-12);
        const q = clip.rotations.data.subarray((f * J + track.joint) * 4, (f * J + track.joint) * 4 + 4);
        const dot = Math.abs(v[0] * q[0] + v[1] * q[1] + v[2] * q[2] + v[3] * q[3]);
        keys++;
        if (1 - dot > 1e-15) off++;
      }
    }
    // most keys take fitted values; the samples remain where they reach farther
    expect(off).toBeGreaterThan(keys / 2);
    expect(objectError(clip, keyed, report.shellDistance)).toBeLessThanOrEqual(report.tolerance * (1 + 1e-9));
  });

  it('never exceeds the tolerance on random chains (fast-check), and never keeps more keys than every frame', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 7 }),
        fc.integer({ min: 2, max: 60 }),
        fc.double({ min: 1e-4, max: 1, noNaN: true }),
        fc.double({ min: 0.05, max: 3, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        (J, F, tolerance, amplitude, seed) => {
          const clip = randomChain(J, F, amplitude, seed);
          const { clip: keyed, report } = reduceKeys(clip, { tolerance, shellDistance: 1, effort: 'best' });
          expect(report.maxError).toBeLessThanOrEqual(tolerance);
          expect(report.keysAfter).toBeLessThanOrEqual(report.keysBefore);
          expect(objectError(clip, keyed, 1)).toBeLessThanOrEqual(tolerance * (1 + 1e-9));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('rejects an unknown effort with OptionError', () => {
    const clip = sample('01_01.bvh', 20);
    expect(() => reduceKeys(clip, { effort: 'max' } as never)).toThrow(OptionError);
  });
});

/** A chain of `J` joints 2 units apart with smooth random swings (a seeded generator) and a moving root. */
function randomChain(J: number, F: number, amplitude: number, seed: number): Clip {
  let state = seed * 2654435761 + 1;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const rest = new Float64Array(J * 3);
  for (let j = 1; j < J; j++) rest.set([random() - 0.5, 2, random() - 0.5], j * 3);
  const skeleton = makeSkeleton({
    names: Array.from({ length: J }, (_, j) => `j${j}`),
    parents: Array.from({ length: J }, (_, j) => j - 1),
    restTranslations: rest,
  });
  const rot = new Float64Array(F * J * 4);
  const tr = new Float64Array(F * J * 3);
  const phase = Array.from({ length: J * 4 }, () => random() * 6);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const angle = amplitude * Math.sin(f / (3 + phase[j * 4]) + phase[j * 4 + 1]) + 0.01 * (random() - 0.5);
      const axis = [Math.cos(phase[j * 4 + 2]), Math.sin(phase[j * 4 + 2]), phase[j * 4 + 3] - 3];
      const n = Math.hypot(...axis);
      const s = Math.sin(angle / 2) / n;
      rot.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)], (f * J + j) * 4);
      tr.set(j === 0 ? [Math.sin(f / 9), 0.1 * f, 0] : rest.subarray(j * 3, j * 3 + 3), (f * J + j) * 3);
    }
  }
  const animated = new Uint8Array(J).fill(2);
  animated[0] = 3;
  return makeClip({
    skeleton,
    frameTime: 1 / 30,
    rotations: { data: rot, frames: F, joints: J },
    translations: { data: tr, frames: F, joints: J },
    animated,
  });
}

describe("reduceKeys(clip, { metric: 'local' })", () => {
  it('keeps every rotation within toleranceAngle and every translation within tolerance', () => {
    const clip = sample('01_01.bvh', 400);
    const { report } = reduceKeys(clip, { metric: 'local', toleranceAngle: 0.002, tolerance: 0.01 });
    expect(report.maxAngle).toBeLessThanOrEqual(0.002);
    expect(report.maxError).toBeLessThanOrEqual(0.01);
    expect(report.keysAfter).toBeLessThan(report.keysBefore / 2);
  });
});

describe('reduceKeys on exact shapes', () => {
  const skeleton = makeSkeleton({
    names: ['root', 'arm'],
    parents: [-1, 0],
    restTranslations: [0, 0, 0, 1, 0, 0],
  });
  const F = 101;
  function spin(rate: (f: number) => number): Clip {
    const rot = new Float64Array(F * 2 * 4);
    for (let f = 0; f < F; f++) {
      const half = rate(f) / 2;
      rot.set([0, 0, Math.sin(half), Math.cos(half), 0, 0, 0, 1], f * 8);
    }
    return makeClip({
      skeleton,
      frameTime: 0.01,
      rotations: { data: rot, frames: F, joints: 2 },
      animated: Uint8Array.of(2, 0),
    });
  }

  it('a constant-speed spin is two keys per half turn or less (slerp reproduces it exactly), a constant one key', () => {
    const { clip: keyed } = reduceKeys(
      spin((f) => 0.01 * f),
      { tolerance: 1e-9, shellDistance: 0.1 },
    );
    expect(keyed.tracks).toHaveLength(1);
    expect(Array.from(keyed.tracks[0].times)).toEqual([0, 1]);
    const still = reduceKeys(
      spin(() => 0.3),
      { tolerance: 1e-9, shellDistance: 0.1 },
    );
    expect(still.clip.tracks[0].times.length).toBe(1);
  });

  it('maxKeys caps the keys of every track and reports the tolerance it reached', () => {
    const clip = spin((f) => Math.sin(f / 8));
    const free = reduceKeys(clip, { tolerance: 0.1, shellDistance: 0.1 });
    const capped = reduceKeys(clip, { tolerance: 1, shellDistance: 0.1, maxKeys: 12 });
    expect(free.clip.tracks[0].times.length).toBeGreaterThan(12);
    expect(capped.clip.tracks[0].times.length).toBeLessThanOrEqual(12);
    expect(capped.report.maxError).toBeLessThanOrEqual(capped.report.tolerance);
    expect(capped.report.tolerance).toBeGreaterThan(0.1);
    expect(capped.report.tolerance).toBeLessThan(1);
    // the search is tight: 1% less tolerance needs more than 12 keys
    const tighter = reduceKeys(clip, { tolerance: capped.report.tolerance * 0.99, shellDistance: 0.1 });
    expect(tighter.clip.tracks[0].times.length).toBeGreaterThan(12);
  });

  it('rejects bad tolerances, options and data with typed errors; one frame is one exact key', () => {
    const clip = spin((f) => 0.01 * f);
    expect(() => reduceKeys(clip, { tolerance: 0 })).toThrow(OptionError);
    expect(() => reduceKeys(clip, { tolerance: -1 })).toThrow(OptionError);
    expect(() => reduceKeys(clip, { tolerance: 1e-300 })).toThrow(/below what the clip's numbers resolve/);
    expect(() => reduceKeys(clip, { tolerence: 1 } as never)).toThrow(OptionError);
    expect(() => reduceKeys(clip, { preset: 'nope' } as never)).toThrow(OptionError);
    expect(() => reduceKeys(clip, { interpolation: 'cubicspline', quantization: 'int16' })).toThrow(
      OptionError,
    );
    const bad = spin((f) => 0.01 * f);
    bad.rotations.data[17] = Number.NaN;
    expect(() => reduceKeys(bad, {})).toThrow(InvalidValueError);
    // a zero quaternion is no rotation, in every storage mode (frame 2 of joint 0 here)
    const zero = spin((f) => 0.01 * f);
    const at = (2 * zero.rotations.joints + 0) * 4;
    zero.rotations.data.fill(0, at, at + 4);
    for (const quantization of ['none', 'int16', 'variable'] as const)
      expect(() => reduceKeys(zero, { quantization })).toThrow(/zero quaternion at frame 2, joint 0/);
    expect(() =>
      reduceKeys(
        spin((f) => 0.01 * f),
        { quantization: 'variable', metric: 'local' },
      ),
    ).toThrow(OptionError);
    const one = makeClip({
      skeleton,
      frameTime: 0.01,
      rotations: { data: Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1), frames: 1, joints: 2 },
    });
    const r = reduceKeys(one, {});
    expect(r.report.maxError).toBe(0);
    expect(r.clip.tracks.every((t) => t.times.length === 1)).toBe(true);
  });
});

describe('reduceKeys on deep chains and inexact quaternions', () => {
  /** A chain of `J` joints 5 units apart, each swinging about its own axis at its own rate. */
  function chain(J: number, F: number): Clip {
    const rest = new Float64Array(J * 3);
    for (let j = 1; j < J; j++) rest[j * 3 + 1] = 5;
    const skeleton = makeSkeleton({
      names: Array.from({ length: J }, (_, j) => `j${j}`),
      parents: Array.from({ length: J }, (_, j) => j - 1),
      restTranslations: rest,
    });
    const rot = new Float64Array(F * J * 4);
    for (let f = 0; f < F; f++) {
      for (let j = 0; j < J; j++) {
        const angle = 0.3 * Math.sin(f / (7 + j) + j);
        const axis = [Math.cos(j), Math.sin(j), 0.5];
        const n = Math.hypot(...axis);
        const s = Math.sin(angle / 2) / n;
        rot.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)], (f * J + j) * 4);
      }
    }
    return makeClip({
      skeleton,
      frameTime: 1 / 60,
      rotations: { data: rot, frames: F, joints: J },
      animated: new Uint8Array(J).fill(2),
    });
  }

  it('16-bit keys on a 16-joint chain: feasible (each level keeps room for its own rounding), within the bound', () => {
    const clip = chain(16, 240);
    const options: ReduceKeysOptions = { tolerance: 0.05, shellDistance: 3, quantization: 'int16' };
    const { clip: keyed, report } = reduceKeys(clip, options);
    expect(report.maxError).toBeLessThanOrEqual(0.05);
    expect(report.keysAfter).toBeLessThan(report.keysBefore);
    // float64 playback by three.js of the 16-bit keys (decoded) against the original
    expect(objectError(clip, keyed, 3)).toBeLessThanOrEqual(0.05 * (1 + 1e-9));
  });

  it('rotations rounded to float32 (not unit to 1e-12) are normalised for the quaternion check and hold the same bound, at each effort', () => {
    const clip = chain(6, 240);
    const rounded = {
      ...clip,
      rotations: { ...clip.rotations, data: Float64Array.from(Float32Array.from(clip.rotations.data)) },
    };
    // a float32 file's rotations: unit only to about 1e-7
    let off = 0;
    const r = rounded.rotations.data;
    for (let i = 0; i < r.length; i += 4)
      off = Math.max(off, Math.abs(Math.hypot(r[i], r[i + 1], r[i + 2], r[i + 3]) - 1));
    expect(off).toBeGreaterThan(1e-9);
    for (const effort of ['fast', 'best'] as const) {
      const options: ReduceKeysOptions = { tolerance: 1e-3, shellDistance: 3, effort };
      for (const c of [clip, rounded]) {
        const { clip: keyed, report } = reduceKeys(c, options);
        expect(report.maxError).toBeLessThanOrEqual(1e-3);
        // three.js plays the keys as stored, normalising nothing: the bound still holds
        expect(objectError(c, keyed, 3)).toBeLessThanOrEqual(1e-3 * (1 + 1e-9));
        expect(Math.abs(objectError(c, keyed, 3) - report.maxError)).toBeLessThanOrEqual(
          0.01 * report.maxError,
        );
      }
      // both bound the same quantity: the kept keys barely differ
      const a = reduceKeys(clip, options).report.keysAfter;
      const b = reduceKeys(rounded, options).report.keysAfter;
      expect(Math.abs(a - b)).toBeLessThanOrEqual(0.02 * a);
    }
  });
});

describe('reduceKeys leaves its input as it was', () => {
  it('a uniform clip with sign flips, a keyed clip and its tracks: every array unchanged, at every effort and quantisation', () => {
    const base = sample('01_01.bvh', 240);
    const J = base.skeleton.names.length;
    // every other frame negated: the reduction makes signs continuous, on its own copy
    const rotations = Float64Array.from(base.rotations.data);
    for (let f = 1; f < base.frames; f += 2) for (let i = 0; i < J * 4; i++) rotations[f * J * 4 + i] *= -1;
    const clip: Clip = { ...base, rotations: { ...base.rotations, data: rotations } };
    const keyed: KeyedClip = {
      skeleton: clip.skeleton,
      orders: clip.orders,
      tracks: Array.from({ length: J }, (_, j) => {
        const values = new Float32Array(clip.frames * 4);
        for (let f = 0; f < clip.frames; f++)
          for (let c = 0; c < 4; c++) values[f * 4 + c] = rotations[(f * J + j) * 4 + c];
        const times = Float32Array.from({ length: clip.frames }, (_, f) => f / 120);
        return {
          joint: j,
          path: 'rotation' as const,
          interpolation: 'linear' as const,
          times,
          values,
          width: 4,
        };
      }),
    };
    const arrays = (x: Clip | KeyedClip) =>
      'tracks' in x
        ? x.tracks.flatMap((t) => [Array.from(t.times), Array.from(t.values)])
        : [Array.from(x.rotations.data), Array.from(x.translations.data)];
    for (const input of [clip, keyed]) {
      const before = arrays(input);
      for (const options of [
        { preset: 'acl', unitsPerMeter: 100 },
        { preset: 'acl', unitsPerMeter: 100, effort: 'best' },
        { preset: 'acl', unitsPerMeter: 100, tolerance: 0.05, quantization: 'int16' },
      ] as ReduceKeysOptions[]) {
        reduceKeys(input, options);
        expect(arrays(input)).toEqual(before);
      }
    }
  });
});
