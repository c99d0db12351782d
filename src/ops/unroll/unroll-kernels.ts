/**
 * Shared inner loops of the unrolling operations (quaternion signs, Euler triples). Not re-exported from
 * the package root: the public entry points are `unrollQuaternions`, `unrollEuler`, `eulerFromQuatSeries`
 * and the operations built on them.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { angle, fromEuler, isEulerOrder } from '../../quat/index.js';
import type { FloatArray } from '../../series/types.js';

/** How an Euler unroll may change a triple to follow the previous frame (see `unrollEuler`). */
export type EulerUnrollMode = 'equivalent' | 'wrap';

const TWO_PI = 2 * Math.PI;
const BIG = Number.MAX_VALUE;
const INV_TWO_PI = 1 / TWO_PI;
const HALF_PI = Math.PI / 2;

/**
 * The kernel of `unrollQuaternions` on raw frame-major arrays (`src` may be `dst`). Exported for
 * callers that hold plain arrays; it checks nothing but finiteness.
 *
 * @internal
 */
export function unrollQuaternionData(
  src: FloatArray,
  dst: FloatArray,
  joints: number,
  hemisphere: boolean,
): void {
  const n = src.length;
  const stride = joints * 4;
  const head = Math.min(stride, n);
  // First frame: sign from w (or kept), and an explicit finiteness check since no dot covers it.
  for (let i = 0; i < head; i += 4) {
    const x = src[i];
    const y = src[i + 1];
    const z = src[i + 2];
    const w = src[i + 3];
    const s = hemisphere && w < 0 ? -1 : 1;
    if (!Number.isFinite(x + y + z + w)) throwNonFinite(src, i, joints);
    dst[i] = s * x;
    dst[i + 1] = s * y;
    dst[i + 2] = s * z;
    dst[i + 3] = s * w;
  }
  // Every later quaternion against the already unrolled one a frame earlier, `stride` values back.
  // The frame-major layout makes this a single forward pass; the previous frame sits in L1 cache.
  if (src === dst) {
    // In place: write only the quaternions that flip (rare in real data), halving the memory traffic.
    for (let i = head; i < n; i += 4) {
      const x = src[i];
      const y = src[i + 1];
      const z = src[i + 2];
      const w = src[i + 3];
      const p = i - stride;
      const d = x * src[p] + y * src[p + 1] + z * src[p + 2] + w * src[p + 3];
      if (d < 0 && d >= -BIG) {
        src[i] = -x;
        src[i + 1] = -y;
        src[i + 2] = -z;
        src[i + 3] = -w;
      } else if (!(d >= 0 && d <= BIG)) {
        throwNonFinite(src, i, joints);
      }
    }
    return;
  }
  for (let i = head; i < n; i += 4) {
    const x = src[i];
    const y = src[i + 1];
    const z = src[i + 2];
    const w = src[i + 3];
    const p = i - stride;
    const d = x * dst[p] + y * dst[p + 1] + z * dst[p + 2] + w * dst[p + 3];
    if (d < 0 && d >= -BIG) {
      dst[i] = -x;
      dst[i + 1] = -y;
      dst[i + 2] = -z;
      dst[i + 3] = -w;
    } else if (d >= 0 && d <= BIG) {
      dst[i] = x;
      dst[i + 1] = y;
      dst[i + 2] = z;
      dst[i + 3] = w;
    } else {
      // d is NaN or infinite: a non-finite component in this quaternion (the previous one passed).
      throwNonFinite(src, i, joints);
    }
  }
}

function throwNonFinite(src: FloatArray, i: number, joints: number): never {
  const item = i >> 2;
  const frame = Math.floor(item / joints);
  const joint = item % joints;
  const x = src[i];
  const y = src[i + 1];
  const z = src[i + 2];
  const w = src[i + 3];
  if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z) && Number.isFinite(w)) {
    throw new InvalidValueError(
      `unrollQuaternions: quaternion (${x}, ${y}, ${z}, ${w}) at frame ${frame}, joint ${joint} is too large for a dot product`,
      { frame, joint },
    );
  }
  throw new InvalidValueError(
    `unrollQuaternions: non-finite quaternion (${x}, ${y}, ${z}, ${w}) at frame ${frame}, joint ${joint}`,
    { frame, joint },
  );
}

/** @internal Validates a mode name. */
export function checkMode(mode: unknown, where: string): asserts mode is EulerUnrollMode {
  if (mode !== 'equivalent' && mode !== 'wrap') {
    throw new OptionError(`${where}: mode must be 'equivalent' or 'wrap', got ${String(mode)}`);
  }
}

