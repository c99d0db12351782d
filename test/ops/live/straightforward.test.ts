// The rotation filters' loops are written for speed (logarithms of unnormalised relative rotations, sign carried
// by 1/w instead of a branch, Estrin polynomials, two passes, a Newton renormalisation). Here they are checked
// against straightforward implementations of the same definitions, written with Math.atan2/sin/cos on unit
// quaternions, one joint and one step at a time, on random irregular-time streams whose inputs have random signs
// and lengths and steps large enough to reach every branch (relative rotations past 47° and past 90°).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../../src/errors.js';
import { CRITICAL_HALF_LIFE_ROOT, createDamper, type DamperOptions } from '../../../src/ops/live/damper.js';
import { createOneEuroFilter, type OneEuroOptions } from '../../../src/ops/live/one-euro.js';
import { gauss, rng } from '../../support/random.js';
import { TOL } from '../../support/tolerances.js';

type Q = [number, number, number, number];

function unit(x: number, y: number, z: number, w: number): Q {
  const n = Math.hypot(x, y, z, w);
  return [x / n, y / n, z / n, w / n];
}

/** a ⊗ b (Hamilton, x, y, z, w). */
function mul(a: Q, b: Q): Q {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

const conj = (q: Q): Q => [-q[0], -q[1], -q[2], q[3]];
const dot = (a: Q, b: Q) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
const neg = (q: Q): Q => [-q[0], -q[1], -q[2], -q[3]];

/** The rotation vector 2·log(q) of the w ≥ 0 representative of unit q. */
function log2(q: Q): [number, number, number] {
  const p = q[3] < 0 ? neg(q) : q;
  const s = Math.hypot(p[0], p[1], p[2]);
  if (s === 0) return [0, 0, 0];
  const k = (2 * Math.atan2(s, p[3])) / s;
  return [k * p[0], k * p[1], k * p[2]];
}

/** exp(v/2) for a rotation vector v. */
function exp2(v: [number, number, number]): Q {
  const t = 0.5 * Math.hypot(v[0], v[1], v[2]);
  const s = t === 0 ? 0.5 : (0.5 * Math.sin(t)) / t;
  return [s * v[0], s * v[1], s * v[2], Math.cos(t)];
}

/** Rotation vector of a ⊗ b⁻¹ (unit a, b). */
const between = (a: Q, b: Q) => log2(mul(a, conj(b)));

/** The 1€ filter on one rotation stream, as `createOneEuroFilter` documents it. */
function oneEuroReference(
  o: Required<Omit<OneEuroOptions, 'joints' | 'kind' | 'width' | 'staleSample'>>,
  inputs: Q[],
  times: number[],
): Q[] {
  const alpha = (cutoff: number, dt: number) => {
    const r = 2 * Math.PI * cutoff * dt;
    return r / (1 + r);
  };
  const out: Q[] = [];
  let y: Q = [0, 0, 0, 1];
  let prev: Q = y;
  let e = [0, 0, 0];
  for (let k = 0; k < inputs.length; k++) {
    const x = unit(...inputs[k]);
    if (k === 0) {
      y = x[3] < 0 ? neg(x) : x;
      prev = y;
      e = [0, 0, 0];
    } else {
      const dt = times[k] - times[k - 1];
      const d = between(x, y);
      const s = o.derivative === 'input' ? between(x, prev) : d;
      const ad = alpha(o.dCutoff, dt);
      e = e.map((ei, c) => ad * (s[c] / dt) + (1 - ad) * ei);
      const a = alpha(o.minCutoff + o.beta * Math.hypot(e[0], e[1], e[2]), dt);
      y = unit(...mul(exp2([a * d[0], a * d[1], a * d[2]]), y));
      prev = x;
    }
    out.push(y);
  }
  return out;
}

/** Holden's exact spring (or exponential) damper in log space on one rotation stream, as `createDamper` documents it. */
function damperReference(
  o: Required<Omit<DamperOptions, 'joints' | 'kind' | 'width' | 'staleSample'>>,
  inputs: Q[],
  times: number[],
  user: [number, number, number][] | null,
): Q[] {
  const critical = o.response === 'critical';
  const d = (2 * CRITICAL_HALF_LIFE_ROOT) / o.halfLife;
  const y = d / 2;
  const rate = Math.LN2 / o.halfLife;
  const lead = critical ? 4 / d : 1 / rate;
  const out: Q[] = [];
  let x: Q = [0, 0, 0, 1];
  let target: Q = x;
  let v = [0, 0, 0];
  for (let k = 0; k < inputs.length; k++) {
    let g = unit(...inputs[k]);
    if (k === 0) {
      x = g[3] < 0 ? neg(g) : g;
      target = x;
      v = user ? [...user[k]] : [0, 0, 0];
      out.push(x);
      continue;
    }
    const dt = times[k] - times[k - 1];
    const decay = critical ? Math.exp(-y * dt) : 2 ** (-dt / o.halfLife);
    let a = [0, 0, 0];
    let b = [0, 0, 0];
    let j0: number[];
    if (o.targetPath === 'linear') {
      if (dot(g, target) < 0) g = neg(g);
      b = between(g, target).map((c) => c / dt);
      a = b.map((c) => lead * c);
      j0 = between(x, target);
      target = g;
    } else {
      if (dot(g, x) < 0) g = neg(g);
      if (user) a = user[k].map((c) => -lead * c);
      j0 = between(x, g);
    }
    const e0 = j0.map((c, i) => c + a[i]);
    const j = [0, 0, 0];
    for (let i = 0; i < 3; i++) {
      if (critical) {
        const vi = v[i] - b[i];
        const j1 = vi + e0[i] * y;
        v[i] = decay * (vi - j1 * y * dt) + b[i];
        j[i] = decay * (e0[i] + j1 * dt) - a[i];
      } else {
        v[i] = b[i] - rate * decay * e0[i];
        j[i] = decay * e0[i] - a[i];
      }
    }
    x = unit(...mul(exp2([j[0], j[1], j[2]]), g));
    out.push(x);
  }
  return out;
}

/**
 * A random stream of `joints` rotations: each joint wanders by steps of up to `step` rad (noise on top), with
 * random signs and lengths on input, at irregular times (jitter and dropped frames).
 */
function randomStream(seed: number, joints: number, samples: number, step: number, rate: number) {
  const random = rng(seed);
  const times: number[] = [];
  let t = random() * 10 - 5;
  for (let k = 0; k < samples; k++) {
    times.push(t);
    const dropped = random() < 0.1 ? 1 + Math.floor(random() * 4) : 1;
    t += (dropped * (1 + 0.6 * (random() - 0.5))) / rate;
  }
  const inputs: Q[][] = [];
  for (let j = 0; j < joints; j++) {
    let q = unit(gauss(random), gauss(random), gauss(random), gauss(random));
    const stream: Q[] = [];
    for (let k = 0; k < samples; k++) {
      const big = random() < 0.1 ? 3 : 1;
      const s = step * big * random();
      q = unit(...mul(exp2([s * gauss(random), s * gauss(random), s * gauss(random)]), q));
      const scale = (random() < 0.5 ? -1 : 1) * 10 ** (4 * random() - 2);
      stream.push([q[0] * scale, q[1] * scale, q[2] * scale, q[3] * scale]);
    }
    inputs.push(stream);
  }
  return { times, inputs };
}

/** Pushes the joints' streams together through `filter` and returns the outputs per joint. */
function runFilter(
  push: (out: Float64Array, input: Float64Array, time: number, k: number) => void,
  joints: number,
  times: number[],
  inputs: Q[][],
): Q[][] {
  const got: Q[][] = inputs.map(() => []);
  const input = new Float64Array(joints * 4);
  const out = new Float64Array(joints * 4);
  for (let k = 0; k < times.length; k++) {
    for (let j = 0; j < joints; j++) input.set(inputs[j][k], j * 4);
    push(out, input, times[k], k);
    for (let j = 0; j < joints; j++)
      got[j].push([out[j * 4], out[j * 4 + 1], out[j * 4 + 2], out[j * 4 + 3]]);
  }
  return got;
}

function worst(a: Q[][], b: Q[][]): number {
  let w = 0;
  for (let j = 0; j < a.length; j++)
    for (let k = 0; k < a[j].length; k++)
      for (let c = 0; c < 4; c++) w = Math.max(w, Math.abs(a[j][k][c] - b[j][k][c]));
  return w;
}

const stream = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  joints: fc.integer({ min: 1, max: 5 }),
  samples: fc.integer({ min: 2, max: 80 }),
  step: fc.constantFrom(0.002, 0.05, 0.4, 1.2),
  rate: fc.constantFrom(30, 90, 1000),
});

