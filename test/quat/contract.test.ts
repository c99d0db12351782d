// The contract of every exported quat.* function on hostile input (README "Errors", src/quat module doc):
// - wrong-length arrays (and offsets that leave too few numbers) throw ShapeError;
// - every kernel with numbers in throws InvalidValueError for a NaN/∞ input (and for an overflowing result);
// - the rotation kernels also throw for a zero quaternion (or another zero input that is no rotation), and
//   never return a finite answer for one; the arithmetic kernels on the hot paths (multiply, rotateVector,
//   copy, ...) take a zero quaternion as given and return the formula's finite value;
// - arguments that are not arrays (null, undefined, numbers, strings) throw ShapeError like wrong lengths.
// The list of functions comes from the module's exports, so a new function fails here until it has a row.
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../src/errors.js';
import * as quat from '../../src/quat/index.js';

/**
 * Argument kinds. Arrays: `q` quaternion (zero is no rotation), `v` vector where zero is valid (rotation
 * vector, a vector to rotate, MRP), `dir` direction (zero invalid), `e` Euler triple, `m` matrix, `d6` 6D;
 * `oN` an output of N numbers; `@` an offset for the array before it. Scalars: `t`, `angle`, `num`; `order`
 * and `rng` are fixed.
 */
type Kind =
  | 'q'
  | 'v'
  | 'dir'
  | 'e'
  | 'm'
  | 'd6'
  | 'o3'
  | 'o4'
  | 'o6'
  | 'o9'
  | '@'
  | 't'
  | 'num'
  | 'order'
  | 'rng';
const SIZE: Record<string, number> = { q: 4, v: 3, dir: 3, e: 3, m: 9, d6: 6, o3: 3, o4: 4, o6: 6, o9: 9 };
const ZERO_INVALID = new Set(['q', 'dir', 'm', 'd6']);
const isOut = (k: Kind) => k === 'o3' || k === 'o4' || k === 'o6' || k === 'o9';

interface Row {
  args: Kind[];
  /**
   * `'rotation'`: NaN, ∞ and a zero rotation throw InvalidValueError; `'finite'`: NaN and ∞ throw, zero is
   * taken as given; `'none'`: no numbers in (create, identity, isEulerOrder).
   */
  checked: 'rotation' | 'finite' | 'none';
}
const N = (...args: Kind[]): Row => ({ args, checked: 'none' });
const F = (...args: Kind[]): Row => ({ args, checked: 'finite' });
const C = (...args: Kind[]): Row => ({ args, checked: 'rotation' });

