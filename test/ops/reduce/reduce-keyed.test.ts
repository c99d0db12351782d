// reduceKeys on keyed clips (glTF): the kept keys are a subset of each track's own keys, times and values
// bit for bit, whatever the spacing; the reported error equals an independent evaluation written here
// from the glTF specification (interpolation, then forward kinematics to virtual vertices at the shell
// distance), maximised over every original key time.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { readGltfFile } from '../../../src/node/gltf.js';
import { reduceKeys } from '../../../src/ops/reduce/index.js';
import type { KeyedClip, Track } from '../../../src/series/clip.js';
import {
  FIXTURE_GLTF_DIR,
  HAS_SHARED_GLTF,
  SHARED_GLTF_FILES,
  sharedGltfPath,
} from '../../support/gltf-data.js';
import { chainSkeleton, track } from '../keys/helpers.js';

/** COLLADA2GLTF-style key times of a 37.5 Hz animation: float32 accumulation of the step. */
function accumulatedTimes(keys: number): number[] {
  const out: number[] = [];
  let t = Math.fround(0);
  for (let k = 0; k < keys; k++) {
    out.push(t);
    t = Math.fround(t + Math.fround(1 / 37.5));
  }
  return out;
}

/** Increasing float32 times with gaps drawn from [lo, hi) by a fixed LCG (no Math.random: reproducible). */
function irregularTimes(keys: number, seed: number, lo: number, hi: number): number[] {
  let s = seed;
  const out: number[] = [];
  let t = 0;
  for (let k = 0; k < keys; k++) {
    out.push(Math.fround(t));
    s = (s * 1103515245 + 12345) % 2147483648;
    t += lo + ((hi - lo) * s) / 2147483648;
  }
  return out;
}

function rotationAt(t: number, phase: number): number[] {
  // a slow swing with a faster wobble: some keys matter, most do not
  const a = 0.8 * Math.sin(2 * Math.PI * 0.25 * t + phase) + 0.004 * Math.sin(23 * t);
  const b = 0.3 * Math.cos(2 * Math.PI * 0.15 * t);
  const n = Math.hypot(0.3, 1, b);
  const s = Math.sin(a / 2) / n;
  return [0.3 * s, s, b * s, Math.cos(a / 2)];
}

function linearClip(times: (joint: number) => number[]): KeyedClip {
  const tracks: Track[] = [];
  const t0 = times(0);
  tracks.push(
    track(
      0,
      'translation',
      'linear',
      t0,
      t0.flatMap((t) => [0.5 * t, 1 + 0.05 * Math.sin(9 * t), 0.1 * Math.cos(3 * t)]),
      true,
    ),
  );
  for (let j = 0; j < 3; j++) {
    const tj = times(j);
    tracks.push(
      track(
        j,
        'rotation',
        'linear',
        tj,
        tj.flatMap((t) => rotationAt(t, j)),
        true,
      ),
    );
  }
  return { name: 'keys', skeleton: chainSkeleton(), tracks, orders: ['XYZ', 'XYZ', 'XYZ'] };
}

// ---- an evaluator of glTF keyed animation, from the specification (not rotsig's) ----