describe('the rotation filters equal straightforward implementations of their definitions', () => {
  it('createOneEuroFilter(options).push equals the step-by-step 1€ filter on unit quaternions (1e-12)', () => {
    fc.assert(
      fc.property(
        stream,
        fc.record({
          minCutoff: fc.double({ min: 0.05, max: 20, noNaN: true }),
          beta: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 10, noNaN: true })),
          dCutoff: fc.double({ min: 0.05, max: 20, noNaN: true }),
          derivative: fc.constantFrom('input' as const, 'output' as const),
        }),
        (s, options) => {
          const { times, inputs } = randomStream(s.seed, s.joints, s.samples, s.step, s.rate);
          const filter = createOneEuroFilter({ joints: s.joints, ...options });
          const got = runFilter((out, input, t) => filter.push(out, input, t), s.joints, times, inputs);
          const want = inputs.map((q) => oneEuroReference(options, q, times));
          expect(worst(got, want)).toBeLessThan(TOL.f64);
        },
      ),
    );
  });

  it('createDamper(options).push equals the step-by-step exact damper on unit quaternions (1e-12), every response and target path', () => {
    fc.assert(
      fc.property(
        stream,
        fc.record({
          halfLife: fc.double({ min: 0.005, max: 2, noNaN: true }),
          response: fc.constantFrom('critical' as const, 'exponential' as const),
          targetPath: fc.constantFrom('hold' as const, 'linear' as const),
        }),
        fc.boolean(),
        (s, options, withVelocity) => {
          const { times, inputs } = randomStream(s.seed, s.joints, s.samples, s.step, s.rate);
          const velocity = withVelocity && options.response === 'critical' && options.targetPath === 'hold';
          const random = rng(s.seed + 1);
          const user = inputs.map(() =>
            times.map((): [number, number, number] => [
              3 * gauss(random),
              3 * gauss(random),
              3 * gauss(random),
            ]),
          );
          const damper = createDamper({ joints: s.joints, ...options });
          const flat = new Float64Array(s.joints * 3);
          const got = runFilter(
            (out, input, t, k) => {
              if (!velocity) return damper.push(out, input, t);
              for (let j = 0; j < s.joints; j++) flat.set(user[j][k], j * 3);
              return damper.push(out, input, t, flat);
            },
            s.joints,
            times,
            inputs,
          );
          const want = inputs.map((q, j) => damperReference(options, q, times, velocity ? user[j] : null));
          expect(worst(got, want)).toBeLessThan(TOL.f64);
        },
      ),
    );
  });

  it('a zero, non-finite or out-of-range quaternion after the first sample throws naming its joint and leaves the filter and out as they were', () => {
    const makers = [
      () => createOneEuroFilter({ joints: 3, beta: 1 }),
      () => createOneEuroFilter({ joints: 3, beta: 1, derivative: 'output' }),
      () => createDamper({ joints: 3, halfLife: 0.1 }),
      () => createDamper({ joints: 3, halfLife: 0.1, targetPath: 'linear' }),
      () => createDamper({ joints: 3, halfLife: 0.1, response: 'exponential' }),
    ];
    const good = [0, 0, 0, 1, 0.1, 0, 0, 0.99, 0, -0.2, 0, -0.98];
    const bad = [
      [0, 0, 0, 0],
      [0, Number.NaN, 0, 1],
      [0, 0, Number.POSITIVE_INFINITY, 1],
      [1e-120, 0, 0, 0],
      [0, 1e120, 0, 0],
    ];
    for (const make of makers) {
      const f = make();
      const out = new Float64Array(12);
      f.push(out, good, 0);
      f.push(
        out,
        good.map((v) => v * 0.9),
        0.02,
      );
      const before = JSON.stringify(f.getState());
      const written = out.slice();
      for (const q of bad) {
        const input = good.slice();
        input.splice(4, 4, ...q);
        expect(() => f.push(out, input, 0.04)).toThrow(InvalidValueError);
        expect(() => f.push(out, input, 0.04)).toThrow(/joint 1/);
        expect(JSON.stringify(f.getState())).toBe(before);
        expect(out).toEqual(written);
      }
      // and the stream goes on as if the bad samples had not been sent
      const twin = make();
      twin.setState(JSON.parse(before));
      expect(f.push(new Float64Array(12), good, 0.04)).toEqual(twin.push(new Float64Array(12), good, 0.04));
    }
  });
});
