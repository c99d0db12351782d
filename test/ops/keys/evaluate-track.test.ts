import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Quaternion } from 'three';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { evaluateTrack, TrackSampler } from '../../../src/ops/keys/evaluate-track.js';
import { assertTrack } from '../../../src/ops/keys/track-checks.js';
import type { Interpolation, Track, TrackPath } from '../../../src/series/clip.js';
import { quatDistance, unitQuat } from '../../support/arbitraries.js';
import { TOL } from '../../support/tolerances.js';

const here = dirname(fileURLToPath(import.meta.url));

/** three.js's flat slerp, typed for typed arrays. */
const threeSlerpFlat = Quaternion.slerpFlat as unknown as (
  dst: Float64Array,
  dstOffset: number,
  a: Float64Array,
  aOffset: number,
  b: Float64Array,
  bOffset: number,
  t: number,
) => void;

interface OracleCase {
  path: TrackPath;
  interpolation: Interpolation;
  width: number;
  float32: boolean;
  times: number[];
  values: number[];
  queries: number[];
  expected: number[];
}

const oracle: { cases: OracleCase[] } = JSON.parse(
  readFileSync(join(here, '../../fixtures/gltf-interpolation.json'), 'utf8'),
);

function trackOf(c: OracleCase): Track {
  const A = c.float32 ? Float32Array : Float64Array;
  return {
    joint: 0,
    path: c.path,
    interpolation: c.interpolation,
    width: c.width,
    times: A.from(c.times),
    values: A.from(c.values),
  };
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function linearRotationTrack(keys: Float64Array[], times: number[]): Track {
  const values = new Float64Array(keys.length * 4);
  for (let i = 0; i < keys.length; i++) values.set(keys[i], i * 4);
  return {
    joint: 0,
    path: 'rotation',
    interpolation: 'linear',
    width: 4,
    times: Float64Array.from(times),
    values,
  };
}

describe('evaluateTrack(track, times) against the glTF 2.0 Appendix C oracle (scripts/gltf_interpolation.py)', () => {
  it('covers every path, interpolation and Float32 tracks', () => {
    const kinds = new Set(oracle.cases.map((c) => `${c.path}/${c.interpolation}/${c.float32}`));
    expect(kinds.size).toBe(24);
  });

  it.each(oracle.cases.map((c, i) => [i, c.path, c.interpolation, c.times.length, c.float32, c] as const))(
    'case %i: %s %s, %i keys, float32 %s, matches to 1e-12 (increasing, reversed and shuffled queries)',
    (_i, _p, _m, _n, _f, c) => {
      const track = trackOf(c);
      const got = evaluateTrack(track, c.queries);
      expect(maxDiff(got, c.expected)).toBeLessThanOrEqual(TOL.oracle);
      // the cached seek must not depend on the order of the queries
      const order = c.queries.map((_, i) => i).reverse();
      const rev = evaluateTrack(
        track,
        order.map((i) => c.queries[i]),
      );
      for (let j = 0; j < order.length; j++) {
        for (let k = 0; k < c.width; k++) {
          expect(Math.abs(rev[j * c.width + k] - c.expected[order[j] * c.width + k])).toBeLessThanOrEqual(
            TOL.oracle,
          );
        }
      }
    },
  );

  it('the largest error over all fixtures (random tracks and the Khronos sample) is at most 1e-12', () => {
    let worst = 0;
    const all = [
      ...oracle.cases,
      ...(oracle as unknown as { interpolationTest: OracleCase[] }).interpolationTest,
    ];
    for (const c of all) worst = Math.max(worst, maxDiff(evaluateTrack(trackOf(c), c.queries), c.expected));
    if (process.env.KEYS_REPORT) console.log(`largest difference from the oracle: ${worst}`);
    expect(worst).toBeLessThanOrEqual(TOL.oracle);
  });
});

describe('evaluateTrack(track, times) semantics', () => {
  it('clamps before the first and after the last key, and returns keys as stored at key times', () => {
    const track: Track = {
      joint: 0,
      path: 'translation',
      interpolation: 'linear',
      width: 3,
      times: Float64Array.of(0.5, 0.7, 2),
      values: Float64Array.of(1, 2, 3, 4, 5, 6, -1, -2, -3),
    };
    expect(Array.from(evaluateTrack(track, [-3, 0.5, 0.7, 2, 9]))).toEqual([
      1, 2, 3, 1, 2, 3, 4, 5, 6, -1, -2, -3, -1, -2, -3,
    ]);
    // lerp in the middle of a non-uniform interval
    expect(maxDiff(evaluateTrack(track, [1.35]), [1.5, 1.5, 1.5])).toBeLessThan(TOL.f64);
  });

  it("'step' holds the previous key until the next key time", () => {
    const track: Track = {
      joint: 1,
      path: 'scale',
      interpolation: 'step',
      width: 3,
      times: Float64Array.of(0, 1),
      values: Float64Array.of(1, 1, 1, 2, 3, 4),
    };
    expect(Array.from(evaluateTrack(track, [0.999999, 1]))).toEqual([1, 1, 1, 2, 3, 4]);
  });

  it('one key is a constant; two keys interpolate between them', () => {
    const one: Track = {
      joint: 0,
      path: 'weights',
      interpolation: 'cubicspline',
      width: 2,
      times: Float64Array.of(3),
      values: Float64Array.of(9, 9, 0.25, 0.75, 9, 9),
    };
    expect(Array.from(evaluateTrack(one, [-1, 3, 10]))).toEqual([0.25, 0.75, 0.25, 0.75, 0.25, 0.75]);
    const two = linearRotationTrack(
      [Float64Array.of(0, 0, 0, 1), Float64Array.of(0, 0, Math.SQRT1_2, Math.SQRT1_2)],
      [0, 1],
    );
    const mid = evaluateTrack(two, [0.5]);
    const s = Math.sin(Math.PI / 8);
    const c = Math.cos(Math.PI / 8);
    expect(maxDiff(mid, [0, 0, s, c])).toBeLessThan(TOL.f64);
  });

  it('linear rotations take the shortest arc: a key stored as -q gives the same rotations', () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, u) => {
        const neg = b.map((x) => -x);
        const t1 = linearRotationTrack([a, b], [0, 2]);
        const t2 = linearRotationTrack([a, neg], [0, 2]);
        const q1 = evaluateTrack(t1, [2 * u]);
        const q2 = evaluateTrack(t2, [2 * u]);
        expect(quatDistance(q1, q2)).toBeLessThan(1e-9);
        expect(Math.abs(Math.hypot(...q1) - 1)).toBeLessThan(1e-12);
      }),
    );
  });

  it('rotations come out unit for every interpolation (cubicspline normalised after the Hermite step)', () => {
    fc.assert(
      fc.property(
        fc.array(unitQuat, { minLength: 2, maxLength: 6 }),
        fc.constantFrom<Interpolation>('step', 'linear', 'cubicspline'),
        fc.array(fc.double({ min: -1, max: 8, noNaN: true }), { minLength: 1, maxLength: 10 }),
        (keys, interpolation, queries) => {
          const n = keys.length;
          const per = interpolation === 'cubicspline' ? 3 : 1;
          const values = new Float64Array(n * per * 4);
          keys.forEach((k, i) => {
            values.set(k, (i * per + (per === 3 ? 1 : 0)) * 4);
            if (per === 3) values.set([0.1, -0.2, 0.05, 0], (i * 3 + 2) * 4);
          });
          const times = Float64Array.from(keys.map((_, i) => i * 1.3 + (i % 2) * 0.4));
          const q = evaluateTrack(
            { joint: 0, path: 'rotation', interpolation, width: 4, times, values },
            queries,
          );
          for (let i = 0; i < queries.length; i++) {
            expect(Math.abs(Math.hypot(q[i * 4], q[i * 4 + 1], q[i * 4 + 2], q[i * 4 + 3]) - 1)).toBeLessThan(
              1e-12,
            );
          }
        },
      ),
    );
  });

  it('returns the keys at the key times, for every interpolation', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 2, noNaN: true }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom<Interpolation>('step', 'linear', 'cubicspline'),
        fc.integer({ min: 1, max: 4 }),
        (gaps, interpolation, width) => {
          const n = gaps.length;
          const times = new Float64Array(n);
          let t = -0.3;
          for (let i = 0; i < n; i++) times[i] = t += gaps[i];
          const per = interpolation === 'cubicspline' ? 3 : 1;
          const values = Float64Array.from({ length: n * per * width }, (_, i) => Math.sin(i * 1.7) * 3);
          const out = evaluateTrack(
            { joint: 0, path: 'weights', interpolation, width, times, values },
            times,
          );
          for (let k = 0; k < n; k++) {
            for (let c = 0; c < width; c++) {
              expect(out[k * width + c]).toBe(values[(k * per + (per === 3 ? 1 : 0)) * width + c]);
            }
          }
        },
      ),
    );
  });

  it('at a dot product of exactly 0 keeps the second key as stored (s = +1, as three.js does)', () => {
    const track = linearRotationTrack([Float64Array.of(0, 0, 0, 1), Float64Array.of(1, 0, 0, 0)], [0, 1]);
    const q = evaluateTrack(track, [0.5]);
    // cos(π/4)·(0,0,0,1) + sin(π/4)·(1,0,0,0): 90° about +x, not -x
    expect(maxDiff(q, [Math.SQRT1_2, 0, 0, Math.SQRT1_2])).toBeLessThan(TOL.f64);
  });

  it("agrees with three.js's Quaternion.slerpFlat to 5e-7 (its nlerp above dot 0.9995) and exactly in sign at dot = 0", () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, u) => {
        const ours = evaluateTrack(linearRotationTrack([a, b], [0, 1]), [u]);
        const theirs = new Float64Array(4);
        threeSlerpFlat(theirs, 0, a, 0, b, 0, u);
        // As rotations (q ≡ -q): at u = 1 three.js returns b as given, not b in a's hemisphere, so with
        // a·b < 0 (e.g. -5e-321) its output flips sign between u = 1 - ε and u = 1.
        const flipped = theirs.map((v) => -v);
        expect(Math.min(maxDiff(ours, theirs), maxDiff(ours, flipped))).toBeLessThan(5.1e-7);
      }),
    );
    const a = Float64Array.of(0, 0, 0, 1);
    const b = Float64Array.of(0.001, 0, 0, Math.sqrt(1 - 1e-6)); // dot > 0.9995: three.js lerps
    const theirs = new Float64Array(4);
    threeSlerpFlat(theirs, 0, a, 0, b, 0, 0.5);
    expect(maxDiff(evaluateTrack(linearRotationTrack([a, b], [0, 1]), [0.5]), theirs)).toBeLessThan(1e-9);
    const c = Float64Array.of(1, 0, 0, 0); // dot = 0 with a
    threeSlerpFlat(theirs, 0, a, 0, c, 0, 0.5);
    expect(maxDiff(evaluateTrack(linearRotationTrack([a, c], [0, 1]), [0.5]), theirs)).toBeLessThan(TOL.f64);
  });

  it('writes into options.out (Float32 too) and gives the same result when out aliases an input', () => {
    const c = oracle.cases.find(
      (x) => x.path === 'translation' && x.interpolation === 'cubicspline' && x.times.length === 7,
    )!;
    const track = trackOf(c);
    const ref = evaluateTrack(track, c.queries);
    const f32 = evaluateTrack(track, c.queries, { out: new Float32Array(ref.length) });
    expect(maxDiff(f32, ref)).toBeLessThan(TOL.f32 * 10);
    // out aliasing the track's values: same numbers as into a fresh buffer
    const values = Float64Array.from(track.values);
    const own: Track = { ...track, values, times: Float64Array.from(track.times) };
    const q = c.queries.slice(0, Math.floor(values.length / 3));
    const expected = evaluateTrack(own, q);
    const alias = values.subarray(0, q.length * 3);
    evaluateTrack(own, q, { out: alias });
    expect(Array.from(alias)).toEqual(Array.from(expected));
    // out aliasing the query times (width 1)
    const w1: Track = {
      joint: 0,
      path: 'weights',
      interpolation: 'linear',
      width: 1,
      times: Float64Array.of(0, 1),
      values: Float64Array.of(0, 10),
    };
    const qs = Float64Array.of(0.25, 0.5, 2);
    evaluateTrack(w1, qs, { out: qs });
    expect(Array.from(qs)).toEqual([2.5, 5, 10]);
  });

  it('finds the same values with a TrackSampler fed increasing, decreasing and random times', () => {
    const c = oracle.cases.find(
      (x) => x.path === 'rotation' && x.interpolation === 'linear' && x.times.length === 20,
    )!;
    const s = new TrackSampler(trackOf(c));
    const out = new Float64Array(4);
    for (const i of [...c.queries.keys()].sort(() => 0.5 - Math.random())) {
      s.sample(out, 0, c.queries[i]);
      expect(maxDiff(out, c.expected.slice(i * 4, i * 4 + 4))).toBeLessThanOrEqual(TOL.oracle);
    }
  });

  it('handles 1e6 keys and 1e6 increasing queries (bounded by the data)', () => {
    const n = 1_000_000;
    const times = new Float64Array(n);
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      times[i] = i * 0.01 + (i % 3) * 0.001;
      values[i] = i;
    }
    const q = new Float64Array(n);
    for (let i = 0; i < n; i++) q[i] = i * 0.01 + 0.0005;
    const out = evaluateTrack(
      { joint: 0, path: 'weights', interpolation: 'step', width: 1, times, values },
      q,
    );
    // step: the last key at or before each query
    for (const i of [0, 1, 2, 3, 499_999, 500_000, n - 2, n - 1]) {
      let k = 0;
      while (k + 1 < n && times[k + 1] <= q[i]) k++;
      if (i < 4 || i > n - 3) expect(out[i]).toBe(k);
      else expect(out[i]).toBe(q[i] >= times[i] ? i : i - 1);
    }
  });
});

