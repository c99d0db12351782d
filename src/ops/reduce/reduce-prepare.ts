// The original clip as the reduction compares against it: local TRS (rotations sign-continuous), world
// transforms, tangents for cubic players, the hierarchical radii and the per-joint error shares.
import { toMatrixRaw } from '../../quat/raw.js';
import { ANIMATED_ROTATION, ANIMATED_SCALE, ANIMATED_TRANSLATION, type Clip } from '../../series/clip.js';
import { CUBIC, type KeyedFrames } from './reduce-keyed.js';
import { largestOffsets, sceneShellOffsets } from './reduce-scene.js';
import { compose, composeRotation, localMatrix } from './reduce-transforms.js';

/** Kept frame indices per joint and component (0 translation, 1 rotation, 2 scale); null where not animated. */
export type KeySets = (Int32Array | null)[][];

export function maxTrackKeys(keys: KeySets): number {
  let m = 0;
  for (const joint of keys) for (const k of joint) if (k) m = Math.max(m, k.length);
  return m;
}

/**
 * Every key of every animated track: each track's own keys for a keyed clip (its key times on the union
 * of all tracks' times), every frame for a uniform one.
 */
export function trackKeys(clip: Clip, d: Prepared): KeySets {
  const keyed = d.keyed;
  if (keyed === null) return allKeys(d.J, d.F, clip.animated);
  const out: KeySets = [];
  for (let j = 0; j < d.J; j++) {
    out.push([keyed.keys[j * 3] ?? null, keyed.keys[j * 3 + 1] ?? null, keyed.keys[j * 3 + 2] ?? null]);
  }
  return out;
}

/** Every frame of every animated component of a uniform clip. */
export function allKeys(J: number, F: number, animated: Uint8Array): KeySets {
  const out: KeySets = [];
  const all = Int32Array.from({ length: F }, (_, i) => i);
  for (let j = 0; j < J; j++) {
    out.push([
      animated[j] & ANIMATED_TRANSLATION ? all : null,
      animated[j] & ANIMATED_ROTATION ? all : null,
      animated[j] & ANIMATED_SCALE ? all : null,
    ]);
  }
  return out;
}

/** The clip's local TRS per frame (rotations sign-continuous, scales filled), world transforms and radii. */
export interface Prepared {
  J: number;
  F: number;
  parents: Int32Array;
  /** Local translation, rotation (continuous), scale: frame-major like the clip. */
  t: Float64Array;
  q: Float64Array;
  s: Float64Array;
  /**
   * World linear part (row-major 3x3) of the original, frame-major, when `scaled` (else empty: `Q` holds
   * the rotations, read as matrices by `toMatrixRaw`), and its world origins.
   */
  M: Float64Array;
  p: Float64Array;
  /**
   * World rotation of the original as unit quaternions (x, y, z, w), frame-major, when not `scaled` (else
   * empty): the products of the local rotations, each normalised unless `unit`.
   */
  Q: Float64Array;
  /** Whether any scale differs from 1 (then ‖ΔM‖_F bounds the spectral norm, else ‖ΔM‖_F/√2 is exact). */
  scaled: boolean;
  /** Whether every rotation is a unit quaternion to 1e-12 (else the quaternion paths normalise each one first). */
  unit: boolean;
  depth: Int32Array;
  height: Int32Array;
  leaf: Uint8Array;
  /** Every joint's descendants (all levels; effort 'best' only, else none), as a list: joint `j`'s are `below[belowStart[j] .. belowStart[j + 1]]`. */
  below: Int32Array;
  belowStart: Int32Array;
  /**
   * Per frame and joint (frame-major), the largest distance from the joint's origin to any descendant's
   * in the original pose, in the joint's own frame: `|y_k|` of {@link descendantsHold} (through `M⁻¹` with
   * scales; infinite where `M` is singular), so `|Δp| + ‖ΔM‖·(reach + shell)` bounds it per frame. Filled
   * for effort 'best' (else empty).
   */
  reach: Float64Array;
  /**
   * Per joint and local axis (`J·3`): the local offset of the virtual vertices, the shell in scene units
   * at the joint's rest world scale ({@link sceneShellOffsets}); `shells`: the largest of the three;
   * `shellsBelow`: the largest of `shells` over the joint and all its descendants (the points check).
   */
  shellOffsets: Float64Array;
  shells: Float64Array;
  shellsBelow: Float64Array;
  /**
   * With scales (effort 'best'; else empty): per frame and joint, the largest `G_jk·shells[k]` over the
   * joint and its descendants, `G_jk` the product of `max|s|` of the joints from below `j` down to `k`
   * (a bound on the spectral norm of `k`'s linear part in `j`'s frame): how far the descendants' vertices
   * lie from their origins in the joint's units. Every descendant's own value times its `G` is within it,
   * so a joint that passes leaves its descendants feasible. Rigid clips use `shellsBelow`.
   */
  shellReach: Float64Array;
  /** Largest |coordinate| of any world position: the clip's extent, for the precision floor. */
  extent: number;
  /**
   * Tangents (per second) for cubic splines, frame-major: leaving each frame (`dq`, `dt`, `ds`) and
   * arriving at it (`iq`, `it`, `is`). Uniform clips: central differences, both the same arrays; keyed
   * clips: the CUBICSPLINE tracks' own out- and in-tangents at their keys.
   */
  dq: Float64Array;
  dt: Float64Array;
  ds: Float64Array;
  iq: Float64Array;
  it: Float64Array;
  is: Float64Array;
  frameTime: number;
  /** Keyed clips: the frames' times (every distinct key time) and each track's keys; null for uniform clips. */
  keyed: KeyedFrames | null;
}

