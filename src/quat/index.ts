/**
 * Single-rotation kernels on flat arrays.
 *
 * ## Conventions (stated once here and in the README)
 * - A quaternion is stored `x, y, z, w`: vector part first, scalar last, as in three.js, glTF,
 *   gl-matrix and SciPy's default. Use {@link fromWxyz}/{@link toWxyz} for scalar-first data.
 * - Products are Hamilton products in a right-handed frame: `R(a ⊗ b) = R(a)·R(b)`, so `a ⊗ b` applies
 *   `b` first. Rotations are active: they rotate vectors (`v' = R·v`), not coordinate frames.
 * - Angles are radians everywhere inside; degrees appear only at input/output boundaries and in option
 *   names that say so.
 * - `q` and `-q` are the same rotation. Every function whose result is a rotation or a rotation-derived
 *   quantity (angle, log, Euler angles, matrices) treats them alike; functions that return a quaternion
 *   make no promise about its sign unless they say so (`abs`, `log` use the `w >= 0` representative).
 * - Matrices are row-major 3x3 (`m[r * 3 + c]`) acting on column vectors.
 * - Euler sequences use SciPy's notation: uppercase intrinsic (`'ZYX'` = Rz(a)·Ry(b)·Rx(c), BVH's
 *   `Zrotation Yrotation Xrotation`), lowercase extrinsic; all 12 sequences in both cases.
 *
 * ## Style
 * Kernels are out-first like gl-matrix: `multiply(out, a, b)` reads every input before its first write
 * and returns `out`, so `out` may be `a` or `b`. `*Flat(dst, dstOffset, a, aOffset, ...)` variants
 * work inside flat typed arrays (three.js's `multiplyQuaternionsFlat`); batch operations are loops over
 * them. Only `create` allocates. Inputs may be Float64Array, Float32Array or plain arrays; arithmetic is
 * float64 throughout.
 *
 * ## Checks (the contract on bad input)
 * - **Shapes, always**: a quaternion has 4 numbers, a vector, Euler triple or MRP 3, a matrix 9, a 6D
 *   value 6, and `out` the size it receives; any other length, and an argument that is no array (null,
 *   undefined, a number, a string), throws `ShapeError`. `*Flat` variants throw `ShapeError` when an
 *   offset is negative or leaves too few numbers. Batch conversions check `n x 3` against `n x 4`.
 * - **Finite values, always**: no kernel returns or writes NaN or ∞. A NaN or infinite input, or a
 *   result that overflows, throws `InvalidValueError` naming the input (or the overflow).
 * - **Arithmetic kernels take a quaternion as given**: `set`, `copy`, `multiply`, `conjugate`, `dot`,
 *   `abs`, `fromWxyz`, `toWxyz`, `rotateVector` and their `*Flat` variants (the inner loops of forward
 *   kinematics and blending) check finiteness only, with one test on their result before they write
 *   (`v − v` is 0 exactly for a finite `v`), so nothing is written when they throw. A zero or non-unit
 *   quaternion gives the formula's value (`multiply` by zero is zero, `rotateVector` by zero returns `v`).
 * - **Rotation kernels, everywhere else**: a quaternion that is zero, a non-finite angle, vector, matrix
 *   entry, 6D value, MRP or `t`, and the other inputs that name no rotation (a zero axis or direction, a
 *   singular or reflecting matrix, parallel 6D columns) throw `InvalidValueError`. These kernels never
 *   give a finite answer for a zero quaternion (`toEuler([0, 0, 0, 0])` throws).
 * `test/quat/contract.test.ts` calls every export with wrong lengths, arguments that are no arrays, NaN,
 * ∞ and zeros and holds each function to its class; the export fuzz (`test/fuzz`) calls them with hostile
 * arguments of every kind.
 *
 * @module
 */
export * from './core.js';
export {
  EULER_ORDERS,
  type EulerOrder,
  fromEuler,
  fromEulerArray,
  fromEulerFlat,
  isEulerOrder,
  toEuler,
  toEulerArray,
  toEulerFlat,
} from './euler.js';
export * from './exp-log.js';
export * from './matrix.js';
export * from './mrp.js';
export * from './random.js';
export type * from './types.js';
export * from './vector.js';