describe('evaluateTrack(track, times) on hostile input', () => {
  const good = (): Track => ({
    joint: 2,
    path: 'rotation',
    interpolation: 'linear',
    width: 4,
    times: Float64Array.of(0, 1, 2),
    values: Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1),
  });

  it('rejects a NaN or infinite query time with its index', () => {
    expect(() => evaluateTrack(good(), [0, Number.NaN])).toThrow(InvalidValueError);
    expect(() => evaluateTrack(good(), [Number.NEGATIVE_INFINITY])).toThrow(/times\[0\]/);
    const s = new TrackSampler(good());
    expect(() => s.sample(new Float64Array(4), 0, Number.NaN)).toThrow(InvalidValueError);
    expect(() => s.sample(new Float64Array(4), 0, Number.POSITIVE_INFINITY)).toThrow(InvalidValueError);
  });

  it('rejects key times that do not increase or are NaN, naming the key', () => {
    const t = good();
    t.times = Float64Array.of(0, 1, 1);
    expect(() => evaluateTrack(t, [0])).toThrow(/key 2 has time 1, not after key 1/);
    t.times = Float64Array.of(0, Number.NaN, 2);
    try {
      evaluateTrack(t, [0]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location).toEqual({ index: 1, joint: 2 });
    }
  });

  it('rejects NaN values, wrong lengths, widths and paths', () => {
    const t = good();
    t.values[6] = Number.NaN;
    expect(() => evaluateTrack(t, [0])).toThrow(/key 1 has a non-finite value NaN \(component 2\)/);
    expect(() => evaluateTrack({ ...good(), values: new Float64Array(11) }, [0])).toThrow(ShapeError);
    expect(() => evaluateTrack({ ...good(), interpolation: 'cubicspline' }, [0])).toThrow(
      /expected keys x 3 x 4 = 36/,
    );
    expect(() => evaluateTrack({ ...good(), width: 3 }, [0])).toThrow(/rotation track has 4 values per key/);
    expect(() => evaluateTrack({ ...good(), path: 'pose' as TrackPath }, [0])).toThrow(ShapeError);
    expect(() =>
      evaluateTrack({ ...good(), times: new Float64Array(0), values: new Float64Array(0) }, []),
    ).toThrow(/at least one key/);
    expect(() => evaluateTrack({ ...good(), times: [0, 1, 2] as unknown as Float64Array }, [0])).toThrow(
      ShapeError,
    );
    expect(() => evaluateTrack(good(), [0], { out: new Float64Array(3) })).toThrow(ShapeError);
    expect(() => evaluateTrack(good(), [0], { output: 1 } as never)).toThrow(OptionError);
    expect(() => assertTrack({ ...good(), joint: -1 })).toThrow(ShapeError);
  });

  it('rejects a CUBICSPLINE rotation that interpolates to zero instead of returning NaN', () => {
    const values = new Float64Array(24);
    values.set([0, 0, 0, 1], 4);
    values.set([0, 0, 0, -1], 16);
    const t: Track = {
      joint: 0,
      path: 'rotation',
      interpolation: 'cubicspline',
      width: 4,
      times: Float64Array.of(0, 1),
      values,
    };
    expect(() => evaluateTrack(t, [0.5])).toThrow(InvalidValueError);
  });
});

