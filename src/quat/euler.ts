import { InvalidValueError, OptionError, ShapeError } from '../errors.js';
import { cosKernel, sinKernel } from '../numeric/fast-trig.js';
import { checkArray, checkLength, checkSpan, nonFinite } from './check.js';
import type { QuatLike, QuatOut } from './types.js';

/**
 * An Euler sequence in SciPy's notation. Uppercase is intrinsic (rotations about the body's moving
 * axes): `'ZYX'` with angles `(a, b, c)` is `R = Rz(a)·Ry(b)·Rx(c)`, which is how a BVH file composes
 * `Zrotation Yrotation Xrotation`. Lowercase is extrinsic (fixed axes, applied in the order written):
 * `'zyx'` is `R = Rx(c)·Ry(b)·Rz(a)`. The six Tait-Bryan and six proper Euler sequences, in both cases.
 */
export type EulerOrder =
  | 'XYZ'
  | 'XZY'
  | 'YXZ'
  | 'YZX'
  | 'ZXY'
  | 'ZYX'
  | 'XYX'
  | 'XZX'
  | 'YXY'
  | 'YZY'
  | 'ZXZ'
  | 'ZYZ'
  | 'xyz'
  | 'xzy'
  | 'yxz'
  | 'yzx'
  | 'zxy'
  | 'zyx'
  | 'xyx'
  | 'xzx'
  | 'yxy'
  | 'yzy'
  | 'zxz'
  | 'zyz';

const TAIT_BRYAN = ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'] as const;
const PROPER = ['XYX', 'XZX', 'YXY', 'YZY', 'ZXZ', 'ZYZ'] as const;

/** All 24 Euler sequences: 12 intrinsic (uppercase) then 12 extrinsic (lowercase). */
export const EULER_ORDERS: readonly EulerOrder[] = [
  ...TAIT_BRYAN,
  ...PROPER,
  ...TAIT_BRYAN.map((s) => s.toLowerCase() as EulerOrder),
  ...PROPER.map((s) => s.toLowerCase() as EulerOrder),
];

/**
 * @internal The precomputed facts of one sequence that the kernels need. Loops over many rotations resolve
 * each joint's sequence once with {@link eulerSpec} and call {@link decomposeEuler} with it, instead of
 * looking the order up for every rotation as {@link toEulerFlat} does.
 */
export interface EulerSpec {
  /** Axes (0 = x, 1 = y, 2 = z) of the equivalent intrinsic product `e(i0)·e(i1)·e(i2)`. */
  readonly i0: number;
  readonly i1: number;
  readonly i2: number;
  /** Extrinsic sequences take their angles in reverse for that product. */
  readonly extrinsic: boolean;
  /** First and last axis equal (XYX, ...). */
  readonly proper: boolean;
  /** +1 when (i0, i1, third axis) is an even permutation of (x, y, z), −1 when odd. */
  readonly sigma: number;
  /** The axis that is neither i0 nor i1. */
  readonly other: number;
}

const SPECS = new Map<string, EulerSpec>();
for (const order of EULER_ORDERS) {
  const axes = [...order.toUpperCase()].map((ch) => ch.charCodeAt(0) - 88);
  const extrinsic = order !== order.toUpperCase();
  const [i0, i1, i2] = extrinsic ? [axes[2], axes[1], axes[0]] : axes;
  const other = 3 - i0 - i1;
  // (i0, i1, other) is even when i1 follows i0 cyclically.
  const sigma = (i0 + 1) % 3 === i1 ? 1 : -1;
  SPECS.set(order, { i0, i1, i2, extrinsic, proper: axes[0] === axes[2], sigma, other });
}

/** True when `s` names one of the 24 sequences. */
export function isEulerOrder(s: unknown): s is EulerOrder {
  return typeof s === 'string' && SPECS.has(s);
}

/**
 * @internal The {@link EulerSpec} of a sequence.
 * @throws {OptionError} for an unknown order.
 */
export function eulerSpec(order: string): EulerSpec {
  const spec = SPECS.get(order);
  if (spec === undefined) {
    throw new OptionError(
      `unknown Euler order '${order}': use one of ${EULER_ORDERS.join(', ')} (uppercase intrinsic, lowercase extrinsic)`,
    );
  }
  return spec;
}

/**
 * Half angles within this bound take the polynomial path: sine and cosine of the quarter angle (|r| ≤ π/4,
 * fdlibm's kernels) and the double-angle formulas, about 1.7x faster than two `Math.sin`/`Math.cos` calls
 * and within 4e-16 of them. Larger half angles (Euler angles beyond ±π) fall back to `Math`.
 */