/**
 * @internal Per joint, three codes for the Euler filter: `[proper, σ₀, σ₁]` at `3 * joint`. `proper` is 1
 * for a proper Euler sequence (first axis = last axis), 0 for Tait-Bryan. `σₖ` says which combination of
 * the outer angles a gimbal lock leaves defined: at the lock `b = base + kπ` (base π/2 for Tait-Bryan, 0 for
 * proper Euler; k taken mod 2), `(a + t, b, c + σₖ t)` is the same rotation for every `t`, so only
 * `a − σₖ c` matters.
 */
export function eulerJointInfo(order: unknown, joints: number, where: string): Int8Array {
  const info = new Int8Array(joints * 3);
  if (Array.isArray(order)) {
    if (order.length !== joints) {
      throw new OptionError(`${where}: order lists ${order.length} sequences for ${joints} joints`);
    }
    for (let j = 0; j < joints; j++) info.set(orderInfo(order[j], where), j * 3);
  } else {
    const one = orderInfo(order, where);
    for (let j = 0; j < joints; j++) info.set(one, j * 3);
  }
  return info;
}

const INFO = new Map<string, Int8Array>();

/** @internal `[proper, σ₀, σ₁]` of one sequence (see {@link eulerJointInfo}), found once per sequence. */
export function orderInfo(order: unknown, where: string): Int8Array {
  if (!isEulerOrder(order)) {
    throw new OptionError(
      `${where}: order must be an Euler sequence such as 'ZYX', 'xyz' or 'ZXZ', got ${String(order)}`,
    );
  }
  let info = INFO.get(order);
  if (info === undefined) {
    const proper = order[0] === order[2];
    info = Int8Array.of(proper ? 1 : 0, 0, 0);
    const q1 = new Float64Array(4);
    const q2 = new Float64Array(4);
    for (let k = 0; k < 2; k++) {
      const lock = (proper ? 0 : Math.PI / 2) + k * Math.PI;
      fromEuler(q1, [0.3, lock, 0.2], order);
      fromEuler(q2, [0.8, lock, 0.7], order);
      info[1 + k] = angle(q1, q2) < 1e-9 ? 1 : -1;
    }
    INFO.set(order, info);
  }
  return info;
}

/**
 * The kernel of `unrollEuler` on raw frame-major arrays (`src` may be `dst`). The previous frame of
 * the same joint sits `3 * joints` values back, so one forward pass serves every joint.
 *
 * @internal
 */
export function unrollEulerData(
  src: FloatArray,
  dst: FloatArray,
  joints: number,
  info: Int8Array,
  equivalent: boolean,
  initial: ArrayLike<number> | null,
  where: string,
): void {
  checkInitial(initial, joints, where);
  const n = src.length;
  const stride = joints * 3;
  for (let i = 0; i < n; i += 3) {
    const a = src[i];
    const b = src[i + 1];
    const c = src[i + 2];
    if (!(Number.isFinite(a) && Number.isFinite(b) && Number.isFinite(c))) {
      const item = i / 3;
      const frame = Math.floor(item / joints);
      const joint = item % joints;
      throw new InvalidValueError(
        `${where}: non-finite Euler angles (${a}, ${b}, ${c}) at frame ${frame}, joint ${joint}`,
        {
          frame,
          joint,
        },
      );
    }
    let ref: ArrayLike<number>;
    let r: number;
    if (i < stride) {
      if (initial === null) {
        dst[i] = a;
        dst[i + 1] = b;
        dst[i + 2] = c;
        continue;
      }
      ref = initial;
      r = i;
    } else {
      ref = dst;
      r = i - stride;
    }
    followTriple(dst, i, a, b, c, ref, r, info, ((i / 3) % joints) * 3, equivalent);
  }
}

/**
 * Slack (radians, or radians² for the branch comparison) under which two candidates count as equally close.
 * Ties then keep the value as given (no turn added, branch kept), which makes unrolling idempotent even for
 * steps of exactly ±π, where rounding alone would pick a side at random.
 */
const TIE = 1e-12;

/** `x` plus the whole number of turns that brings it nearest `p`; ties keep the smaller shift. */
export function nearestTurn(x: number, p: number): number {
  const k = Math.round((p - x) * INV_TWO_PI);
  // both candidates are computed on every call, wrap or not, so a first wrap late in a long run reaches no
  // arithmetic the engine has not seen run (which would deoptimise every caller this is inlined into)
  const moved = x + TWO_PI * k;
  const less = x + TWO_PI * (k - Math.sign(k));
  const nearer = Math.abs(less - p) <= Math.abs(moved - p) + TIE ? less : moved;
  return k === 0 ? x : nearer;
}

/**
 * How close (radians) the middle angle must be to a gimbal lock for the outer angles to be re-split: the
 * threshold below which `quat.toEuler` itself treats a rotation as locked. Re-splitting there moves the
 * rotation by at most about π times this.
 */