const CONTRACT: Record<string, Row> = {
  create: N(),
  identity: N('o4'),
  set: F('o4', 'num', 'num', 'num', 'num'),
  copy: F('o4', 'q'),
  multiply: F('o4', 'q', 'q'),
  multiplyFlat: F('o4', '@', 'q', '@', 'q', '@'),
  conjugate: F('o4', 'q'),
  conjugateFlat: F('o4', '@', 'q', '@'),
  dot: F('q', 'q'),
  dotFlat: F('q', '@', 'q', '@'),
  abs: F('o4', 'q'),
  fromWxyz: F('o4', 'q'),
  toWxyz: F('o4', 'q'),
  rotateVector: F('o3', 'q', 'v'),
  rotateVectorFlat: F('o3', '@', 'q', '@', 'v', '@'),
  invert: C('o4', 'q'),
  invertFlat: C('o4', '@', 'q', '@'),
  normalize: C('o4', 'q'),
  normalizeFlat: C('o4', '@', 'q', '@'),
  angle: C('q', 'q'),
  chordalDistance: C('q', 'q'),
  slerp: C('o4', 'q', 'q', 't'),
  slerpFlat: C('o4', '@', 'q', '@', 'q', '@', 't'),
  nlerp: C('o4', 'q', 'q', 't'),
  nlerpFlat: C('o4', '@', 'q', '@', 'q', '@', 't'),
  fromEuler: C('o4', 'e', 'order'),
  fromEulerFlat: C('o4', '@', 'e', '@', 'order'),
  toEuler: C('o3', 'q', 'order'),
  toEulerFlat: C('o3', '@', 'q', '@', 'order'),
  log: C('o3', 'q'),
  logFlat: C('o3', '@', 'q', '@'),
  exp: C('o4', 'v'),
  expFlat: C('o4', '@', 'v', '@'),
  toRotationVector: C('o3', 'q'),
  toRotationVectorFlat: C('o3', '@', 'q', '@'),
  fromRotationVector: C('o4', 'v'),
  fromRotationVectorFlat: C('o4', '@', 'v', '@'),
  fromAxisAngle: C('o4', 'dir', 't'),
  toMatrix: C('o9', 'q'),
  toMatrixFlat: C('o9', '@', 'q', '@'),
  fromMatrix: C('o4', 'm'),
  fromMatrixFlat: C('o4', '@', 'm', '@'),
  to6D: C('o6', 'q'),
  to6DFlat: C('o6', '@', 'q', '@'),
  from6D: C('o4', 'd6'),
  from6DFlat: C('o4', '@', 'd6', '@'),
  fromUnitVectors: C('o4', 'dir', 'dir'),
  swingTwist: C('o4', 'o4', 'q', 'dir'),
  toMrp: C('o3', 'q'),
  toMrpFlat: C('o3', '@', 'q', '@'),
  fromMrp: C('o4', 'v'),
  fromMrpFlat: C('o4', '@', 'v', '@'),
  random: C('o4', 'rng'),
  randomFlat: C('o4', '@', 'rng'),
  // Batch conversions take n x 3 / n x 4 arrays; their rows are below.
  fromEulerArray: C('o4', 'e', 'order'),
  toEulerArray: C('o3', 'q', 'order'),
  isEulerOrder: N(),
};

const Q = [0.1, -0.5, 0.3, 0.8];
const VALID: Record<string, () => number[]> = {
  q: () => quat.normalize([0, 0, 0, 0], Q),
  v: () => [0.3, -0.2, 0.5],
  dir: () => [0.3, -0.2, 0.5],
  e: () => [0.3, -0.2, 0.5],
  m: () => quat.toMatrix(new Array(9).fill(0), quat.normalize([0, 0, 0, 0], Q)),
  d6: () => quat.to6D(new Array(6).fill(0), quat.normalize([0, 0, 0, 0], Q)),
};

type Arg = unknown;
/** Valid arguments for a row. */
function validArgs(row: Row): Arg[] {
  return row.args.map((k) => {
    if (k === '@') return 0;
    if (k === 't') return 0.3;
    if (k === 'num') return 0.5;
    if (k === 'order') return 'ZYX';
    if (k === 'rng') return () => 0.25;
    if (isOut(k)) return new Array(SIZE[k]).fill(0);
    return VALID[k]();
  });
}

/** Every number an output slot or the return value holds after a call. */
function outputs(row: Row, args: Arg[], ret: unknown): number[] {
  const nums: number[] = [];
  row.args.forEach((k, i) => {
    if (isOut(k)) nums.push(...(args[i] as number[]));
  });
  if (typeof ret === 'number') nums.push(ret);
  return nums;
}

const names = Object.keys(quat).filter((n) => typeof (quat as Record<string, unknown>)[n] === 'function');
const call = (name: string, args: Arg[]) =>
  ((quat as Record<string, unknown>)[name] as (...a: Arg[]) => unknown)(...args);