const HALF_PI = 0.5 * Math.PI;

/**
 * `e(i0, a)·e(i1, b)·e(i2, c)` for three distinct axes; `sigma` is the parity of (i0, i1, i2). Returns the
 * `w` it wrote, which is NaN exactly when an angle was not finite (sine and cosine of ±∞ are NaN), so
 * callers check one number (`Number.isNaN(w)`) instead of three.
 */
function composeTaitBryan(
  dst: QuatOut,
  o: number,
  i0: number,
  i1: number,
  i2: number,
  sigma: number,
  a: number,
  b: number,
  c: number,
): number {
  const h0 = 0.5 * a;
  const h1 = 0.5 * b;
  const h2 = 0.5 * c;
  let sa: number;
  let ca: number;
  let sb: number;
  let cb: number;
  let sc: number;
  let cc: number;
  if (h0 <= HALF_PI && h0 >= -HALF_PI && h1 <= HALF_PI && h1 >= -HALF_PI && h2 <= HALF_PI && h2 >= -HALF_PI) {
    // sin h = 2·sin(h/2)·cos(h/2), cos h = (cos(h/2) − sin(h/2))·(cos(h/2) + sin(h/2))
    let r = 0.5 * h0;
    let z = r * r;
    let s = sinKernel(r, z);
    let k = cosKernel(z);
    sa = 2 * s * k;
    ca = (k - s) * (k + s);
    r = 0.5 * h1;
    z = r * r;
    s = sinKernel(r, z);
    k = cosKernel(z);
    sb = 2 * s * k;
    cb = (k - s) * (k + s);
    r = 0.5 * h2;
    z = r * r;
    s = sinKernel(r, z);
    k = cosKernel(z);
    sc = 2 * s * k;
    cc = (k - s) * (k + s);
  } else {
    sa = Math.sin(h0);
    ca = Math.cos(h0);
    sb = Math.sin(h1);
    cb = Math.cos(h1);
    sc = Math.sin(h2);
    cc = Math.cos(h2);
  }
  const cbcc = cb * cc;
  const sbsc = sb * sc;
  const sbcc = sb * cc;
  const cbsc = cb * sc;
  const sca = sigma * ca;
  const ssa = sigma * sa;
  dst[o + i0] = sa * cbcc + sca * sbsc;
  dst[o + i1] = ca * sbcc - ssa * cbsc;
  dst[o + i2] = ca * cbsc + ssa * sbcc;
  const w = ca * cbcc - ssa * sbsc;
  dst[o + 3] = w;
  return w;
}

/**
 * `e_i(a)·e_j(b)·e_i(c) = (cb·sin((a+c)/2) e_i + sb·cos((a−c)/2) e_j + σ·sb·sin((a−c)/2) e_k, cb·cos((a+c)/2))`
 * with half angles, where k is the third axis and σ the parity of (i, j, k). Returns `w` (NaN exactly when
 * an angle was not finite).
 */
function composeProper(
  dst: QuatOut,
  o: number,
  i: number,
  j: number,
  k: number,
  sigma: number,
  a: number,
  b: number,
  c: number,
): number {
  const hb = 0.5 * b;
  const sb = Math.sin(hb);
  const cb = Math.cos(hb);
  const hp = 0.5 * (a + c);
  const hm = 0.5 * (a - c);
  dst[o + i] = cb * Math.sin(hp);
  dst[o + j] = sb * Math.cos(hm);
  dst[o + k] = sigma * sb * Math.sin(hm);
  const w = cb * Math.cos(hp);
  dst[o + 3] = w;
  return w;
}

/**
 * @internal {@link fromEulerFlat} with the sequence already resolved: the quaternion of the angles
 * `(a, b, c)` (radians, in `spec`'s sequence) written to `dst[dstOffset..+4]`. Unchecked: returns the `w`
 * written, NaN exactly when an angle was not finite, for the caller to check.
 */
export function composeEuler(
  dst: QuatOut,
  dstOffset: number,
  spec: EulerSpec,
  a: number,
  b: number,
  c: number,
): number {
  // An extrinsic sequence is the intrinsic one with axes and angles reversed (spec holds the axes).
  const t0 = spec.extrinsic ? c : a;
  const t2 = spec.extrinsic ? a : c;
  if (spec.proper) return composeProper(dst, dstOffset, spec.i0, spec.i1, spec.other, spec.sigma, t0, b, t2);
  return composeTaitBryan(dst, dstOffset, spec.i0, spec.i1, spec.i2, spec.sigma, t0, b, t2);
}

