// The error model of the reduction: whether a candidate segment keeps every frame within the joint's
// limit (object metric: hierarchical radius, quaternion fast path, descendants' points; local metric).
import { conjugateRaw, rotateVectorRaw, sphereAngleRaw, toMatrixRaw } from '../../quat/raw.js';
import { interpolateComponent, quantize16 } from './reduce-interpolate.js';
import type { Resolved } from './reduce-options.js';
import { invert3, type Prepared } from './reduce-prepare.js';
import type { JointState } from './reduce-search.js';
import { linearPart, localMatrix } from './reduce-transforms.js';

export interface Check {
  /** The joint's name, for messages. */
  name: string;
  d: Prepared;
  o: Resolved;
  j: number;
  state: JointState;
  limit: number;
  /** The local metric's rotation test in squares: `tan²(toleranceAngle/4)` ({@link rotationWithin}). */
  angleTan2: number;
  rho: number;
  L: Float64Array;
  scratch: Float64Array;
  /** Rotations are checked by {@link rotationHolds} (object metric, linear, no scale). */
  fast: boolean;
  /** Fast path, per frame: the local rotation that puts the joint where the original is, given the reduced parent. */
  target: Float64Array;
  /** Fast path, per frame: the joint origin's displacement, which the joint's rotation does not move. */
  offset: Float64Array;
  /** Fast path, per frame: that displacement as a vector (x, y, z). */
  delta: Float64Array;
  /** Where the radius bound fails, check the descendants' points ({@link descendantsHold}): rigid joints with descendants. */
  points: boolean;
  /** Scratch: a candidate world linear part (row-major 3x3). */
  world: Float64Array;
  /** Fitted keys: the value found for a key at each frame (x, y, z, w). */
  values: Float64Array;
  /** Fitted keys, per frame after the segment's start: the target in the start key's tangent space (x, y, z) and the allowed angle. */
  fit: Float64Array;
  /** The start those are for, and the last frame filled. */
  fitStart: number;
  fitUpTo: number;
}

/**
 * Fills `check.target` and `check.offset` for the rotation pass of joint `check.j` (its translation is
 * still the original then). With the reduced parent's world rotation `P` and the original world rotation
 * `W`, a local rotation `q` gives the world rotation `P ⊗ q`, whose rotation-matrix difference from `W`
 * has spectral norm `2·sin(θ/2) = 2·√(1 − w²)`, `w = (P ⊗ q)·W = q·(P* ⊗ W)`: so `target = P* ⊗ W`.
 */
