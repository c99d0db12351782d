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