/**
 * Quaternion from Euler angles on flat arrays: reads `src[srcOffset..+3]` (radians, in the order the
 * sequence names the axes) and writes the unit quaternion at `dst[dstOffset..+4]`. The sign is whatever
 * the product gives (not forced into `w >= 0`). Reads before writing, so `dst` may overlap `src`.
 *
 * @throws {OptionError} for an unknown order.
 * @throws {InvalidValueError} when an angle is not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 3 (`src`) numbers.
 */
export function fromEulerFlat(
  dst: QuatOut,
  dstOffset: number,
  src: QuatLike,
  srcOffset: number,
  order: EulerOrder,
): void {
  checkSpan('fromEulerFlat', 'dst', dst, dstOffset, 4);
  checkSpan('fromEulerFlat', 'src', src, srcOffset, 3);
  const spec = eulerSpec(order);
  const w = composeEuler(dst, dstOffset, spec, src[srcOffset], src[srcOffset + 1], src[srcOffset + 2]);
  if (Number.isNaN(w)) throw nonFinite('fromEulerFlat', 'angles', src, srcOffset, 3);
}

/**
 * Quaternion from three Euler angles (radians) in any of the 24 sequences (SciPy's `from_euler`).
 *
 * @example
 * // BVH "Zrotation Yrotation Xrotation" with values (30°, 20°, 10°):
 * const d = Math.PI / 180;
 * const q = quat.fromEuler(quat.create(), [30 * d, 20 * d, 10 * d], 'ZYX');
 * @throws {OptionError} for an unknown order.
 * @throws {InvalidValueError} when an angle is not finite.
 * @throws {ShapeError} when `angles` does not hold 3 numbers or `out` 4 (SciPy raises too).
 */
export function fromEuler<T extends QuatOut>(out: T, angles: QuatLike, order: EulerOrder): T {
  checkLength('fromEuler', 'out', out, 4);
  checkLength('fromEuler', 'angles', angles, 3);
  const spec = eulerSpec(order);
  const w = composeEuler(out, 0, spec, angles[0], angles[1], angles[2]);
  if (Number.isNaN(w)) throw nonFinite('fromEuler', 'angles', angles, 0, 3);
  return out;
}

/**
 * Below this middle-angle distance from a singularity (radians) the sequence is treated as gimbal
 * locked and the third angle is set to 0. The rotation the triple reproduces is off by at most about
 * this much, and the common case (a triple built exactly at ±90°) lands here deterministically.
 */
const GIMBAL_EPSILON = 1e-12;

/**
 * @internal {@link toEulerFlat} with the sequence already resolved: the triple of `q[qOffset..+4]` in
 * `spec`'s sequence written to `dst[dstOffset..+3]`; returns true when the rotation is at gimbal lock.
 *
 * @throws {InvalidValueError} when the quaternion is zero or not finite.
 */
export function decomposeEuler(
  dst: QuatOut,
  dstOffset: number,
  q: QuatLike,
  qOffset: number,
  spec: EulerSpec,
): boolean {
  // Bernardes & Viollet, "Quaternion to Euler angles conversion: a direct, general and
  // computationally efficient method" (PLoS ONE 2022), written for an extrinsic sequence (i, j, k).
  // Both cases reduce to the product e(i0)·e(i1)·e(i2), which is the extrinsic sequence (i2, i1, i0).
  const first = spec.i2;
  const j = spec.i1;
  const proper = spec.proper;
  const k = proper ? 3 - first - j : spec.i0;
  const eps = ((first - j) * (j - k) * (k - first)) / 2;
  const qw = q[qOffset + 3];
  const qi = q[qOffset + first];
  const qj = q[qOffset + j];
  const qk = q[qOffset + k];
  let a: number;
  let b: number;
  let c: number;
  let d: number;
  if (proper) {
    a = qw;
    b = qi;
    c = qj;
    d = qk * eps;
  } else {
    a = qw - qj;
    b = qi + qk * eps;
    c = qj + qw;
    d = qk * eps - qi;
  }
  // a² + b² + c² + d² is |q|² (proper) or 2|q|² (Tait-Bryan): zero or non-finite exactly when q is, and a
  // zero quaternion would otherwise come out as a finite triple that means nothing.
  const ab = a * a + b * b;
  const n2 = ab + c * c + d * d;
  if (!(n2 > 0 && n2 < Number.POSITIVE_INFINITY)) throw notARotation(q, qOffset);
  let th2 = 2 * Math.atan2(Math.sqrt(c * c + d * d), Math.sqrt(ab));
  const hp = Math.atan2(b, a);
  const hm = Math.atan2(d, c);
  let th1: number;
  let th3: number;
  const nearZero = th2 <= GIMBAL_EPSILON;
  const nearPi = th2 >= Math.PI - GIMBAL_EPSILON;
  if (!nearZero && !nearPi) {
    th1 = hp - hm;
    th3 = hp + hm;
  } else if (spec.extrinsic) {
    th3 = 0;
    th1 = nearZero ? 2 * hp : -2 * hm;
  } else {
    th1 = 0;
    th3 = nearZero ? 2 * hp : 2 * hm;
  }
  if (!proper) {
    th3 = th3 * eps + 0; // + 0 turns -0 into 0
    th2 -= 0.5 * Math.PI;
  }
  if (th1 > Math.PI) th1 -= 2 * Math.PI;
  else if (th1 < -Math.PI) th1 += 2 * Math.PI;
  if (th3 > Math.PI) th3 -= 2 * Math.PI;
  else if (th3 < -Math.PI) th3 += 2 * Math.PI;
  if (spec.extrinsic) {
    dst[dstOffset] = th1;
    dst[dstOffset + 1] = th2;
    dst[dstOffset + 2] = th3;
  } else {
    dst[dstOffset] = th3;
    dst[dstOffset + 1] = th2;
    dst[dstOffset + 2] = th1;
  }
  return nearZero || nearPi;
}