function sample(tr: Track, time: number): number[] {
  const n = tr.times.length;
  const w = tr.width;
  const cubic = tr.interpolation === 'cubicspline';
  const stride = cubic ? 3 * w : w;
  const off = cubic ? w : 0;
  const value = (k: number) => Array.from(tr.values.slice(k * stride + off, k * stride + off + w));
  let out: number[];
  if (time <= tr.times[0]) out = value(0);
  else if (time >= tr.times[n - 1]) out = value(n - 1);
  else {
    let k = 0;
    while (tr.times[k + 1] <= time) k++;
    const td = tr.times[k + 1] - tr.times[k];
    const u = (time - tr.times[k]) / td;
    const a = value(k);
    const b = value(k + 1);
    if (tr.interpolation === 'step') out = a;
    else if (cubic) {
      const outTangent = Array.from(tr.values.slice(k * stride + 2 * w, k * stride + 3 * w));
      const inTangent = Array.from(tr.values.slice((k + 1) * stride, (k + 1) * stride + w));
      const u2 = u * u;
      const u3 = u2 * u;
      out = a.map(
        (_, c) =>
          (2 * u3 - 3 * u2 + 1) * a[c] +
          td * (u3 - 2 * u2 + u) * outTangent[c] +
          (-2 * u3 + 3 * u2) * b[c] +
          td * (u3 - u2) * inTangent[c],
      );
    } else if (tr.path === 'rotation') {
      // the specification's slerp: the shorter arc
      const d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
      const s = d < 0 ? -1 : 1;
      const angle = Math.acos(Math.min(1, Math.abs(d)));
      if (angle < 1e-9) out = a.map((x, c) => (1 - u) * x + u * s * b[c]);
      else {
        const k0 = Math.sin(angle * (1 - u)) / Math.sin(angle);
        const k1 = (s * Math.sin(angle * u)) / Math.sin(angle);
        out = a.map((x, c) => k0 * x + k1 * b[c]);
      }
    } else out = a.map((x, c) => x + u * (b[c] - x));
  }
  if (tr.path === 'rotation') {
    const l = Math.hypot(out[0], out[1], out[2], out[3]);
    out = out.map((x) => x / l);
  }
  return out;
}

type Mat = { m: number[]; p: number[] };

/** World transforms (3x3 row-major with scale, origin) of every joint at `time`. */
function pose(clip: KeyedClip, time: number): Mat[] {
  const sk = clip.skeleton;
  const J = sk.names.length;
  const out: Mat[] = [];
  for (let j = 0; j < J; j++) {
    let t = Array.from(sk.restTranslations.slice(j * 3, j * 3 + 3));
    let q = Array.from(sk.restRotations.slice(j * 4, j * 4 + 4));
    let s = Array.from(sk.restScales.slice(j * 3, j * 3 + 3));
    for (const tr of clip.tracks) {
      if (tr.joint !== j) continue;
      if (tr.path === 'translation') t = sample(tr, time);
      else if (tr.path === 'rotation') q = sample(tr, time);
      else if (tr.path === 'scale') s = sample(tr, time);
    }
    const [x, y, z, w] = q;
    const R = [
      1 - 2 * (y * y + z * z),
      2 * (x * y - w * z),
      2 * (x * z + w * y),
      2 * (x * y + w * z),
      1 - 2 * (x * x + z * z),
      2 * (y * z - w * x),
      2 * (x * z - w * y),
      2 * (y * z + w * x),
      1 - 2 * (x * x + y * y),
    ];
    const L = R.map((v, i) => v * s[i % 3]);
    const parent = sk.parents[j];
    if (parent < 0) out.push({ m: L, p: t });
    else {
      const P = out[parent];
      const m = new Array(9).fill(0);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) m[r * 3 + c] += P.m[r * 3 + k] * L[k * 3 + c];
      const p = [0, 1, 2].map(
        (r) => P.p[r] + P.m[r * 3] * t[0] + P.m[r * 3 + 1] * t[1] + P.m[r * 3 + 2] * t[2],
      );
      out.push({ m, p });
    }
  }
  return out;
}

