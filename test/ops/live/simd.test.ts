import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../../src/errors.js';
import { setSimdEnabled, simdAvailable } from '../../../src/numeric/simd.js';
import { SIMD_WASM_BASE64 } from '../../../src/numeric/simd-bytes.js';
import {
  createDamper,
  type Damper,
  type DamperOptions,
  type DamperResponse,
  halfLifeToDamping,
} from '../../../src/ops/live/damper.js';
import {
  createOneEuroFilter,
  type OneEuroDerivative,
  type OneEuroFilter,
  type OneEuroOptions,
} from '../../../src/ops/live/one-euro.js';
import { rng } from '../../support/random.js';

type TargetPath = NonNullable<DamperOptions['targetPath']>;

/** The WebAssembly and JavaScript paths round differently (a few ulps), nothing more. */
const PATHS_AGREE = 1e-13;

afterEach(() => {
  setSimdEnabled(true);
});

/** The same filter twice: through the WebAssembly kernel and through the JavaScript loops. */
function bothPaths<F>(make: () => F): { simd: F; js: F } {
  setSimdEnabled(true);
  const simd = make();
  setSimdEnabled(false);
  const js = make();
  setSimdEnabled(true);
  return { simd, js };
}

/** The same damper through both paths. */
const pair = (options: DamperOptions): { simd: Damper; js: Damper } => bothPaths(() => createDamper(options));

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** How a property test hands each sample to the two filters. */
type PushMode = 'f64' | 'f32' | 'alias64' | 'alias32' | 'offsets';

/** What both filters offer for pushing samples. */
interface Pushable {
  push<T extends Float64Array | Float32Array>(out: T, input: ArrayLike<number>, time: number): T;
  pushAt(
    out: Float64Array,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): unknown;
}

/**
 * Sample `k` (`n` values) of `input` through both paths as `mode` says (a fresh Float64Array output, `out`
 * aliasing the input in Float64 or Float32, or offsets into larger arrays), their outputs compared.
 */
function pushBoth(
  simd: Pushable,
  js: Pushable,
  mode: PushMode,
  input: Float64Array | Float32Array,
  k: number,
  n: number,
  time: number,
): void {
  if (mode === 'alias64' || mode === 'alias32') {
    const f32 = mode === 'alias32';
    const a = f32 ? new Float32Array(n) : new Float64Array(n);
    const b = f32 ? new Float32Array(n) : new Float64Array(n);
    a.set(input.subarray(k * n, k * n + n));
    b.set(a);
    simd.push(a, a, time);
    js.push(b, b, time);
    // Float32 outputs round the same doubles, unless two paths straddle a rounding boundary
    expect(maxDiff(a, b)).toBeLessThanOrEqual(f32 ? 2 ** -24 : PATHS_AGREE);
  } else if (mode === 'offsets') {
    const a = new Float64Array(n + 5);
    const b = new Float64Array(n + 5);
    simd.pushAt(a, 5, input, k * n, time);
    js.pushAt(b, 5, input, k * n, time);
    expect(maxDiff(a, b)).toBeLessThanOrEqual(PATHS_AGREE);
  } else {
    const sample = input.subarray(k * n, k * n + n);
    const a = simd.push(new Float64Array(n), sample, time);
    const b = js.push(new Float64Array(n), sample, time);
    expect(maxDiff(a, b)).toBeLessThanOrEqual(PATHS_AGREE);
  }
}

/**
 * A tracker stream with what sends the kernel down each of its paths: small steps (the polynomials), jumps
 * to random rotations (the full-range logarithm and exponential), random stored signs and lengths, and
 * time steps from 0.1 ms to 20 min (the spring's clamp).
 */
function stream(seed: number, joints: number, samples: number) {
  const random = rng(seed);
  const data = new Float64Array(samples * joints * 4);
  const times: number[] = [];
  const q = new Float64Array(joints * 4);
  for (let j = 0; j < joints; j++) q[j * 4 + 3] = 1;
  let t = random();
  for (let k = 0; k < samples; k++) {
    const r = random();
    t += r < 0.8 ? 1e-4 + 0.05 * random() : r < 0.95 ? 0.2 + 3 * random() : 1200 * random() + 1e-3;
    times.push(t);
    for (let j = 0; j < joints; j++) {
      const o = j * 4;
      const jump = random() < 0.15;
      const s = jump ? 2 : 0.05;
      for (let c = 0; c < 4; c++) q[o + c] = jump ? random() - 0.5 : q[o + c] + s * (random() - 0.5);
      const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]) || 1;
      const scale = ((random() < 0.5 ? -1 : 1) * (0.5 + 1.5 * random())) / n;
      for (let c = 0; c < 4; c++) data[(k * joints + j) * 4 + c] = q[o + c] * scale;
    }
  }
  return { data, times };
}