describe('the contract of every exported quat.* function', () => {
  it('every exported function has a contract row (and every row an export)', () => {
    expect(names.filter((n) => !(n in CONTRACT))).toEqual([]);
    expect(Object.keys(CONTRACT).filter((n) => !names.includes(n))).toEqual([]);
  });

  const rows = names.filter((n) => CONTRACT[n]?.args.length).map((n) => [n, CONTRACT[n]] as const);

  it.each(rows)('%s accepts valid input and returns finite output', (name, row) => {
    const args = validArgs(row);
    const ret = call(name, args);
    expect(outputs(row, args, ret).every(Number.isFinite)).toBe(true);
  });

  it.each(rows)('%s rejects every wrong-length array with ShapeError', (name, row) => {
    row.args.forEach((k, i) => {
      if (!(k in SIZE)) return;
      const flat = row.args[i + 1] === '@';
      for (const delta of [-1, 1]) {
        const args = validArgs(row);
        const arr = args[i] as number[];
        if (flat) {
          if (delta > 0) continue; // a longer array is fine for a flat kernel; an offset past the end is not
          args[i] = arr.slice(0, arr.length - 1);
        } else args[i] = delta < 0 ? arr.slice(0, -1) : [...arr, 0];
        expect(() => call(name, args), `${name} arg ${i} (${k}) length ${arr.length + delta}`).toThrow(
          ShapeError,
        );
      }
      if (flat) {
        for (const off of [1, -1, 0.5, Number.NaN]) {
          const args = validArgs(row);
          args[i + 1] = off;
          expect(() => call(name, args), `${name} arg ${i} (${k}) offset ${off}`).toThrow(ShapeError);
        }
      }
    });
  });

  it.each(rows)(
    '%s on NaN and ∞ input throws InvalidValueError (the arithmetic kernels before writing)',
    (name, row) => {
      row.args.forEach((k, i) => {
        const scalar = k === 't' || k === 'num' || k === 'rng';
        if (!(scalar || k in VALID)) return;
        for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
          const positions = scalar ? [-1] : [0, 1, 2, 3].slice(0, SIZE[k]);
          for (const p of positions) {
            const args = validArgs(row);
            if (k === 'rng') args[i] = () => bad;
            else if (scalar) args[i] = bad;
            else (args[i] as number[])[p] = bad;
            const what = `${name} arg ${i} (${k})[${p}] = ${bad}`;
            expect(row.checked, what).not.toBe('none');
            const before = outputs(row, args, undefined);
            expect(() => call(name, args), what).toThrow(InvalidValueError);
            // the arithmetic kernels write nothing then (the rotation kernels may have written some slots)
            if (row.checked === 'finite') expect(outputs(row, args, undefined), what).toEqual(before);
          }
        }
      });
    },
  );

  it.each(rows)(
    '%s rejects an argument that is no array (null, undefined, a number, a string) with ShapeError',
    (name, row) => {
      row.args.forEach((k, i) => {
        if (!(k in SIZE)) return;
        for (const bad of [null, undefined, 4, 'abcd', 'abcdefghi', { length: 'x' }]) {
          const args = validArgs(row);
          args[i] = bad;
          expect(() => call(name, args), `${name} arg ${i} (${k}) = ${JSON.stringify(bad)}`).toThrow(
            ShapeError,
          );
        }
      });
    },
  );

  it.each(rows)(
    '%s on zero input: no rotation throws (checked), a valid zero gives finite output',
    (name, row) => {
      row.args.forEach((k, i) => {
        if (!(k in VALID)) return;
        const args = validArgs(row);
        args[i] = new Array(SIZE[k]).fill(0);
        const what = `${name} arg ${i} (${k}) zero`;
        if (row.checked === 'rotation' && ZERO_INVALID.has(k)) {
          // fromAxisAngle accepts a zero axis only with angle 0; the row's angle is 0.3.
          expect(() => call(name, args), what).toThrow(InvalidValueError);
        } else {
          const ret = call(name, args);
          expect(outputs(row, args, ret).every(Number.isFinite), what).toBe(true);
        }
      });
    },
  );
});