/** Largest displacement of six virtual vertices per joint (± each local axis at `shell`), over every key time of `a`. */
function independentError(a: KeyedClip, b: KeyedClip, shell: number): number {
  const times = new Set<number>();
  for (const tr of a.tracks) for (const t of tr.times) times.add(t);
  let worst = 0;
  // the shell is in scene units: each local axis's offset divided by that axis's length in the rest pose's
  // world matrix (a joint under a scaled armature gets its vertices at `shell` in the scene)
  const rest = pose({ ...a, tracks: [] }, 0);
  const offset = rest.map((r) =>
    [0, 1, 2].map((axis) => shell / Math.hypot(r.m[axis], r.m[3 + axis], r.m[6 + axis])),
  );
  for (const time of times) {
    const pa = pose(a, time);
    const pb = pose(b, time);
    for (let j = 0; j < pa.length; j++)
      for (let k = 0; k < 6; k++) {
        const axis = k >> 1;
        const r = k & 1 ? -offset[j][axis] : offset[j][axis];
        let e2 = 0;
        for (let c = 0; c < 3; c++) {
          const va = pa[j].p[c] + pa[j].m[c * 3 + axis] * r;
          const vb = pb[j].p[c] + pb[j].m[c * 3 + axis] * r;
          e2 += (va - vb) ** 2;
        }
        worst = Math.max(worst, Math.sqrt(e2));
      }
  }
  return worst;
}

/** Every output track's keys are keys of the input's track on the same joint and path: time and stored numbers equal. */
function expectSubset(input: KeyedClip, output: KeyedClip): { before: number; after: number } {
  let before = 0;
  let after = 0;
  for (const tr of input.tracks) before += tr.times.length;
  for (const out of output.tracks) {
    const src = input.tracks.find((t) => t.joint === out.joint && t.path === out.path)!;
    expect(src, `${out.joint}/${out.path}`).toBeDefined();
    expect(out.interpolation).toBe(src.interpolation);
    const per = out.width * (out.interpolation === 'cubicspline' ? 3 : 1);
    let k = 0;
    for (let i = 0; i < out.times.length; i++) {
      while (k < src.times.length && src.times[k] !== out.times[i]) k++;
      expect(k, `key time ${out.times[i]} of ${out.joint}/${out.path} is one of the input's`).toBeLessThan(
        src.times.length,
      );
      expect(Array.from(out.values.slice(i * per, (i + 1) * per))).toEqual(
        Array.from(src.values.slice(k * per, (k + 1) * per)),
      );
    }
    after += out.times.length;
  }
  return { before, after };
}

const SHELL = 0.03;
const TOLERANCE = 1e-3;
/**
 * Agreement of the reported and the measured error: 1e-6 of the bound (1 nm here). float32 keys are unit
 * only to about 1e-7, and slerps on them part at that level: the specification's (acos of the dot product,
 * as three.js) and rotsig's (atan2 of the chord lengths) give the measured error apart by about 1e-8 of it.
 */
const AGREE = 1e-6 * TOLERANCE;