const SAMPLE = join(here, '../../../../shared/data/gltf/khronos-samples/interpolation_test.gltf');
const sampleCases = (
  oracle as unknown as {
    interpolationTest: (OracleCase & { animation: string; input: number; output: number })[];
  }
).interpolationTest;

describe('evaluateTrack(track, times) on the Khronos interpolation test (interpolation_test.gltf)', () => {
  it('has its nine animations in the fixture', () => {
    expect(sampleCases.length).toBe(9);
    expect(new Set(sampleCases.map((c) => c.interpolation))).toEqual(
      new Set(['step', 'linear', 'cubicspline']),
    );
  });

  it.each(sampleCases.map((c) => [c.animation, c.interpolation, c] as const))(
    "'%s' (%s) matches the spec oracle to 1e-12 at keys, between them and outside",
    (_name, _m, c) => {
      expect(maxDiff(evaluateTrack(trackOf(c), c.queries), c.expected)).toBeLessThanOrEqual(TOL.oracle);
    },
  );

  it.skipIf(!existsSync(SAMPLE))(
    "the fixture holds the file's accessors, as @gltf-transform/core reads them",
    async () => {
      const { NodeIO } = await import('@gltf-transform/core');
      // the sample's texture (l.jpg) is not in the data folder: hand the reader the JSON, the .bin and an empty image
      const json = JSON.parse(readFileSync(SAMPLE, 'utf8'));
      const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
      for (const b of json.buffers)
        resources[b.uri] = new Uint8Array(readFileSync(join(dirname(SAMPLE), b.uri)));
      for (const im of json.images ?? []) if (im.uri) resources[im.uri] = new Uint8Array(0);
      const doc = await new NodeIO().readJSON({ json, resources });
      const accessors = doc.getRoot().listAccessors();
      for (const c of sampleCases) {
        expect(Array.from(accessors[c.input].getArray()!)).toEqual(c.times);
        expect(Array.from(accessors[c.output].getArray()!)).toEqual(c.values);
      }
    },
  );
});