/**
 * The clip as the reduction compares against it. `ownRotations`: `clip.rotations.data` is the caller's
 * own scratch (the samples of a keyed clip, a rounded pose), so its signs are made continuous in place
 * rather than in a copy; translations are only read, and a Float64Array of them is used as it is.
 */
export function prepare(
  clip: Clip,
  cubic: boolean,
  points: boolean,
  shell: number,
  keyed: KeyedFrames | null = null,
  meshShells: Float64Array | null = null,
  ownRotations = false,
): Prepared {
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  const parents = clip.skeleton.parents;
  const r = clip.rotations.data;
  const q = ownRotations && r instanceof Float64Array ? r : Float64Array.from(r);
  // (each pass over every frame is a function of its own: one hot loop per function is optimised once,
  // where a function of several runs each later loop unoptimised until it is compiled again)
  signContinuous(q, F, J, keyed);
  const t =
    clip.translations.data instanceof Float64Array
      ? clip.translations.data
      : Float64Array.from(clip.translations.data);
  const s = new Float64Array(F * J * 3);
  if (clip.scales) s.set(clip.scales.data);
  else for (let f = 0; f < F; f++) s.set(clip.skeleton.restScales, f * J * 3);
  const scaledAny = anyScale(s);
  const unit = allUnit(q);
  // world transforms: without scales every linear part is a rotation, kept as a unit quaternion (the
  // product of the local rotations, each normalised: a float32 file's are unit only to about 1e-7), else
  // as a matrix
  const M = new Float64Array(scaledAny ? F * J * 9 : 0);
  const Q = new Float64Array(scaledAny ? 0 : F * J * 4);
  const p = new Float64Array(F * J * 3);
  const extent = scaledAny
    ? worldMatrices(M, p, q, s, t, parents, F, J)
    : worldRotations(Q, p, q, t, parents, F, J, unit);
  const depth = new Int32Array(J);
  const leaf = new Uint8Array(J).fill(1);
  for (let j = 0; j < J; j++) {
    if (parents[j] >= 0) {
      depth[j] = depth[parents[j]] + 1;
      leaf[parents[j]] = 0;
    }
  }
  // longest path to a leaf below each joint (parents come before children)
  const height = new Int32Array(J);
  for (let j = J - 1; j >= 0; j--) {
    const a = parents[j];
    if (a >= 0 && height[j] + 1 > height[a]) height[a] = height[j] + 1;
  }
  // descendants and their reach: only for the points check (effort 'best')
  const belowStart = new Int32Array(J + 1);
  if (points)
    for (let k = 0; k < J; k++) for (let a = parents[k]; a >= 0; a = parents[a]) belowStart[a + 1]++;
  for (let j = 0; j < J; j++) belowStart[j + 1] += belowStart[j];
  const below = new Int32Array(belowStart[J]);
  const fill = belowStart.slice(0, J);
  for (let k = 0; k < J; k++) for (let a = parents[k]; a >= 0; a = parents[a]) below[fill[a]++] = k;
  // farthest first (in the first frame), so a failing check stops early
  const far = (a: number, k: number) =>
    Math.hypot(p[k * 3] - p[a * 3], p[k * 3 + 1] - p[a * 3 + 1], p[k * 3 + 2] - p[a * 3 + 2]);
  for (let a = 0; a < J; a++) {
    below.subarray(belowStart[a], belowStart[a + 1]).sort((k1, k2) => far(a, k2) - far(a, k1));
  }
  // |y_k| in the joint's own frame: the world offset itself for rigid joints, through M⁻¹ with scales
  const reach = new Float64Array(points ? F * J : 0);
  const inverse = new Float64Array(9);
  if (points) {
    for (let f = 0; f < F; f++) {
      for (let a = 0; a < J; a++) {
        if (belowStart[a + 1] === belowStart[a]) continue;
        const pa = (f * J + a) * 3;
        const rigid = !scaledAny;
        if (!rigid && !invert3(inverse, M, (f * J + a) * 9)) {
          reach[f * J + a] = Number.POSITIVE_INFINITY;
          continue;
        }
        let r = 0;
        for (let n = belowStart[a]; n < belowStart[a + 1]; n++) {
          const pk = (f * J + below[n]) * 3;
          const dx = p[pk] - p[pa];
          const dy = p[pk + 1] - p[pa + 1];
          const dz = p[pk + 2] - p[pa + 2];
          const l = rigid
            ? Math.sqrt(dx * dx + dy * dy + dz * dz)
            : Math.hypot(
                inverse[0] * dx + inverse[1] * dy + inverse[2] * dz,
                inverse[3] * dx + inverse[4] * dy + inverse[5] * dz,
                inverse[6] * dx + inverse[7] * dy + inverse[8] * dz,
              );
          if (l > r) r = l;
        }
        reach[f * J + a] = r;
      }
    }
  }
  const dt = clip.frameTime;
  const tangents = keyed === null ? null : keyedTangents(keyed, F, J);
  const dq = tangents ? tangents.out[1] : cubic ? derivative(q, F, J, 4, dt) : q;
  const dT = tangents ? tangents.out[0] : cubic ? derivative(t, F, J, 3, dt) : t;
  const dS = tangents ? tangents.out[2] : cubic ? derivative(s, F, J, 3, dt) : s;
  // the first frame's world linear parts, where a rest scale is degenerate
  let first = M;
  if (!scaledAny) {
    first = new Float64Array(J * 9);
    for (let j = 0; j < J; j++) toMatrixRaw(first, j * 9, Q, j * 4);
  }
  const shellOffsets = sceneShellOffsets(clip.skeleton, shell, first, meshShells);
  const shells = largestOffsets(shellOffsets);
  const shellsBelow = Float64Array.from(shells);
  for (let j = J - 1; j >= 0; j--)
    if (parents[j] >= 0 && shellsBelow[j] > shellsBelow[parents[j]]) shellsBelow[parents[j]] = shellsBelow[j];
  const shellReach = points && scaledAny ? scaledShellReach(parents, shells, s, F) : new Float64Array(0);
  return {
    J,
    F,
    parents: Int32Array.from(parents),
    t,
    q,
    s,
    M,
    p,
    Q,
    scaled: scaledAny,
    unit,
    depth,
    height,
    leaf,
    below,
    belowStart,
    reach,
    shellOffsets,
    shells,
    shellsBelow,
    shellReach,
    extent,
    // tangents only for cubic splines
    dq,
    dt: dT,
    ds: dS,
    iq: tangents ? tangents.in[1] : dq,
    it: tangents ? tangents.in[0] : dT,
    is: tangents ? tangents.in[2] : dS,
    frameTime: dt,
    keyed,
  };
}

