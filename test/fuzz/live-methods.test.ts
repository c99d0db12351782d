/**
 * The live filters' methods (`push`, `pushAt`, `setState`) under hostile arguments: the export fuzz calls
 * exported functions only, and these are methods of the objects the factories return. Every call must return
 * finite output or throw a typed RotsigError; a snapshot taken apart field by field must not let a later
 * push produce NaN.
 */
import { describe, expect, it } from 'vitest';
import { RotsigError } from '../../src/errors.js';
import * as root from '../../src/index.js';

type Filter = {
  push(out: unknown, input: unknown, time: unknown): ArrayLike<number>;
  pushAt(
    out: unknown,
    outOffset: unknown,
    input: unknown,
    inputOffset: unknown,
    time: unknown,
  ): ArrayLike<number>;
  getState(): Record<string, unknown>;
  setState(state: unknown): void;
};

const MAKERS: Record<string, [() => Filter, number]> = {
  'damper, rotations': [() => root.createDamper({ joints: 2 }) as unknown as Filter, 8],
  'damper, linear target': [
    () => root.createDamper({ joints: 2, targetPath: 'linear' }) as unknown as Filter,
    8,
  ],
  'damper, vectors': [
    () => root.createDamper({ joints: 2, kind: 'vector', width: 3 }) as unknown as Filter,
    6,
  ],
  'damper, vectors, linear target': [
    () =>
      root.createDamper({ joints: 2, kind: 'vector', width: 3, targetPath: 'linear' }) as unknown as Filter,
    6,
  ],
  'damper, vectors, exponential': [
    () =>
      root.createDamper({
        joints: 2,
        kind: 'vector',
        width: 3,
        response: 'exponential',
      }) as unknown as Filter,
    6,
  ],
  'One Euro, rotations': [() => root.createOneEuroFilter({ joints: 2 }) as unknown as Filter, 8],
  'One Euro, vectors': [
    () => root.createOneEuroFilter({ joints: 2, kind: 'vector', width: 3 }) as unknown as Filter,
    6,
  ],
  'streaming unroll': [() => root.createStreamingUnroll({ joints: 2 }) as unknown as Filter, 8],
  'streaming FIR': [
    () => root.createStreamingFilter(root.kernels.gaussian(2), { joints: 2 }) as unknown as Filter,
    8,
  ],
};
const GOOD = [0, 0, 0, 1, 0, 0.6, 0, 0.8];
const HOSTILE: unknown[] = [
  null,
  undefined,
  5,
  'abcdefgh',
  {},
  [1, 2],
  Symbol('s'),
  new Array(8).fill(Number.NaN),
];
const TIMES: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, 'x', null, undefined, {}, 1e308, -1e308];

/** The defect of `call`, or null: a typed error, or a result whose numbers are all finite. */
function defect(call: () => unknown): string | null {
  try {
    const result = call() as ArrayLike<unknown> | undefined;
    if (result !== undefined && result !== null && typeof result === 'object' && 'length' in result)
      for (let i = 0; i < result.length; i++)
        if (!Number.isFinite(result[i])) return `result[${i}] is ${String(result[i])}`;
    return null;
  } catch (e) {
    return e instanceof RotsigError ? null : `${(e as Error)?.name}: ${(e as Error)?.message}`;
  }
}

describe('the live filters’ methods under hostile arguments', () => {
  it.each(Object.entries(MAKERS))(
    '%s: push, pushAt and setState throw typed errors or stay finite',
    (_, [make, w]) => {
      const found: string[] = [];
      const note = (what: string, d: string | null) => d !== null && found.push(`${what}: ${d}`);
      const sample = () => GOOD.slice(0, w);
      for (const h of HOSTILE) {
        const f = make();
        note(
          `push(out = ${String(h)})`,
          defect(() => f.push(h, sample(), 0)),
        );
        note(
          `push(input = ${String(h)})`,
          defect(() => f.push(new Float64Array(w), h, 0)),
        );
        note(
          `pushAt(outOffset = ${String(h)})`,
          defect(() => f.pushAt(new Float64Array(w), h, sample(), 0, 0)),
        );
        note(
          `pushAt(inputOffset = ${String(h)})`,
          defect(() => f.pushAt(new Float64Array(w), 0, sample(), h, 0)),
        );
        note(
          `setState(${String(h)})`,
          defect(() => f.setState(h)),
        );
      }
      for (const t of TIMES) {
        const f = make();
        f.push(new Float64Array(w), sample(), 0);
        note(
          `push(time = ${String(t)})`,
          defect(() => f.push(new Float64Array(w), sample(), t)),
        );
      }
      // a snapshot with one field replaced: refused, or a state whose next push is finite
      const base = make();
      base.push(new Float64Array(w), sample(), 0);
      const state = base.getState();
      for (const key of Object.keys(state))
        for (const h of [null, 'x', Number.NaN, -1, 1e308, {}, [Number.NaN]]) {
          note(
            `setState({ ${key}: ${String(h)} }) then push`,
            defect(() => {
              const g = make();
              g.setState({ ...state, [key]: h });
              return g.push(new Float64Array(w), sample(), 1);
            }),
          );
        }
      expect(found).toEqual([]);
    },
  );
});

