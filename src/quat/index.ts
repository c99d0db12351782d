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
export type * from './types.js';
export * from './vector.js';