/**
 * The largest angular speed (rad/s) of the linear target path over the interval before sample `k`: the velocity
 * of a linear damper is made of that speed's terms (v = b − λ·decay·(j₀ + b/λ) for the exponential damper), so
 * both paths round it at that scale, whatever the difference left.
 */
function targetSpeed(input: ArrayLike<number>, k: number, n: number, times: number[]): number {
  if (k === 0) return 0;
  let most = 0;
  for (let o = 0; o < n; o += 4) {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let c = 0; c < 4; c++) {
      const a = input[k * n + o + c];
      const b = input[(k - 1) * n + o + c];
      dot += a * b;
      na += a * a;
      nb += b * b;
    }
    const angle = 2 * Math.acos(Math.min(1, Math.abs(dot) / Math.sqrt(na * nb)));
    most = Math.max(most, angle / (times[k] - times[k - 1]));
  }
  return most;
}

describe('the rotation dampers through the WebAssembly SIMD kernel (createDamper, both responses, both target paths)', () => {
  it('simdAvailable() is true on this engine, and setSimdEnabled(false) makes filters keep their state in plain arrays', () => {
    expect(simdAvailable()).toBe(true);
    const { simd, js } = pair({ joints: 3, halfLife: 0.05 });
    // the kernel's state lives in its instance's memory, after the sample's copy
    expect(simd.velocity.byteOffset).toBeGreaterThan(0);
    expect(js.velocity.byteOffset).toBe(0);
    expect(js.velocity.buffer.byteLength).toBe(3 * 3 * 8);
    // every rotation damper has the kernel; vectors have none
    setSimdEnabled(true);
    expect(createDamper({ joints: 3, targetPath: 'linear' }).velocity.byteOffset).toBeGreaterThan(0);
    expect(createDamper({ joints: 3, response: 'exponential' }).velocity.byteOffset).toBeGreaterThan(0);
    expect(createDamper({ joints: 3, kind: 'vector' }).velocity.byteOffset).toBe(0);
  });

  it('push(out, quats, time) agrees with the JavaScript path to 1e-13 on random streams (both responses, both target paths, Float64 and Float32 input, out aliasing input, offsets, odd and even joint counts)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 2, max: 40 }),
        fc.integer(),
        fc.constantFrom<PushMode>('f64', 'f32', 'alias64', 'alias32', 'offsets'),
        fc.double({ min: 1e-3, max: 2, noNaN: true }),
        fc.constantFrom<DamperResponse>('critical', 'exponential'),
        fc.constantFrom<TargetPath>('hold', 'linear'),
        (joints, samples, seed, mode, halfLife, response, targetPath) => {
          const { data, times } = stream(seed, joints, samples);
          const { simd, js } = pair({ joints, halfLife, response, targetPath });
          expect(simd.velocity.byteOffset).toBeGreaterThan(0);
          const n = joints * 4;
          const f32 = mode === 'f32' || mode === 'alias32';
          const input = f32 ? Float32Array.from(data) : data;
          for (let k = 0; k < samples; k++) {
            pushBoth(simd, js, mode, input, k, n, times[k]);
            // the state itself, in doubles whatever the output's type: value and velocity (rad/s)
            const sa = simd.getState();
            const sb = js.getState();
            expect(maxDiff(sa.output, sb.output)).toBeLessThanOrEqual(PATHS_AGREE);
            expect(maxDiff(sa.velocity, sb.velocity)).toBeLessThanOrEqual(
              PATHS_AGREE *
                Math.max(
                  1,
                  ...sb.velocity.map(Math.abs),
                  targetPath === 'linear' ? targetSpeed(input, k, n, times) : 0,
                ),
            );
            expect(maxDiff(sa.target, sb.target)).toBeLessThanOrEqual(PATHS_AGREE);
            expect(maxDiff(simd.velocity, sa.velocity)).toBe(0);
            expect(sa.samples).toBe(sb.samples);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('push(out, quats, time, targetVelocity) agrees with the JavaScript path to 1e-13 (the critical spring with a target velocity, from slow to beyond the polynomials and the 1e5 rad the kernel leaves to JavaScript)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 2, max: 30 }),
        fc.integer(),
        fc.double({ min: 1e-3, max: 2, noNaN: true }),
        fc.constantFrom(0.1, 10, 1e3, 1e7),
        fc.boolean(),
        (joints, samples, seed, halfLife, speed, offsets) => {
          const { data, times } = stream(seed, joints, samples);
          const { simd, js } = pair({ joints, halfLife });
          const random = rng(seed ^ 0x5bd1e995);
          const n = joints * 4;
          for (let k = 0; k < samples; k++) {
            const velocity = Array.from({ length: joints * 3 }, () => speed * (2 * random() - 1));
            const sample = data.subarray(k * n, k * n + n);
            const a = new Float64Array(n + 3);
            const b = new Float64Array(n + 3);
            if (offsets) {
              simd.pushAt(a, 3, data, k * n, times[k], velocity);
              js.pushAt(b, 3, data, k * n, times[k], velocity);
            } else {
              simd.push(a.subarray(0, n), sample, times[k], velocity);
              js.push(b.subarray(0, n), sample, times[k], velocity);
            }
            // both paths add the lead a = −(4/d)·q to j₀ and take it off again, so they round at the size of
            // |a| (a one-ulp difference in j₀ from the full-range logarithm moves e₀ = j₀ + a by an ulp of a)
            const lead = (4 / halfLifeToDamping(halfLife)) * Math.max(...velocity.map(Math.abs));
            const scale = Math.max(1, lead);
            expect(maxDiff(a, b)).toBeLessThanOrEqual(PATHS_AGREE * scale);
            const sa = simd.getState();
            const sb = js.getState();
            expect(maxDiff(sa.output, sb.output)).toBeLessThanOrEqual(PATHS_AGREE * scale);
            expect(maxDiff(sa.velocity, sb.velocity)).toBeLessThanOrEqual(
              PATHS_AGREE * Math.max(scale, ...sb.velocity.map(Math.abs), speed),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each<[number, TargetPath]>([
    [1e4, 'hold'],
    [1e9, 'hold'],
    [1e15, 'hold'],
    [1e4, 'linear'],
    [1e9, 'linear'],
    [1e15, 'linear'],
  ])(
    'a spin of %d rad/s restored by setState (angles from 10 to 5e11 rad in a step, the largest finished in JavaScript) equals the JavaScript path (target path %s)',
    (speed, targetPath) => {
      const joints = 3;
      const { simd, js } = pair({ joints, halfLife: 0.1, targetPath });
      const sample = Float64Array.of(0, 0, 0.6, 0.8, 0.1, 0.2, 0.3, 0.9, 0, 0, 0, 1);
      simd.push(new Float64Array(12), sample, 0);
      const state = simd.getState();
      state.velocity[3] = speed; // joint 1, in the pair of joints 0 and 1
      simd.setState(state);
      js.setState(JSON.parse(JSON.stringify(state)));
      for (const t of [0.001, 0.002, 0.5]) {
        const a = simd.push(new Float64Array(12), sample, t);
        const b = js.push(new Float64Array(12), sample, t);
        expect(maxDiff(a, b)).toBeLessThanOrEqual(PATHS_AGREE);
        expect(maxDiff(simd.getState().velocity, js.getState().velocity)).toBeLessThanOrEqual(
          speed * PATHS_AGREE,
        );
      }
      for (let j = 0; j < joints; j++) {
        const o = simd.getState().output.slice(j * 4, j * 4 + 4);
        expect(Math.hypot(...o)).toBeCloseTo(1, 12);
      }
    },
  );

  it.each<[DamperResponse, TargetPath]>([
    ['critical', 'hold'],
    ['exponential', 'hold'],
    ['critical', 'linear'],
    ['exponential', 'linear'],
  ])(
    'push(out, quats, time) with a zero or non-finite quaternion throws InvalidValueError naming the joint and changes nothing (%s, %s)',
    (response, targetPath) => {
      const { simd } = pair({ joints: 5, halfLife: 0.05, response, targetPath });
      const good = new Float64Array(20);
      for (let j = 0; j < 5; j++) good[j * 4 + 3] = 1;
      simd.push(new Float64Array(20), good, 0);
      good[1] = 0.3;
      simd.push(new Float64Array(20), good, 0.01);
      const before = simd.getState();
      // joints 0 and 3 are in the two-pair loop's first and second pair, joint 4 in the pair after it
      for (const joint of [0, 3, 4])
        for (const bad of [0, Number.NaN, Number.POSITIVE_INFINITY]) {
          const sample = good.slice();
          sample.fill(bad, joint * 4, joint * 4 + 4);
          if (bad !== 0) sample[joint * 4] = bad;
          expect(() => simd.push(new Float64Array(20), sample, 0.02)).toThrow(InvalidValueError);
          expect(() => simd.push(new Float64Array(20), sample, 0.02)).toThrow(new RegExp(`joint ${joint}`));
          expect(simd.getState()).toEqual(before);
        }
    },
  );

  it('the velocity view stays the same array through pushes, reset and setState', () => {
    const { simd } = pair({ joints: 4, halfLife: 0.05 });
    const view = simd.velocity;
    const sample = Float64Array.of(0, 0, 0, 1, 0, 0.6, 0, 0.8, 0.6, 0, 0, 0.8, 0, 0, 1, 0);
    simd.push(new Float64Array(16), sample, 0);
    simd.push(
      new Float64Array(16),
      sample.map((v, i) => (i % 4 === 3 ? v : -v)),
      0.05,
    );
    expect(simd.velocity).toBe(view);
    expect(Array.from(view)).toEqual(simd.getState().velocity);
    expect(view.some((v) => v !== 0)).toBe(true);
    simd.reset();
    expect(simd.velocity).toBe(view);
    expect(view.every((v) => v === 0)).toBe(true);
  });

  it('src/numeric/simd-bytes.ts holds what scripts/build_simd.mjs assembles from simd.wat now', async () => {
    const script = '../../../scripts/build_simd.mjs';
    const build = (await import(script)) as {
      assemble(): Promise<Uint8Array>;
      moduleText(bytes: Uint8Array): string;
    };
    const bytes = await build.assemble();
    expect(Buffer.from(SIMD_WASM_BASE64, 'base64').equals(Buffer.from(bytes))).toBe(true);
    const { readFileSync } = await import('node:fs');
    const committed = readFileSync(new URL('../../../src/numeric/simd-bytes.ts', import.meta.url), 'utf8');
    expect(committed).toBe(build.moduleText(bytes));
    // small: current browsers compile it synchronously on a page's main thread (Chromium up to 8 MB; older
    // Chromium refused more than 4 KB there, and gets it asynchronously, see simd.ts); the damper's two-pair
    // loops (expandPairs) take about 4 KB of it, the resampler's blend and the BVH reader's two kernels 5.5 KB
    expect(bytes.length).toBeLessThan(32768);
  });
});

/** The same One Euro filter through both paths. */
const pairOneEuro = (options: OneEuroOptions): { simd: OneEuroFilter; js: OneEuroFilter } =>
  bothPaths(() => createOneEuroFilter(options));

describe('the One Euro filter on rotations through the WebAssembly SIMD kernel (createOneEuroFilter)', () => {
  it('push(out, quats, time) agrees with the JavaScript path to 1e-13 on random streams (both derivatives, Float64 and Float32 input, out aliasing input, offsets, odd and even joint counts)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 2, max: 40 }),
        fc.integer(),
        fc.constantFrom<PushMode>('f64', 'f32', 'alias64', 'alias32', 'offsets'),
        fc.record({
          minCutoff: fc.double({ min: 0.01, max: 20, noNaN: true }),
          beta: fc.double({ min: 0, max: 5, noNaN: true }),
          dCutoff: fc.double({ min: 0.1, max: 20, noNaN: true }),
          derivative: fc.constantFrom<OneEuroDerivative>('input', 'output'),
        }),
        (joints, samples, seed, mode, params) => {
          const { data, times } = stream(seed, joints, samples);
          const { simd, js } = pairOneEuro({ joints, ...params });
          const n = joints * 4;
          const input = mode === 'f32' ? Float32Array.from(data) : data;
          for (let k = 0; k < samples; k++) {
            pushBoth(simd, js, mode, input, k, n, times[k]);
            const sa = simd.getState();
            const sb = js.getState();
            expect(maxDiff(sa.output, sb.output)).toBeLessThanOrEqual(PATHS_AGREE);
            expect(maxDiff(sa.input, sb.input)).toBeLessThanOrEqual(PATHS_AGREE);
            expect(maxDiff(sa.speed, sb.speed)).toBeLessThanOrEqual(
              PATHS_AGREE * Math.max(1, ...sb.speed.map(Math.abs)),
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('push(out, quats, time) with a zero or non-finite quaternion throws InvalidValueError naming the joint and changes nothing', () => {
    const { simd } = pairOneEuro({ joints: 3, beta: 0.5 });
    const good = Float64Array.of(0, 0, 0, 1, 0, 0.6, 0, 0.8, 0.6, 0, 0, 0.8);
    simd.push(new Float64Array(12), good, 0);
    simd.push(new Float64Array(12), good, 0.01);
    const before = simd.getState();
    const bad = good.slice();
    bad[4] = Number.NaN;
    expect(() => simd.push(new Float64Array(12), bad, 0.02)).toThrow(InvalidValueError);
    expect(() => simd.push(new Float64Array(12), bad, 0.02)).toThrow(/joint 1/);
    expect(simd.getState()).toEqual(before);
  });
});