/** The defect of `call` as {@link defect}, and for a rotation filter (width 4) a quaternion not of unit length. */
function defectOrNotUnit(call: () => unknown, rotations: boolean): string | null {
  let result: ArrayLike<number> | undefined;
  const d = defect(() => {
    result = call() as ArrayLike<number>;
    return result;
  });
  if (d !== null || result === undefined || !rotations) return d;
  for (let i = 0; i + 3 < result.length; i += 4) {
    const n = Math.hypot(result[i], result[i + 1], result[i + 2], result[i + 3]);
    if (!(Math.abs(n - 1) < 1e-9)) return `quaternion ${i / 4} has length ${n}`;
  }
  return null;
}

describe('the live filters on finite but extreme input: finite (unit) output or a typed error', () => {
  it.each(Object.entries(MAKERS))(
    '%s: denormal and tiny time steps, values near the double range, non-number values',
    (name, [make, w]) => {
      const rotations = w === 8;
      const found: string[] = [];
      const note = (what: string, d: string | null) => d !== null && found.push(`${what}: ${d}`);
      const A = GOOD.slice(0, w);
      const B = rotations ? [0, 0.6, 0, 0.8, 0, 0, 0, 1] : [1, -2, 3, 4, -5, 6];
      // a second sample 5e-324 s (a denormal), 1e-300 s or 1e-12 s after the first: 1/Δt overflows or loses
      // every digit, which made the linear-target damper NaN
      for (const [t0, t1] of [
        [0, 5e-324],
        [0, 1e-300],
        [0, 1e-12],
        [1, 1 + 2 ** -52],
      ])
        note(
          `push at ${t0} then ${t1} s`,
          defectOrNotUnit(() => {
            const f = make();
            f.push(new Float64Array(w), A, t0);
            return f.push(new Float64Array(w), B, t1);
          }, rotations),
        );
      // values at the ends of the double range: differences overflow to ±∞ (vector damper, vector One Euro)
      const far = rotations
        ? [1e99, 0, 0, 1e99, 0, -1e99, 0, 1e99]
        : A.map((_, i) => (i % 2 ? 1e308 : -1e308));
      const near = rotations ? A : far.map((x) => -x);
      note(
        'push of values near ±1e308',
        defectOrNotUnit(() => {
          const f = make();
          f.push(new Float64Array(w), near, 0);
          f.push(new Float64Array(w), far, 0.01);
          return f.push(new Float64Array(w), near, 0.02);
        }, rotations),
      );
      // numbers as strings (or null) in a plain array: coerced before ('1' + 0.5 is '10.5'); a typed error now
      for (const values of [A.map(String), A.map((x, i) => (i === 1 ? null : x))]) {
        const f = make();
        f.push(new Float64Array(w), A, 0);
        let error: unknown = null;
        try {
          f.push(new Float64Array(w), values, 0.01);
        } catch (e) {
          error = e;
        }
        if (!(error instanceof RotsigError)) found.push(`push of [${values.join(', ')}]: no typed error`);
      }
      // snapshots whose arrays are all ±1e300 or all zero: refused naming the field, or a finite (unit) push
      const base = make();
      base.push(new Float64Array(w), A, 0);
      base.push(new Float64Array(w), B, 0.01);
      const state = base.getState();
      for (const [key, value] of Object.entries(state)) {
        if (!Array.isArray(value)) continue;
        for (const x of [1e300, -1e300, 0]) {
          const hostile = { ...state, [key]: value.map(() => x) };
          let refused: unknown = null;
          const d = defectOrNotUnit(() => {
            const g = make();
            try {
              g.setState(hostile);
            } catch (e) {
              refused = e;
              throw e;
            }
            g.push(new Float64Array(w), A, 0.02);
            return g.push(new Float64Array(w), B, 0.03);
          }, rotations);
          note(`setState({ ${key}: all ${x} }) then push`, d);
          if (refused !== null && !String((refused as Error).message).includes(`state.${key}`))
            found.push(`setState({ ${key}: all ${x} }) refused without naming state.${key}`);
          if (x !== 0 && refused === null)
            found.push(`setState({ ${key}: all ${x} }) accepted a value beyond ±${root.MAX_STATE_VALUE}`);
        }
      }
      expect(found, name).toEqual([]);
    },
  );
});