export function rotationTargets(check: Check): void {
  const { d, state, j, target, offset, delta } = check;
  const { J, F } = d;
  const parent = d.parents[j];
  for (let f = 0; f < F; f++) {
    const wo = (f * J + j) * 4;
    const po = (f * J + j) * 3;
    let px: number;
    let py: number;
    let pz: number;
    const x = state.lt[f * 3];
    const y = state.lt[f * 3 + 1];
    const z = state.lt[f * 3 + 2];
    if (parent < 0) {
      for (let c = 0; c < 4; c++) target[f * 4 + c] = d.Q[wo + c];
      px = x;
      py = y;
      pz = z;
    } else {
      const pq = (f * J + parent) * 4;
      const RQ = state.RQ;
      // conj(P) ⊗ W
      const ax = -RQ[pq];
      const ay = -RQ[pq + 1];
      const az = -RQ[pq + 2];
      const aw = RQ[pq + 3];
      const bx = d.Q[wo];
      const by = d.Q[wo + 1];
      const bz = d.Q[wo + 2];
      const bw = d.Q[wo + 3];
      target[f * 4] = aw * bx + ax * bw + ay * bz - az * by;
      target[f * 4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
      target[f * 4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
      target[f * 4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
      // the origin the reduced parent (the fast path has no scales) gives it, as composeRotation moves it
      rotateVectorRaw(origin, 0, RQ, pq, state.lt, f * 3);
      const pp = (f * J + parent) * 3;
      const Rp = state.Rp;
      px = Rp[pp] + origin[0];
      py = Rp[pp + 1] + origin[1];
      pz = Rp[pp + 2] + origin[2];
    }
    const ex = px - d.p[po];
    const ey = py - d.p[po + 1];
    const ez = pz - d.p[po + 2];
    offset[f] = Math.sqrt(ex * ex + ey * ey + ez * ez);
    delta[f * 3] = ex;
    delta[f * 3 + 1] = ey;
    delta[f * 3 + 2] = ez;
  }
}

/**
 * The largest displacement of joint `check.j`'s own virtual vertices and every descendant's, at frame `f`,
 * bounded without the hierarchical radius: for a candidate world transform `(C, p)` of the joint (`C` in
 * `check.world`, row-major; `(ex, ey, ez) = p − p_original`) and the descendants' posture kept as in the
 * original, descendant `k`'s origin, at `y_k = Mᵀ·(p_k − p_j)` in the joint's original frame, moves by
 * `|Δp + C·y_k − (p_k − p_j)|`, and its vertices by at most `‖ΔM‖·shell` more (the largest local shell below the joint) (`norm` = `‖C − M‖`, spectral).
 * The joint's own vertices are the case `y = 0`. Every descendant's check, keeping all its keys, sees the
 * same points moved by the same amounts, so a joint that passes leaves each descendant feasible, as the
 * radius bound (`|Δp| + ‖ΔM‖·ρ_j`, never smaller) does. With scales `y_k = M⁻¹·(p_k − p_j)` and the
 * vertices' part is `‖ΔM‖_F·shellReach` ({@link Prepared.shellReach}), which bounds each descendant's own
 * check of the same points; a singular `M` fails the check (the radius bound decides).
 */
function descendantsHold(
  check: Check,
  f: number,
  ex: number,
  ey: number,
  ez: number,
  norm: number,
  limit: number,
): boolean {
  const { d, j } = check;
  const J = d.J;
  const C = check.world;
  const P = d.p;
  const po = (f * J + j) * 3;
  const room = limit - norm * (d.scaled ? d.shellReach[f * J + j] : d.shellsBelow[j]);
  if (!(room > 0)) return false;
  // y_k = M⁻¹·(p_k − p_j): the transpose for rigid joints
  const T = inverseAt;
  if (!d.scaled) {
    // the inverse of a rotation is its transpose: the rotation of the conjugate
    conjugateRaw(conjugateAt, 0, d.Q, (f * J + j) * 4);
    toMatrixRaw(T, 0, conjugateAt, 0);
  } else if (!invert3(T, d.M, (f * J + j) * 9)) return false;
  const room2 = room * room;
  if (ex * ex + ey * ey + ez * ez > room2) return false;
  const end = d.belowStart[j + 1];
  for (let n = d.belowStart[j]; n < end; n++) {
    const pk = (f * J + d.below[n]) * 3;
    const wx = P[pk] - P[po];
    const wy = P[pk + 1] - P[po + 1];
    const wz = P[pk + 2] - P[po + 2];
    const yx = T[0] * wx + T[1] * wy + T[2] * wz;
    const yy = T[3] * wx + T[4] * wy + T[5] * wz;
    const yz = T[6] * wx + T[7] * wy + T[8] * wz;
    const qx = ex + C[0] * yx + C[1] * yy + C[2] * yz - wx;
    const qy = ey + C[3] * yx + C[4] * yy + C[5] * yz - wy;
    const qz = ez + C[6] * yx + C[7] * yy + C[8] * yz - wz;
    if (qx * qx + qy * qy + qz * qz > room2) return false;
  }
  return true;
}

/**
 * {@link descendantsHold} for a candidate local rotation `(x, y, z, w)` (unit) on the fast path: the world
 * rotation `P ⊗ q` (`P` the reduced parent's) as a matrix into `check.world`; `norm` = `2·sin(θ/2)`.
 */
function rotationDescendantsHold(
  check: Check,
  f: number,
  x: number,
  y: number,
  z: number,
  w: number,
  norm: number,
  limit: number,
): boolean {
  const { d, j, state } = check;
  const parent = d.parents[j];
  let cx = x;
  let cy = y;
  let cz = z;
  let cw = w;
  if (parent >= 0) {
    const pq = (f * d.J + parent) * 4;
    const RQ = state.RQ;
    const ax = RQ[pq];
    const ay = RQ[pq + 1];
    const az = RQ[pq + 2];
    const aw = RQ[pq + 3];
    cx = aw * x + ax * w + ay * z - az * y;
    cy = aw * y - ax * z + ay * w + az * x;
    cz = aw * z + ax * y - ay * x + az * w;
    cw = aw * w - ax * x - ay * y - az * z;
  }
  const q4 = worldQuat;
  q4[0] = cx;
  q4[1] = cy;
  q4[2] = cz;
  q4[3] = cw;
  toMatrixRaw(check.world, 0, q4, 0);
  const delta = check.delta;
  return descendantsHold(check, f, delta[f * 3], delta[f * 3 + 1], delta[f * 3 + 2], norm, limit);
}

const parentMatrix = new Float64Array(9);
const origin = new Float64Array(3);
const originalMatrix = new Float64Array(9);
const inverseAt = new Float64Array(9);
const conjugateAt = new Float64Array(4);
const worldQuat = new Float64Array(4);

/**
 * `2·sin(θ/2)` for the rotation between unit quaternions `(x, y, z, w)` and `target[t..]`: the spectral
 * norm of the difference of their matrices. From the chord `c² = |q ∓ r|²` (the nearer sign):
 * `1 − (q·r)² = (c²/2)·(2 − c²/2)`, which keeps full precision for tiny angles.
 */
function rotationError(x: number, y: number, z: number, w: number, target: Float64Array, t: number): number {
  const rx = target[t];
  const ry = target[t + 1];
  const rz = target[t + 2];
  const rw = target[t + 3];
  const sign = x * rx + y * ry + z * rz + w * rw < 0 ? -1 : 1;
  const dx = x - sign * rx;
  const dy = y - sign * ry;
  const dz = z - sign * rz;
  const dw = w - sign * rw;
  const half = (dx * dx + dy * dy + dz * dz + dw * dw) / 2;
  return 2 * Math.sqrt(Math.max(0, half * (2 - half)));
}

/** Headroom for round-off between the quaternion check and the matrix evaluation of the report. */
const FAST_MARGIN = 1 - 1e-9;

const keyA = new Float64Array(4);
export const keyB = new Float64Array(4);

/** Joint `j`'s rotation sample at frame `f` as stored (quantised when asked) into `out[o..]`. */
export function sampleKey(
  out: Float64Array,
  o: number,
  d: Prepared,
  r: Resolved,
  j: number,
  f: number,
): void {
  const i = (f * d.J + j) * 4;
  const quantized = r.quantization === 'int16';
  for (let c = 0; c < 4; c++) out[o + c] = quantized ? quantize16(d.q[i + c]) : d.q[i + c];
}

/**
 * {@link segmentHolds} for a rotation on the fast path: the slerp between the (quantised) keys at `a`
 * and `b`, normalised, against `check.target` at every frame, with one angle per segment.
 */
export function rotationHolds(check: Check, a: number, b: number, last: number, first = a): boolean {
  const { d, j } = check;
  const ia = (a * d.J + j) * 4;
  const ib = (b * d.J + j) * 4;
  if (check.o.quantization !== 'int16') return rotationSpanHolds(check, d.q, ia, d.q, ib, a, b, last, first);
  // the stored (rounded) values
  for (let c = 0; c < 4; c++) {
    keyA[c] = quantize16(d.q[ia + c]);
    keyB[c] = quantize16(d.q[ib + c]);
  }
  return rotationSpanHolds(check, keyA, 0, keyB, 0, a, b, last, first);
}

/**
 * {@link rotationHolds} for given key values: `ka[kao..]` at frame `a`, `kb[kbo..]` at `b` (as stored:
 * not necessarily unit); `a === b`: frames `first` to `last` hold `ka`. Arrays, not numbers: doubles passed
 * to a call that is not inlined are boxed.
 */
export function rotationSpanHolds(
  check: Check,
  ka: Float64Array,
  kao: number,
  kb: Float64Array,
  kbo: number,
  a: number,
  b: number,
  last: number,
  first = a,
): boolean {
  const { target, offset, j } = check;
  const J = check.d.J;
  const reach = check.d.reach;
  const shell = check.d.shellsBelow[j];
  const limit = check.limit * FAST_MARGIN;
  const rho = check.rho;
  let ax = ka[kao];
  let ay = ka[kao + 1];
  let az = ka[kao + 2];
  let aw = ka[kao + 3];
  if (a === b) {
    // the key held: frames first..last see one (normalised) value
    const n = 1 / Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);
    ax *= n;
    ay *= n;
    az *= n;
    aw *= n;
    for (let f = first; f <= last; f++) {
      const norm = rotationError(ax, ay, az, aw, target, f * 4);
      if (offset[f] + norm * rho > limit) {
        if (!check.points) return false;
        if (
          offset[f] + norm * (reach[f * J + j] + shell) > limit &&
          !rotationDescendantsHold(check, f, ax, ay, az, aw, norm, limit)
        )
          return false;
      }
    }
    return true;
  }
  let bx = kb[kbo];
  let by = kb[kbo + 1];
  let bz = kb[kbo + 2];
  let bw = kb[kbo + 3];
  // b on a's hemisphere, and the angle between them on the 4-sphere, as slerpFlat takes it (once per segment)
  const sign = ax * bx + ay * by + az * bz + aw * bw < 0 ? -1 : 1;
  bx *= sign;
  by *= sign;
  bz *= sign;
  bw *= sign;
  const theta = sphereAngleRaw(ax, ay, az, aw, bx, by, bz, bw);
  const small = theta < 1e-10;
  const inv = small ? 1 : 1 / Math.sin(theta);
  // frame times on a keyed clip (glTF's (t − t_a)/(t_b − t_a)), frame numbers on a uniform one
  const times = check.d.keyed?.times;
  const ta = times ? times[a] : a;
  const span = times ? 1 / (times[b] - ta) : 1 / (b - a);
  for (let f = a + 1; f <= last; f++) {
    const u = ((times ? times[f] : f) - ta) * span;
    const s0 = small ? 1 - u : Math.sin((1 - u) * theta) * inv;
    const s1 = small ? u : Math.sin(u * theta) * inv;
    // the slerp, normalised (quantised keys are not unit)
    let x = s0 * ax + s1 * bx;
    let y = s0 * ay + s1 * by;
    let z = s0 * az + s1 * bz;
    let w = s0 * aw + s1 * bw;
    const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    x *= n;
    y *= n;
    z *= n;
    w *= n;
    const norm = rotationError(x, y, z, w, target, f * 4);
    if (offset[f] + norm * rho > limit) {
      if (!check.points) return false;
      if (
        offset[f] + norm * (reach[f * J + j] + shell) > limit &&
        !rotationDescendantsHold(check, f, x, y, z, w, norm, limit)
      )
        return false;
    }
  }
  return true;
}
const INV_SQRT2 = Math.SQRT1_2;

/**
 * Whether keys at frames `a` and `b` (and none between) keep frames `a + 1` to `b` within the limit
 * (`a === b`: frames `first` to `last` all holding key `a`'s value, as a one-key track does, or frames
 * before a track's first key). The key frame itself is checked too: the joint's other components and its
 * ancestors are already reduced there, and quantisation moves the key.
 */
export function segmentHolds(
  check: Check,
  component: 0 | 1 | 2,
  a: number,
  b: number,
  last = b,
  first = a,
): boolean {
  if (component === 1 && check.fast) return rotationHolds(check, a, b, last, first);
  const { d, o, state, j, L } = check;
  const { J } = d;
  const v = check.scratch;
  for (let f = a === b ? first : a + 1; f <= last; f++) {
    // the component's interpolated value at frame f, into the candidate local TRS
    interpolateComponent(v, d, o, j, component, a, b, f);
    if (o.metric === 'local') {
      if (!localHolds(check, component, v, f)) return false;
      continue;
    }
    // the candidate local transform: this component from `v`, the others as reduced so far (no views: no allocation)
    const lt = component === 0 ? v : state.lt;
    const to = component === 0 ? 0 : f * 3;
    if (component === 1) localMatrix(L, 0, v, 0, state.ls, f * 3);
    else if (component === 2) localMatrix(L, 0, state.lq, f * 4, v, 0);
    else localMatrix(L, 0, state.lq, f * 4, state.ls, f * 3);
    // candidate world transform = reduced parent · candidate local
    const parent = d.parents[j];
    let m0: number;
    let m1: number;
    let m2: number;
    let px: number;
    let py: number;
    let pz: number;
    let frob = 0;
    const po = (f * J + j) * 3;
    const C = check.world;
    // the original's world linear part: its matrix, or without scales its rotation
    const M = originalMatrix;
    linearPart(M, d.scaled, d.M, d.Q, f * J + j);
    if (parent < 0) {
      for (let i = 0; i < 9; i++) {
        C[i] = L[i];
        const e = L[i] - M[i];
        frob += e * e;
      }
      px = lt[to];
      py = lt[to + 1];
      pz = lt[to + 2];
    } else {
      // the reduced parent's: likewise
      const RM = parentMatrix;
      linearPart(RM, d.scaled, state.RM, state.RQ, f * J + parent);
      const pp = (f * J + parent) * 3;
      for (let r = 0; r < 3; r++) {
        m0 = RM[r * 3];
        m1 = RM[r * 3 + 1];
        m2 = RM[r * 3 + 2];
        for (let c = 0; c < 3; c++) {
          const m = m0 * L[c] + m1 * L[3 + c] + m2 * L[6 + c];
          C[r * 3 + c] = m;
          const e = m - M[r * 3 + c];
          frob += e * e;
        }
      }
      const Rp = state.Rp;
      const x = lt[to];
      const y = lt[to + 1];
      const z = lt[to + 2];
      px = Rp[pp] + RM[0] * x + RM[1] * y + RM[2] * z;
      py = Rp[pp + 1] + RM[3] * x + RM[4] * y + RM[5] * z;
      pz = Rp[pp + 2] + RM[6] * x + RM[7] * y + RM[8] * z;
    }
    const ex = px - d.p[po];
    const ey = py - d.p[po + 1];
    const ez = pz - d.p[po + 2];
    const dp = Math.sqrt(ex * ex + ey * ey + ez * ez);
    const norm = d.scaled ? Math.sqrt(frob) : Math.sqrt(frob) * INV_SQRT2;
    if (dp + norm * check.rho > check.limit) {
      if (!check.points) return false;
      if (
        // negated: a singular M's infinite reach times a zero norm is NaN, which must not pass
        !(
          dp + norm * (d.reach[f * J + j] + (d.scaled ? d.shellReach[f * J + j] : d.shellsBelow[j])) <=
          check.limit
        ) &&
        !descendantsHold(check, f, ex, ey, ez, norm, check.limit)
      )
        return false;
    }
  }
  return true;
}

function localHolds(check: Check, component: 0 | 1 | 2, v: Float64Array, f: number): boolean {
  const { d, o, j } = check;
  const i = f * d.J + j;
  if (component === 1) {
    const q = d.q;
    return rotationWithin(v, 0, q, i * 4, o.toleranceAngle, check.angleTan2);
  }
  const src = component === 0 ? d.t : d.s;
  const dx = v[0] - src[i * 3];
  const dy = v[1] - src[i * 3 + 1];
  const dz = v[2] - src[i * 3 + 2];
  if (component === 0) return distance3(dx, dy, dz) <= o.tolerance;
  const base = Math.max(Math.abs(src[i * 3]), Math.abs(src[i * 3 + 1]), Math.abs(src[i * 3 + 2]), 1e-12);
  return Math.max(Math.abs(dx), Math.abs(dy), Math.abs(dz)) / base <= o.toleranceScale;
}

/**
 * The angle (radians) of the rotation between quaternions `a[ao..]` and `b[bo..]`, each normalised first
 * (float32 keys are unit only to about 4e-8, and `2·acos(a·b)` would read that as 8e-4 rad):
 * `4·atan2(|â − ŝb̂|, |â + ŝb̂|)` with `s` the sign of `a·b`, full precision for small angles.
 */
export function rotationAngle(a: Float64Array, ao: number, b: Float64Array, bo: number): number {
  chordSquares(a, ao, b, bo);
  return 4 * Math.atan2(Math.sqrt(chords[0]), Math.sqrt(chords[1]));
}

/** `|â − ŝb̂|²` and `|â + ŝb̂|²` of {@link rotationAngle}, written by {@link chordSquares}. */
const chords = new Float64Array(2);

function chordSquares(a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const na =
    1 / Math.sqrt(a[ao] * a[ao] + a[ao + 1] * a[ao + 1] + a[ao + 2] * a[ao + 2] + a[ao + 3] * a[ao + 3]);
  const nb0 =
    1 / Math.sqrt(b[bo] * b[bo] + b[bo + 1] * b[bo + 1] + b[bo + 2] * b[bo + 2] + b[bo + 3] * b[bo + 3]);
  const dot = a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2] + a[ao + 3] * b[bo + 3];
  const nb = dot < 0 ? -nb0 : nb0;
  let diff = 0;
  let sum = 0;
  for (let c = 0; c < 4; c++) {
    const x = a[ao + c] * na;
    const y = b[bo + c] * nb;
    diff += (x - y) * (x - y);
    sum += (x + y) * (x + y);
  }
  chords[0] = diff;
  chords[1] = sum;
}

/**
 * Whether {@link rotationAngle}`(a, b) <= limit`, with `tan2 = tan²(limit/4)` (`Infinity` for a limit of π
 * or more: every angle passes). `4·atan2(√diff, √sum) ≤ limit ⟺ diff ≤ tan²(limit/4)·sum`, so the squares
 * decide, without the arctangent, except within 1e-9 of the boundary, where the angle itself does: the
 * answer is always the angle's (what the report measures), bit for bit.
 */
export function rotationWithin(
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  limit: number,
  tan2: number,
): boolean {
  chordSquares(a, ao, b, bo);
  const diff = chords[0];
  const bound = tan2 * chords[1];
  // (the squares of limits below ~1e-125 rad lose their digits: the angle decides there)
  if (bound > 1e-250) {
    if (diff < bound * (1 - 1e-9)) return true;
    if (diff > bound * (1 + 1e-9)) return false;
  }
  return 4 * Math.atan2(Math.sqrt(diff), Math.sqrt(chords[1])) <= limit;
}

/** `tan²(limit/4)` for {@link rotationWithin}. */
export function angleTan2(limit: number): number {
  return limit >= Math.PI ? Number.POSITIVE_INFINITY : Math.tan(limit / 4) ** 2;
}

/**
 * `√(dx² + dy² + dz²)`: the local metric's translation distance, the same in the check and the report.
 * `Math.hypot` (slow in V8) only where the sum of squares would underflow or overflow.
 */
export function distance3(dx: number, dy: number, dz: number): number {
  const s = dx * dx + dy * dy + dz * dz;
  return s > 1e-280 && s < 1e280 ? Math.sqrt(s) : Math.hypot(dx, dy, dz);
}