describe('reduceKeys(keyed) keeps a subset of the input keys, and reports the error of what it returns', () => {
  it('jittered 37.5 Hz keys (float32 accumulation): kept keys bit-equal, error as measured independently', () => {
    const times = accumulatedTimes(80);
    // the jitter is real: intervals differ in float32
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeGreaterThan(1e-7);
    const keyed = linearClip(() => times);
    const { clip, report } = reduceKeys(keyed, { shellDistance: SHELL, tolerance: TOLERANCE });
    const { before, after } = expectSubset(keyed, clip);
    expect(after).toBeLessThan(0.6 * before);
    expect(report.keysBefore).toBe(before);
    expect(report.keysAfter).toBe(after);
    const measured = independentError(keyed, clip, SHELL);
    expect(measured).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(report.maxError - measured)).toBeLessThan(AGREE);
  });

  it('non-uniform keys, each track on its own times, a STEP scale: subset, bound held, error as measured', () => {
    const keyed = linearClip((j) => irregularTimes(70, 17 + j, 0.004, 0.09));
    keyed.tracks.push(
      track(
        2,
        'scale',
        'step',
        irregularTimes(30, 5, 0.02, 0.2),
        irregularTimes(30, 9, 0, 0.01).flatMap((s) => [1 + s, 1 + s, 1 + s]),
        true,
      ),
    );
    const { clip, report } = reduceKeys(keyed, { shellDistance: SHELL, tolerance: TOLERANCE });
    const { before, after } = expectSubset(keyed, clip);
    expect(after).toBeLessThan(before);
    const measured = independentError(keyed, clip, SHELL);
    expect(measured).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(report.maxError - measured)).toBeLessThan(AGREE);
  });

  it('CUBICSPLINE tracks keep their kept keys with their own tangents; the error is the Hermite curve of those', () => {
    const times = irregularTimes(60, 3, 0.01, 0.05);
    const h = 1e-4;
    const cubic = (f: (t: number) => number[]) =>
      times.flatMap((t) => {
        const d = f(t + h).map((x, c) => (x - f(t - h)[c]) / (2 * h));
        return [...d, ...f(t), ...d];
      });
    const keyed: KeyedClip = {
      skeleton: chainSkeleton(),
      tracks: [
        track(
          0,
          'translation',
          'cubicspline',
          times,
          cubic((t) => [0.4 * t, 1 + 0.05 * Math.sin(5 * t), 0]),
          true,
        ),
        track(
          1,
          'rotation',
          'cubicspline',
          times,
          cubic((t) => rotationAt(t, 1)),
          true,
        ),
      ],
      orders: ['XYZ', 'XYZ', 'XYZ'],
    };
    const { clip, report } = reduceKeys(keyed, { shellDistance: SHELL, tolerance: TOLERANCE });
    const { before, after } = expectSubset(keyed, clip);
    expect(after).toBeLessThan(before);
    const measured = independentError(keyed, clip, SHELL);
    expect(measured).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(report.maxError - measured)).toBeLessThan(AGREE);
  });

  it("refuses interpolation 'cubicspline' on a keyed clip (its tracks keep their own) and 16-bit CUBICSPLINE rotations", () => {
    const keyed = linearClip(() => accumulatedTimes(10));
    expect(() => reduceKeys(keyed, { interpolation: 'cubicspline' })).toThrow(OptionError);
    const times = accumulatedTimes(4);
    const cubic: KeyedClip = {
      ...keyed,
      tracks: [
        track(
          1,
          'rotation',
          'cubicspline',
          times,
          times.flatMap((t) => [0, 0, 0, 0, ...rotationAt(t, 0), 0, 0, 0, 0]),
        ),
      ],
    };
    expect(() => reduceKeys(cubic, { quantization: 'int16' })).toThrow(/CUBICSPLINE/);
  });

  it("effort 'best', a key budget and 16-bit rotations on jittered keys: subset of times, error as measured", () => {
    const keyed = linearClip(() => accumulatedTimes(80));
    for (const options of [{ effort: 'best' as const }, { maxKeys: 30, tolerance: 0.05 }]) {
      const { clip, report } = reduceKeys(keyed, { shellDistance: SHELL, tolerance: TOLERANCE, ...options });
      expectSubset(keyed, clip);
      for (const t of clip.tracks) expect(t.times.length).toBeLessThanOrEqual(options.maxKeys ?? 80);
      const measured = independentError(keyed, clip, SHELL);
      expect(measured).toBeLessThanOrEqual(report.tolerance);
      expect(Math.abs(report.maxError - measured)).toBeLessThan(1e-6 * report.tolerance);
    }
    const { clip, report } = reduceKeys(keyed, {
      shellDistance: SHELL,
      tolerance: TOLERANCE,
      quantization: 'int16',
    });
    for (const out of clip.tracks) {
      const src = keyed.tracks.find((t) => t.joint === out.joint && t.path === out.path)!;
      for (let i = 0; i < out.times.length; i++) {
        const k = Array.from(src.times).indexOf(out.times[i]);
        expect(k).toBeGreaterThanOrEqual(0);
        for (let c = 0; c < out.width; c++) {
          const v = out.values[i * out.width + c];
          const x = src.values[k * out.width + c];
          if (out.path === 'rotation') {
            // the stored 16-bit value, of the key or of its negation (one rotation): the nearest step, or
            // (when rounding each joint against its parent's rounding measures smaller) a few steps away
            expect(Number.isInteger(Math.round(v * 32767 * 1e6) / 1e6)).toBe(true);
            expect(Math.abs(Math.abs(v) - Math.abs(x))).toBeLessThanOrEqual(4 / 32767);
          } else expect(v).toBe(x);
        }
      }
    }
    // 16-bit keys are unit only to about 3e-5: the specification's acos slerp and rotsig's (normalised
    // after) part at about 2e-6 of the bound on them
    const measured = independentError(keyed, clip, SHELL);
    expect(measured).toBeLessThanOrEqual(TOLERANCE * (1 + 1e-5));
    expect(Math.abs(report.maxError - measured)).toBeLessThan(1e-5 * TOLERANCE);
  });

  it('16-bit rotations where each track has its own key times: each keeps a subset of its own, error as measured', () => {
    // the rounded pose at another track's key time is interpolated from the rounded keys, as a player does
    // (an earlier version rounded every track at the union of all times and never ended on such a clip)
    const keyed = linearClip((j) => irregularTimes(50 + 9 * j, 7 + j, 0.01, 0.06));
    const lengths = new Set(keyed.tracks.map((t) => t.times.length));
    expect(lengths.size).toBeGreaterThan(2);
    for (const maxKeys of [undefined, 40]) {
      const { clip, report } = reduceKeys(keyed, {
        shellDistance: SHELL,
        tolerance: 0.05,
        quantization: 'int16',
        ...(maxKeys ? { maxKeys } : {}),
      });
      for (const out of clip.tracks) {
        const own = Array.from(keyed.tracks.find((t) => t.joint === out.joint && t.path === out.path)!.times);
        for (const t of out.times) expect(own).toContain(t);
        if (out.path === 'rotation') expect(out.times.length).toBeLessThan(own.length);
      }
      const measured = independentError(keyed, clip, SHELL);
      expect(measured).toBeLessThanOrEqual(report.tolerance * (1 + 1e-5));
      expect(Math.abs(report.maxError - measured)).toBeLessThan(1e-5 * report.tolerance);
    }
  });

  it("effort 'best' tries wider budgets: fewer keys where the search left room, still within the bound", async () => {
    // rigged_simple: one swinging bone whose 50 keys lie on 3 slerps. Under 3e-5 m the search's shares
    // and radius bound keep 9 keys measuring 2.1e-5; a search under twice the budget keeps 5 (3 rotation
    // keys) measuring 2.6e-5, within the tolerance (glTF-Transform's resample() keeps 7 there)
    const { clips } = await readGltfFile(join(FIXTURE_GLTF_DIR, 'rigged_simple.gltf'));
    const keyed = clips[0] as KeyedClip;
    const options = { shellDistance: SHELL, tolerance: 3e-5 };
    const fast = reduceKeys(keyed, options);
    const best = reduceKeys(keyed, { ...options, effort: 'best' });
    expect(best.report.keysAfter).toBeLessThan(fast.report.keysAfter);
    expect(best.report.keysAfter).toBeLessThanOrEqual(5);
    for (const { clip, report } of [fast, best]) {
      expectSubset(keyed, clip);
      const measured = independentError(keyed, clip, SHELL);
      expect(measured).toBeLessThanOrEqual(3e-5);
      expect(Math.abs(report.maxError - measured)).toBeLessThan(1e-3 * measured);
    }
    // where the search already uses the tolerance, best keeps at most fast's keys (the ladder finds nothing)
    const tight = linearClip(() => accumulatedTimes(80));
    const a = reduceKeys(tight, { shellDistance: SHELL, tolerance: TOLERANCE });
    const b = reduceKeys(tight, { shellDistance: SHELL, tolerance: TOLERANCE, effort: 'best' });
    expect(b.report.keysAfter).toBeLessThanOrEqual(a.report.keysAfter);
    expect(independentError(tight, b.clip, SHELL)).toBeLessThanOrEqual(TOLERANCE * (1 + 1e-9));
  });

  it('an animation whose every track holds the rest value keeps one channel, in every storage mode with its codes', () => {
    // spine's rotation at rest on every key: dropped, but an animation needs a channel, so it keeps one
    // key; with variable bit rates that channel needs its filter codes too (the writer refuses one without)
    const rest = [0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)];
    const keyed: KeyedClip = {
      skeleton: chainSkeleton(),
      tracks: [track(1, 'rotation', 'linear', [0, 0.5, 1], [...rest, ...rest, ...rest])],
      orders: ['XYZ', 'XYZ', 'XYZ'],
    };
    for (const quantization of ['none', 'int16', 'variable'] as const) {
      const { clip, report, rotationCodes } = reduceKeys(keyed, { quantization });
      expect(
        clip.tracks.map((t) => [t.joint, t.path, t.times.length]),
        quantization,
      ).toEqual([[1, 'rotation', 1]]);
      expect(report.constantTracks).toBe(1);
      expect(report.droppedTracks).toBe(0);
      if (quantization === 'variable') expect(rotationCodes?.map((c) => c.joint)).toEqual([1]);
      expect(independentError(keyed, clip, SHELL)).toBeLessThanOrEqual(report.tolerance);
    }
  });

  it("metric 'local' reads float32 rotation keys that are unit only to 1e-7 as the rotation they are", () => {
    // one rotation held by 10 keys, stored 5e-8 short of unit length: every angle between them is 0
    const q = rotationAt(0.3, 0).map((x) => Math.fround(x * (1 - 5e-8)));
    const n2 = q.reduce((a, x) => a + x * x, 0);
    expect(n2).toBeLessThan(1 - 5e-8);
    const times = accumulatedTimes(10);
    const keyed: KeyedClip = {
      skeleton: chainSkeleton(),
      tracks: [
        track(
          1,
          'rotation',
          'linear',
          times,
          times.flatMap(() => q),
          true,
        ),
      ],
      orders: ['XYZ', 'XYZ', 'XYZ'],
    };
    // 2·acos(|q|²) would be 6e-4 rad, six times this tolerance, on the keys themselves
    const { clip, report } = reduceKeys(keyed, { metric: 'local', toleranceAngle: 1e-4 });
    expect(report.maxAngle).toBeLessThan(1e-12);
    expect(clip.tracks[0].times.length).toBe(1);
    expectSubset(keyed, clip);
  });

  it.skipIf(!HAS_SHARED_GLTF)(
    'every animation of the shared glTF files: a subset of its keys, the error as measured independently',
    async () => {
      let animations = 0;
      let before = 0;
      let after = 0;
      for (const file of SHARED_GLTF_FILES) {
        const read = await readGltfFile(sharedGltfPath(file));
        for (const keyed of read.clips) {
          const { clip, report } = reduceKeys(keyed, { shellDistance: SHELL, tolerance: TOLERANCE });
          const counts = expectSubset(keyed, clip);
          // morph weights are kept whole
          expect(clip.tracks.filter((t) => t.path === 'weights')).toEqual(
            keyed.tracks.filter((t) => t.path === 'weights'),
          );
          const measured = independentError(keyed, clip, SHELL);
          expect(measured, `${file} '${keyed.name}'`).toBeLessThanOrEqual(TOLERANCE);
          expect(Math.abs(report.maxError - measured), `${file} '${keyed.name}'`).toBeLessThan(AGREE);
          animations++;
          before += counts.before;
          after += counts.after;
        }
      }
      expect(animations).toBeGreaterThan(20);
      expect(after).toBeLessThan(before);
    },
    120_000,
  );
});