/**
 * Rotations made sign-continuous per joint along the frames, in place, so interpolation between any two
 * kept keys takes the path the data took (not a CUBICSPLINE track's: its tangents belong to its values'
 * signs, and its players do not slerp).
 */
function signContinuous(q: Float64Array, F: number, J: number, keyed: KeyedFrames | null): void {
  for (let j = 0; j < J; j++) {
    if (keyed !== null && keyed.interpolation[j * 3 + 1] === CUBIC) continue;
    for (let f = 1; f < F; f++) {
      const a = ((f - 1) * J + j) * 4;
      const b = (f * J + j) * 4;
      if (q[a] * q[b] + q[a + 1] * q[b + 1] + q[a + 2] * q[b + 2] + q[a + 3] * q[b + 3] < 0) {
        for (let c = 0; c < 4; c++) q[b + c] = -q[b + c];
      }
    }
  }
}

/** Whether any scale differs from 1. */
function anyScale(s: Float64Array): boolean {
  let any = false;
  for (let i = 0; i < s.length; i++) if (s[i] !== 1) any = true;
  return any;
}

/** Whether every rotation is unit to 1e-12 (a float32 file's are not, to 1e-7). */
function allUnit(q: Float64Array): boolean {
  let unit = true;
  for (let i = 0; i < q.length; i += 4) {
    const n = q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2] + q[i + 3] * q[i + 3];
    if (Math.abs(n - 1) > 1e-12) unit = false;
  }
  return unit;
}