describe('TrackSampler.sample(out, offset, time) on arguments that do not fit', () => {
  const track: Track = {
    joint: 0,
    path: 'rotation',
    interpolation: 'linear',
    width: 4,
    times: Float64Array.of(0, 1),
    values: Float64Array.of(0, 0, 0, 1, 0, 0.6, 0, 0.8),
  };
  it('an out that is no array, or too short for width values at offset, is a ShapeError; nothing is written', () => {
    const s = new TrackSampler(track);
    for (const out of [null, undefined, 5, 'abcd', Symbol('s'), {}]) {
      expect(() => s.sample(out as never, 0, 0.5), String(out)).toThrow(ShapeError);
    }
    const out = new Float64Array(4).fill(7);
    for (const offset of [1, -1, 0.5, Number.NaN, 2 ** 32, '0', Symbol('s')]) {
      expect(() => s.sample(out, offset as never, 0.5), String(offset)).toThrow(ShapeError);
    }
    expect(Array.from(out)).toEqual([7, 7, 7, 7]);
    s.sample(out, 0, 0.5);
    expect(Math.hypot(...out)).toBeCloseTo(1, 12);
  });

  it('a time that is no number is an InvalidValueError, like a non-finite one', () => {
    const s = new TrackSampler(track);
    for (const time of ['0.5', null, undefined, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => s.sample(new Float64Array(4), 0, time as never), String(time)).toThrow(InvalidValueError);
    }
  });
});