const LOCK = 1e-12;

/**
 * Writes at `dst[i..+3]` the triple of the rotation `(a, b, c)` closest to `ref[r..+3]`: the triple itself
 * or (when `equivalent`) the other triple of the same rotation, each channel moved by whole turns; ties keep
 * the given branch. With `equivalent`, a triple exactly at gimbal lock, where only `a − σc` is defined, is
 * re-split: `a`, `c` are moved along `(a + t, c + σt)` to the point nearest the previous frame.
 *
 * `info[jo..+3]` is the joint's `[proper, σ₀, σ₁]` from {@link eulerJointInfo}. Returns 0 when the triple is
 * written unchanged, 1 when whole turns were added (a wrap), 2 when the other branch was taken, 3 when a
 * locked triple was re-split.
 */
export function followTriple(
  dst: FloatArray,
  i: number,
  a: number,
  b: number,
  c: number,
  ref: ArrayLike<number>,
  r: number,
  info: Int8Array,
  jo: number,
  equivalent: boolean,
): number {
  const pa = ref[r];
  const pb = ref[r + 1];
  const pc = ref[r + 2];
  const proper = info[jo] === 1;
  if (equivalent) {
    const base = proper ? 0 : HALF_PI;
    const n = Math.round((b - base) / Math.PI);
    if (Math.abs(b - base - n * Math.PI) <= LOCK) {
      // Gimbal lock: keep a − σc (mod 2π), split the change evenly between a and c (least squares).
      const sigma = info[jo + 1 + (n & 1)];
      let d = a - sigma * c - (pa - sigma * pc);
      d -= TWO_PI * Math.round(d * INV_TWO_PI);
      // At d = ±π both halves are equally near; take the one nearer the given a (idempotence, as TIE).
      if (Math.abs(d) > Math.PI - TIE) {
        const other = d > 0 ? d - TWO_PI : d + TWO_PI;
        if (Math.abs(pa + other / 2 - a) < Math.abs(pa + d / 2 - a)) d = other;
      }
      dst[i] = pa + d / 2;
      // The middle angle goes exactly onto the lock, so a second pass sees the same lock (idempotence).
      dst[i + 1] = nearestTurn(base + n * Math.PI, pb);
      dst[i + 2] = pc - (sigma * d) / 2;
      return 3;
    }
  }
  // Branch 1: the triple as given, each channel moved by whole turns to the previous value.
  const a1 = nearestTurn(a, pa);
  const b1 = nearestTurn(b, pb);
  const c1 = nearestTurn(c, pc);
  if (equivalent) {
    // Branch 2: the other triple of the same rotation, wrapped the same way.
    const a2 = nearestTurn(a + Math.PI, pa);
    const b2 = nearestTurn(proper ? -b : Math.PI - b, pb);
    const c2 = nearestTurn(c + Math.PI, pc);
    const d1 = (a1 - pa) ** 2 + (b1 - pb) ** 2 + (c1 - pc) ** 2;
    const d2 = (a2 - pa) ** 2 + (b2 - pb) ** 2 + (c2 - pc) ** 2;
    // one store site for both branches: a first branch switch then runs no store the engine has not seen
    const other = d2 + TIE < d1;
    const unchanged = a1 === a && b1 === b && c1 === c;
    dst[i] = other ? a2 : a1;
    dst[i + 1] = other ? b2 : b1;
    dst[i + 2] = other ? c2 : c1;
    return other ? 2 : unchanged ? 0 : 1;
  }
  dst[i] = a1;
  dst[i + 1] = b1;
  dst[i + 2] = c1;
  return a1 === a && b1 === b && c1 === c ? 0 : 1;
}

/**
 * Throws unless `initial` is absent or `joints x 3` finite numbers (the triple each joint continues from).
 *
 * @internal
 */
export function checkInitial(
  initial: ArrayLike<number> | null | undefined,
  joints: number,
  where: string,
): void {
  if (initial === null || initial === undefined) return;
  if (typeof initial !== 'object' || typeof initial.length !== 'number')
    throw new ShapeError(`${where}: initial must be an array of ${joints * 3} numbers`);
  if (initial.length !== joints * 3)
    throw new ShapeError(
      `${where}: initial has ${initial.length} values, expected ${joints * 3} (3 per joint)`,
    );
  for (let i = 0; i < initial.length; i++) {
    if (typeof initial[i] !== 'number' || !Number.isFinite(initial[i])) {
      throw new InvalidValueError(`${where}: initial[${i}] is ${String(initial[i])}, not a finite number`, {
        index: i,
        joint: Math.floor(i / 3),
      });
    }
  }
}