function notARotation(q: QuatLike, qOffset: number): InvalidValueError {
  const c = [q[qOffset], q[qOffset + 1], q[qOffset + 2], q[qOffset + 3]].join(', ');
  return new InvalidValueError(`toEuler: quaternion (${c}) is zero or not finite; it has no Euler angles`, {
    index: qOffset >> 2,
  });
}

/**
 * Euler angles of a quaternion on flat arrays; see {@link toEuler}. `dst` may overlap `q`. Returns true
 * when the rotation is at gimbal lock (the middle angle within 1e-12 rad of its singular value), where
 * only the sum or difference of the outer angles is defined and the third angle was set to 0; SciPy's
 * `as_euler` warns there.
 *
 * @example
 * const e = new Float64Array(3);
 * const locked = quat.toEulerFlat(e, 0, quat.fromEuler(quat.create(), [0.3, Math.PI / 2, 0.2], 'ZYX'), 0, 'ZYX'); // true
 * @throws {OptionError} for an unknown order.
 * @throws {InvalidValueError} when the quaternion is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 3 (`dst`) or 4 (`q`) numbers.
 */
export function toEulerFlat(
  dst: QuatOut,
  dstOffset: number,
  q: QuatLike,
  qOffset: number,
  order: EulerOrder,
): boolean {
  checkSpan('toEulerFlat', 'dst', dst, dstOffset, 3);
  checkSpan('toEulerFlat', 'q', q, qOffset, 4);
  return decomposeEuler(dst, dstOffset, q, qOffset, eulerSpec(order));
}

/**
 * Euler angles (radians) of a rotation in any of the 24 sequences, matching SciPy's `as_euler`:
 * first and third angles in `[-π, π]`; the middle angle in `[-π/2, π/2]` for Tait-Bryan and `[0, π]` for
 * proper Euler sequences. `q` and `-q` give the same triple; the norm of `q` is ignored.
 *
 * Gimbal lock (middle angle within 1e-12 rad of ±π/2 for Tait-Bryan, of 0 or π for proper Euler): only
 * the sum or difference of the first and third angles is defined; the third angle is set to 0 and the
 * first carries the whole turn, as SciPy does. The triple always reproduces the rotation.
 * Method: Bernardes & Viollet (PLoS ONE 2022), the direct quaternion method SciPy also uses.
 *
 * @example
 * const e = quat.toEuler(new Float64Array(3), q, 'ZYX'); // [z, y, x] angles of R = Rz·Ry·Rx
 * @throws {OptionError} for an unknown order.
 * @throws {InvalidValueError} when `q` is zero or not finite (a zero quaternion has no angles).
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 3.
 */
export function toEuler<T extends QuatOut>(out: T, q: QuatLike, order: EulerOrder): T {
  checkLength('toEuler', 'out', out, 3);
  checkLength('toEuler', 'q', q, 4);
  decomposeEuler(out, 0, q, 0, eulerSpec(order));
  return out;
}