/** World linear parts `M` and origins `p` of every frame and joint (with scales); returns the largest |coordinate|. */
function worldMatrices(
  M: Float64Array,
  p: Float64Array,
  q: Float64Array,
  s: Float64Array,
  t: Float64Array,
  parents: ArrayLike<number>,
  F: number,
  J: number,
): number {
  const local = new Float64Array(9);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const i = f * J + j;
      localMatrix(local, 0, q, i * 4, s, i * 3);
      compose(M, p, i * 9, i * 3, parents[j] < 0 ? -1 : f * J + parents[j], M, p, local, 0, t, i * 3);
    }
  }
  return largestCoordinate(p);
}

/** World rotations `Q` and origins `p` of every frame and joint (without scales); returns the largest |coordinate|. */
function worldRotations(
  Q: Float64Array,
  p: Float64Array,
  q: Float64Array,
  t: Float64Array,
  parents: ArrayLike<number>,
  F: number,
  J: number,
  unit: boolean,
): number {
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const i = f * J + j;
      composeRotation(
        Q,
        p,
        i * 4,
        i * 3,
        parents[j] < 0 ? -1 : f * J + parents[j],
        Q,
        p,
        q,
        i * 4,
        t,
        i * 3,
        unit,
      );
    }
  }
  return largestCoordinate(p);
}

function largestCoordinate(p: Float64Array): number {
  let extent = 0;
  for (let i = 0; i < p.length; i++) extent = Math.max(extent, Math.abs(p[i]));
  return extent;
}

/** The CUBICSPLINE tracks' in- and out-tangents at their key frames, frame-major per component (empty without one). */
function keyedTangents(
  keyed: KeyedFrames,
  F: number,
  J: number,
): { in: Float64Array[]; out: Float64Array[] } {
  const any = keyed.interpolation.includes(CUBIC);
  const make = (w: number) => new Float64Array(any ? F * J * w : 0);
  const tin = [make(3), make(4), make(3)];
  const tout = [make(3), make(4), make(3)];
  for (let at = 0; at < J * 3; at++) {
    if (keyed.interpolation[at] !== CUBIC) continue;
    const track = keyed.tracks[at]!;
    const own = keyed.keys[at]!;
    const w = track.width;
    const j = (at / 3) | 0;
    const component = at % 3;
    for (let k = 0; k < own.length; k++) {
      const o = (own[k] * J + j) * w;
      for (let c = 0; c < w; c++) {
        tin[component][o + c] = track.values[3 * k * w + c];
        tout[component][o + c] = track.values[(3 * k + 2) * w + c];
      }
    }
  }
  return { in: tin, out: tout };
}