describe('the arithmetic kernels on values that are no finite numbers', () => {
  it('an overflowing product, dot or rotation throws InvalidValueError naming the result, and writes nothing', () => {
    const big = [1e200, 1e200, 1e200, 1e200];
    const out = [7, 7, 7, 7];
    expect(() => quat.multiply(out, big, big)).toThrow(/multiply: the result for a and b overflows/);
    expect(() => quat.multiplyFlat(out, 0, big, 0, big, 0)).toThrow(InvalidValueError);
    expect(() => quat.dot(big, big)).toThrow(/dot: the result for a and b overflows/);
    expect(() => quat.rotateVector([7, 7, 7], [0.6, 0, 0, 0.8], [1e308, 1e308, 1e308])).toThrow(
      /rotateVector: the result for q and v overflows/,
    );
    expect(out).toEqual([7, 7, 7, 7]);
    // a NaN input is named as the input, with its numbers
    expect(() => quat.multiply(out, [0, 0, 0, 1], [0, Number.NaN, 0, 1])).toThrow(
      /multiply: b \(0, NaN, 0, 1\)/,
    );
  });

  it('set and copy take finite numbers only; a plain array holding a string or an object is refused', () => {
    expect(() => quat.set([0, 0, 0, 0], 0, 0, 0, '1' as unknown as number)).toThrow(InvalidValueError);
    expect(() => quat.set([0, 0, 0, 0], 0, 0, {} as unknown as number, 1)).toThrow(InvalidValueError);
    expect(quat.set([0, 0, 0, 0], 0, 0, 0, 0)).toEqual([0, 0, 0, 0]);
    expect(() => quat.copy([0, 0, 0, 0], [0, 0, '1', 1] as unknown as number[])).toThrow(InvalidValueError);
    expect(() => quat.toWxyz([0, 0, 0, 0], [{}, 0, 0, 1] as unknown as number[])).toThrow(InvalidValueError);
  });

  it('random and randomFlat refuse an rng that is not a function with OptionError', () => {
    for (const rng of [1, 'x', null, {}]) {
      expect(() => quat.random(quat.create(), rng as unknown as () => number)).toThrow(OptionError);
      expect(() => quat.randomFlat(quat.create(), 0, rng as unknown as () => number)).toThrow(OptionError);
    }
  });

  it('the batch conversions refuse arguments that are no arrays with ShapeError', () => {
    expect(() => quat.toEulerArray(null as never, [0, 0, 0, 1], 'ZYX')).toThrow(ShapeError);
    expect(() => quat.toEulerArray(new Float64Array(3), null as never, 'ZYX')).toThrow(ShapeError);
    expect(() => quat.toEulerArray(new Float64Array(3), [0, 0, 0, 1], 'ZYX', 5 as never)).toThrow(ShapeError);
    expect(() => quat.fromEulerArray(undefined as never, [0, 0, 0], 'ZYX')).toThrow(ShapeError);
    expect(() => quat.fromEulerArray(new Float64Array(4), 'abc' as never, 'ZYX')).toThrow(ShapeError);
  });
});

describe('the cases reported in the issue', () => {
  it('fromEuler(out, [π/2], order) throws ShapeError (SciPy raises); toEuler of a zero quaternion throws', () => {
    expect(() => quat.fromEuler(quat.create(), [Math.PI / 2], 'XYZ')).toThrow(ShapeError);
    expect(() => quat.rotateVector([0, 0, 0], quat.create(), [1, 1])).toThrow(ShapeError);
    expect(() => quat.toEuler([0, 0, 0], [0, 0, 0, 0], 'XYZ')).toThrow(InvalidValueError);
    expect(() => quat.toEulerArray(new Float64Array(6), [0, 0, 0, 1, 0, 0, 0, 0], 'XYZ')).toThrow(
      InvalidValueError,
    );
    expect(() => quat.fromEulerArray(new Float64Array(4), [0, Number.NaN, 0], 'XYZ')).toThrow(
      InvalidValueError,
    );
  });
});