/**
 * Batch conversion of `n x 3` Euler angles to `n x 4` quaternions (flat, x,y,z,w). One loop over the
 * same kernel as {@link fromEuler}; allocates nothing when `out` is given. `out` may be Float32.
 * `out` may share memory with `angles` (views of one buffer, overlapping in any way): the angles are then
 * copied first, so the result is always that of separate arrays.
 *
 * @throws {ShapeError} when `angles.length` is not a multiple of 3 or `out` has the wrong length.
 * @throws {InvalidValueError} when an angle is not finite (`index` is its rotation).
 */
export function fromEulerArray<T extends QuatOut>(out: T, angles: QuatLike, order: EulerOrder): T {
  const spec = eulerSpec(order);
  checkArray('fromEulerArray', 'out', out);
  checkArray('fromEulerArray', 'angles', angles);
  if (overlaps(out, angles)) angles = Float64Array.from(angles);
  if (angles.length % 3 !== 0) {
    throw new ShapeError(`fromEulerArray: angles has ${angles.length} values, not a multiple of 3`);
  }
  const n = angles.length / 3;
  if (out.length !== n * 4) {
    throw new ShapeError(`fromEulerArray: out has ${out.length} values, expected ${n} x 4 = ${n * 4}`);
  }
  // Hoisted so the loop body is the bare kernel (the 30 M rotations/s path); extrinsic sequences read
  // their angles in reverse, which the two loops spell out instead of indexing through a variable.
  const { i0, i1, i2, other, sigma, extrinsic, proper } = spec;
  const k = proper ? other : i2;
  const compose = proper ? composeProper : composeTaitBryan;
  // Σ w is NaN exactly when some w is (|w| <= 1): one add per rotation, the search only on failure
  let check = 0;
  if (extrinsic) {
    for (let r = 0, p = 0; r < n; r++, p += 3) {
      check += compose(out, r * 4, i0, i1, k, sigma, angles[p + 2], angles[p + 1], angles[p]);
    }
  } else {
    for (let r = 0, p = 0; r < n; r++, p += 3) {
      check += compose(out, r * 4, i0, i1, k, sigma, angles[p], angles[p + 1], angles[p + 2]);
    }
  }
  if (Number.isNaN(check)) {
    for (let r = 0; r < n; r++) {
      if (Number.isNaN(out[r * 4 + 3])) throw nonFinite('fromEulerArray', 'angles', angles, r * 3, 3);
    }
  }
  return out;
}

/**
 * Batch conversion of `n x 4` quaternions to `n x 3` Euler angles (radians), same conventions as
 * {@link toEuler}. Allocates nothing. When `locked` is given (`n` bytes), `locked[r]` is set to 1 for
 * every rotation at gimbal lock and 0 otherwise (see {@link toEulerFlat}): SciPy warns once, this says
 * which samples.
 *
 * @example
 * const locked = new Uint8Array(quats.length / 4);
 * quat.toEulerArray(new Float64Array((quats.length / 4) * 3), quats, 'ZYX', locked);
 * @throws {ShapeError} when the lengths do not fit.
 * @throws {InvalidValueError} when a quaternion is zero or not finite (`index` is its rotation).
 */
export function toEulerArray<T extends QuatOut>(
  out: T,
  quats: QuatLike,
  order: EulerOrder,
  locked?: Uint8Array,
): T {
  const spec = eulerSpec(order);
  checkArray('toEulerArray', 'out', out);
  checkArray('toEulerArray', 'quats', quats);
  if (locked !== undefined) checkArray('toEulerArray', 'locked', locked);
  if (quats.length % 4 !== 0) {
    throw new ShapeError(`toEulerArray: quats has ${quats.length} values, not a multiple of 4`);
  }
  const n = quats.length / 4;
  if (out.length !== n * 3) {
    throw new ShapeError(`toEulerArray: out has ${out.length} values, expected ${n} x 3 = ${n * 3}`);
  }
  if (locked === undefined) {
    for (let r = 0; r < n; r++) decomposeEuler(out, r * 3, quats, r * 4, spec);
  } else {
    if (locked.length !== n) {
      throw new ShapeError(
        `toEulerArray: locked has ${locked.length} entries, expected one per rotation (${n})`,
      );
    }
    for (let r = 0; r < n; r++) locked[r] = decomposeEuler(out, r * 3, quats, r * 4, spec) ? 1 : 0;
  }
  return out;
}

/** True when two typed arrays are views of the same memory with overlapping byte ranges. */
function overlaps(a: unknown, b: unknown): boolean {
  if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.buffer !== b.buffer) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}