/** {@link Prepared.shellReach}: per frame, children before parents, `max(shell_j, max_k max|s_k|·reach_k)`. */
function scaledShellReach(
  parents: Int32Array,
  shells: Float64Array,
  s: Float64Array,
  F: number,
): Float64Array {
  const J = shells.length;
  const out = new Float64Array(F * J);
  for (let f = 0; f < F; f++) {
    const o = f * J;
    out.set(shells, o);
    for (let k = J - 1; k >= 0; k--) {
      const a = parents[k];
      if (a < 0) continue;
      const i = (o + k) * 3;
      const g = Math.max(Math.abs(s[i]), Math.abs(s[i + 1]), Math.abs(s[i + 2]));
      if (g * out[o + k] > out[o + a]) out[o + a] = g * out[o + k];
    }
  }
  return out;
}

/** The inverse of the row-major 3x3 `m[o..]` into `out`; false when it is singular (or nearly). */
export function invert3(out: Float64Array, m: Float64Array, o: number): boolean {
  const a = m[o];
  const b = m[o + 1];
  const c = m[o + 2];
  const d = m[o + 3];
  const e = m[o + 4];
  const f = m[o + 5];
  const g = m[o + 6];
  const h = m[o + 7];
  const i = m[o + 8];
  const A = e * i - f * h;
  const B = f * g - d * i;
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const scale = Math.max(
    Math.abs(a),
    Math.abs(b),
    Math.abs(c),
    Math.abs(d),
    Math.abs(e),
    Math.abs(f),
    Math.abs(g),
    Math.abs(h),
    Math.abs(i),
  );
  if (!(Math.abs(det) > 1e-12 * scale * scale * scale)) return false;
  const k = 1 / det;
  out[0] = A * k;
  out[1] = (c * h - b * i) * k;
  out[2] = (b * f - c * e) * k;
  out[3] = B * k;
  out[4] = (a * i - c * g) * k;
  out[5] = (c * d - a * f) * k;
  out[6] = C * k;
  out[7] = (b * g - a * h) * k;
  out[8] = (a * e - b * d) * k;
  return true;
}

/** Central differences per second (one-sided at the ends), frame-major. */
function derivative(v: Float64Array, F: number, J: number, w: number, dt: number): Float64Array {
  const out = new Float64Array(v.length);
  if (F < 2) return out;
  const stride = J * w;
  for (let f = 0; f < F; f++) {
    const a = f === 0 ? 0 : f - 1;
    const b = f === F - 1 ? F - 1 : f + 1;
    const inv = 1 / ((b - a) * dt);
    for (let i = 0; i < stride; i++) out[f * stride + i] = (v[b * stride + i] - v[a * stride + i]) * inv;
  }
  return out;
}

/** Hierarchical radius `ρ_j` (see {@link reduceKeys}), from each joint's own shell in its local units. */
export function radii(d: Prepared): Float64Array {
  const { J, F, parents, t, s } = d;
  const rho = Float64Array.from(d.shells);
  for (let k = J - 1; k >= 0; k--) {
    const a = parents[k];
    if (a < 0) continue;
    let worst = 0;
    for (let f = 0; f < F; f++) {
      const i = (f * J + k) * 3;
      const reach =
        Math.sqrt(t[i] * t[i] + t[i + 1] * t[i + 1] + t[i + 2] * t[i + 2]) +
        Math.max(Math.abs(s[i]), Math.abs(s[i + 1]), Math.abs(s[i + 2])) * rho[k];
      if (reach > worst) worst = reach;
    }
    if (worst > rho[a]) rho[a] = worst;
  }
  return rho;
}

/**
 * The fraction of the tolerance each joint's check may use (see {@link reduceKeys}): `1 − 2^-(depth+1)`,
 * 1 at leaves. A joint's share is above its parent's, so a child keeping every key (which carries only
 * its parent's error: with 16-bit keys the search compares against the pose of every key rounded, see
 * {@link quantizedReference}) stays within its own.
 */
export function errorShares(d: Prepared): Float64Array {
  const { J } = d;
  const share = new Float64Array(J);
  for (let j = 0; j < J; j++) share[j] = d.leaf[j] ? 1 : 1 - 2 ** -(d.depth[j] + 1);
  return share;
}
