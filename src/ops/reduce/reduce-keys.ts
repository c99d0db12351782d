/**
 * Keyframe reduction with a guaranteed error bound.
 *
 * @module
 */
import { OptionError, ShapeError } from '../../errors.js';
import { checkOptions } from '../../options.js';
import { slerpFlat } from '../../quat/core.js';
import type { Clip, Interpolation, KeyedClip, Track } from '../../series/clip.js';
import { ANIMATED_ROTATION, ANIMATED_SCALE, ANIMATED_TRANSLATION } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';

/** How reduction error is measured. */
export type ReduceMetric = 'local' | 'object';

/** Search effort of {@link reduceKeys}: `'fast'` or `'best'` (fewer keys, slower). */
export type ReduceEffort = 'fast' | 'best';

/** Named settings from the game-engine references, in metres (scaled by `unitsPerMeter`). */
export type ReducePreset = 'acl' | 'ozz';

/** Options of {@link reduceKeys}. */
export interface ReduceKeysOptions {
  /**
   * `'object'` (default): virtual vertices at `shellDistance` from every joint, carried through the
   * hierarchy to object space (ACL's and ozz's notion); `'local'`: each channel on its own (rotation angle,
   * translation distance, relative scale; gltfpack's and glTF-Transform's notion).
   */
  metric?: ReduceMetric;
  /**
   * Sets `shellDistance` and `tolerance` for the `'object'` metric: `'acl'` = 3 cm shell, 0.01 cm;
   * `'ozz'` = 10 cm shell, 1 mm; both in metres times `unitsPerMeter`. Explicit values win.
   */
  preset?: ReducePreset;
  /** Clip units per metre, for presets: 1 for glTF (metres), 100 for most BVH files (centimetres). Default 1. */
  unitsPerMeter?: number;
  /** Largest object-space error, in the clip's units (`'object'`), or translation error (`'local'`). Default: the preset's, else 1e-4. */
  tolerance?: number;
  /** Distance of the virtual vertices from each joint, in the clip's units. Default: the preset's, else 0.03. */
  shellDistance?: number;
  /** `'local'` metric: largest rotation error in radians. Default 1e-3 (0.057°). */
  toleranceAngle?: number;
  /** `'local'` metric: largest relative scale error. Default 1e-4. */
  toleranceScale?: number;
  /** What the player evaluates between the kept keys: `'linear'` (slerp/lerp; default) or `'cubicspline'`. */
  interpolation?: 'linear' | 'cubicspline';
  /** Rotation key values as stored: `'none'` (float) or `'int16'` (normalised SHORT, `KHR_mesh_quantization`); the bound includes the rounding. */
  quantization?: 'none' | 'int16';
  /**
   * How hard the `'object'` search works: `'fast'` (default) keeps key values at the original samples and
   * bounds descendants by the hierarchical radius; `'best'` also checks the descendants' points where the
   * radius bound fails (clips without scale) and fits rotation key values within the bound (linear player,
   * clips without scale): fewer keys (10 to 14% on the CMU captures at 0.01 cm), about twice the time.
   */
  effort?: ReduceEffort;
  /**
   * Key budget: at most this many keys per track. The smallest tolerance (to 0.1%) whose reduction fits
   * is found by bisection; `tolerance` is then the upper end of the search. Default: no budget.
   */
  maxKeys?: number;
}

/** Defaults of {@link ReduceKeysOptions}. `tolerance` and `shellDistance` follow the preset when one is set. */
export const REDUCE_KEYS_DEFAULTS: Required<Omit<ReduceKeysOptions, 'preset' | 'maxKeys'>> & {
  preset: ReducePreset | null;
  maxKeys: number;
} = {
  metric: 'object',
  preset: null,
  unitsPerMeter: 1,
  tolerance: 1e-4,
  shellDistance: 0.03,
  toleranceAngle: 1e-3,
  toleranceScale: 1e-4,
  interpolation: 'linear',
  quantization: 'none',
  effort: 'fast',
  maxKeys: Number.POSITIVE_INFINITY,
};

const PRESETS: Record<ReducePreset, { shell: number; tolerance: number }> = {
  acl: { shell: 0.03, tolerance: 0.0001 },
  ozz: { shell: 0.1, tolerance: 0.001 },
};

/** What {@link reduceKeys} achieved. */
export interface ReduceKeysReport {
  metric: ReduceMetric;
  /** The tolerance the reduction held (after presets, units and the key budget's search). */
  tolerance: number;
  shellDistance: number;
  /** Keys before (frames per animated track, summed) and after. */
  keysBefore: number;
  keysAfter: number;
  tracks: number;
  /**
   * Largest error over every joint and original frame: for `'object'`, the largest displacement of a
   * virtual vertex (six per joint, ± each local axis at `shellDistance`); for `'local'`, the largest
   * translation error. Never above `tolerance`.
   */
  maxError: number;
  /** 99th percentile of the per-joint, per-frame errors `maxError` is the maximum of. */
  p99Error: number;
  /** `'local'` metric: largest rotation error (radians) and relative scale error. */
  maxAngle: number;
  maxScaleError: number;
  quantization: 'none' | 'int16';
}

/** Result of {@link reduceKeys}: the keyed clip and its report. */
export interface ReduceKeysResult {
  clip: KeyedClip;
  report: ReduceKeysReport;
}

interface Resolved {
  metric: ReduceMetric;
  tolerance: number;
  shell: number;
  toleranceAngle: number;
  toleranceScale: number;
  interpolation: 'linear' | 'cubicspline';
  quantization: 'none' | 'int16';
  effort: ReduceEffort;
  maxKeys: number;
}

function positiveFinite(v: unknown, name: string): number {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) {
    throw new OptionError(`reduceKeys: ${name} must be a positive finite number, got ${String(v)}`);
  }
  return v;
}

function resolve(options: ReduceKeysOptions): Resolved {
  checkOptions(options, REDUCE_KEYS_DEFAULTS, 'reduceKeys');
  const o = { ...REDUCE_KEYS_DEFAULTS, ...options };
  if (o.metric !== 'local' && o.metric !== 'object') {
    throw new OptionError(`reduceKeys: metric must be 'local' or 'object', got '${String(o.metric)}'`);
  }
  const upm = positiveFinite(o.unitsPerMeter, 'unitsPerMeter');
  let tolerance = o.tolerance;
  let shell = o.shellDistance;
  if (o.preset !== null && o.preset !== undefined) {
    const preset = PRESETS[o.preset];
    if (preset === undefined)
      throw new OptionError(`reduceKeys: preset must be 'acl' or 'ozz', got '${String(o.preset)}'`);
    if (options.tolerance === undefined) tolerance = preset.tolerance * upm;
    if (options.shellDistance === undefined) shell = preset.shell * upm;
  }
  positiveFinite(tolerance, 'tolerance');
  positiveFinite(shell, 'shellDistance');
  positiveFinite(o.toleranceAngle, 'toleranceAngle');
  positiveFinite(o.toleranceScale, 'toleranceScale');
  if (o.interpolation !== 'linear' && o.interpolation !== 'cubicspline') {
    throw new OptionError(
      `reduceKeys: interpolation must be 'linear' or 'cubicspline', got '${String(o.interpolation)}'`,
    );
  }
  if (o.quantization !== 'none' && o.quantization !== 'int16') {
    throw new OptionError(
      `reduceKeys: quantization must be 'none' or 'int16', got '${String(o.quantization)}'`,
    );
  }
  if (o.quantization === 'int16' && o.interpolation === 'cubicspline') {
    throw new OptionError(
      "reduceKeys: quantization 'int16' needs interpolation 'linear' (cubic tangents leave the normalised range)",
    );
  }
  if (o.effort !== 'fast' && o.effort !== 'best') {
    throw new OptionError(`reduceKeys: effort must be 'fast' or 'best', got '${String(o.effort)}'`);
  }
  const maxKeys = o.maxKeys;
  if (!(maxKeys === Number.POSITIVE_INFINITY || (Number.isInteger(maxKeys) && maxKeys >= 2))) {
    throw new OptionError(`reduceKeys: maxKeys must be an integer of at least 2, got ${String(maxKeys)}`);
  }
  return {
    metric: o.metric,
    tolerance,
    shell,
    toleranceAngle: o.toleranceAngle,
    toleranceScale: o.toleranceScale,
    interpolation: o.interpolation,
    quantization: o.quantization,
    effort: o.effort,
    maxKeys,
  };
}

/**
 * Reduces a uniformly sampled clip to keys that a glTF player evaluates within a guaranteed error of the
 * original at every original frame time.
 *
 * Method. Joints are reduced parents first. Each animated component (rotation, translation, scale) keeps
 * the keys of a greedy pass that extends every segment as far as the check allows (doubling, then
 * bisection between the last length that passed and the first that failed); only lengths that pass are
 * ever kept, so the bound holds whatever the error's shape. Keys stay on the original grid; their values
 * are the original samples (quantised when asked), except rotations with `effort: 'best'` (below).
 *
 * - `'object'`: with the ancestors already reduced, joint `j`'s world transform `(M, p)` (3x3 linear part
 *   with scale, origin) is compared with the original's at every frame. The displacement of any point at
 *   local offset `y` is at most `|Δp| + ‖ΔM‖·|y|` (spectral norm; `‖ΔM‖_F/√2` is exact for rotations
 *   when no scale is animated, `‖ΔM‖_F` bounds it otherwise). Checking `|Δp| + ‖ΔM‖·ρ_j ≤ w_j·tolerance`,
 *   where `ρ_j` is the hierarchical radius (the shell, or the farthest descendant's shell through the
 *   original animation: `ρ_j = max(shell, max over children k and frames of |t_k| + max|s_k|·ρ_k)`),
 *   bounds the joint's own virtual vertices and leaves every descendant room. The shares `w_j` grow with
 *   depth (`1 − 2^-(depth+1)`, 1 at leaves; with 16-bit keys each joint first gets the share its own
 *   rounding needs, reserved along the deepest chain below it), and keeping all of a child's keys only
 *   carries its parent's error, which is within the parent's smaller share. So every joint's vertices
 *   end within `tolerance`. When no scale is animated, rotations are checked on quaternions: the world
 *   rotation error of a candidate `q` has spectral norm `2·√(1 − (q·(P*⊗W))²)`, with `P` the reduced
 *   parent's and `W` the original world rotation, so no matrix is built per candidate.
 *   The report measures six vertices per joint (± each local axis at `shellDistance`), like ACL.
 * - `'local'`: each track on its own: rotation angle, translation distance, relative scale.
 *
 * `effort: 'best'` (`'object'` metric, clips without scale) adds two things. Where the radius bound fails
 * at a frame, the frame is checked on the points themselves: the joint's origin and every descendant's,
 * posed as in the original, each displaced by `|Δp + ΔM·y_k|`, plus `‖ΔM‖·shell`; this is never above
 * the radius bound, and a descendant keeping all its keys sees the same points displaced as much, so
 * descendants stay feasible. And (linear player) rotation keys take fitted values: from the last key `K`,
 * a key at frame `e` is aimed, in the tangent space at `K`, at the intersection of the balls each frame
 * between allows (a few projections onto the most violated ball), then verified exactly like a sample;
 * the sample is tried when the fitted value fails, so every joint stays as feasible as with samples.
 * The bound and its proof are unchanged; only which candidates are tried differs.
 *
 * Interpolation: `'linear'` is slerp on the shorter arc (keys written sign-continuous) and lerp;
 * `'cubicspline'` is glTF's Hermite spline with tangents from the original samples' central differences
 * (rotations normalised after). With `quantization: 'int16'` rotation keys are rounded to normalised
 * 16-bit values first and players are assumed to normalise after interpolating (three.js, Babylon and
 * glTF-Transform do for quantised rotations); the bound includes the rounding.
 *
 * Sources: ACL's error metric (N. Frechette, "Animation Compression Library", virtual vertices 3 cm from
 * each bone) and ozz-animation's hierarchical tolerance (`animation_optimizer.cc`).
 *
 * @throws {OptionError} on bad options (zero or negative tolerance, a tolerance below what the clip's
 * float64 numbers resolve, unknown names). @throws {ShapeError} on a malformed clip. @throws
 * {InvalidValueError} on non-finite data.
 * @example
 * const { clip: keyed, report } = reduceKeys(parseBvh(text), { preset: 'acl', unitsPerMeter: 100 });
 * report.maxError <= report.tolerance; // true, always
 */
export function reduceKeys(clip: Clip, options: ReduceKeysOptions = {}): ReduceKeysResult {
  const o = resolve(options);
  assertClip(clip, 'reduceKeys: clip');
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  assertFiniteSeries(clip.rotations.data, J, 4, 'reduceKeys: clip.rotations');
  assertFiniteSeries(clip.translations.data, J, 3, 'reduceKeys: clip.translations');
  if (clip.scales) assertFiniteSeries(clip.scales.data, J, 3, 'reduceKeys: clip.scales');
  const data = prepare(clip, o.interpolation === 'cubicspline', o.effort === 'best' && o.metric === 'object');
  // below this, float64 round-off in the clip's own numbers decides, not the keys
  const floor = 1e-12 * Math.max(1, data.extent);
  if (o.metric === 'object' && o.tolerance < floor) {
    throw new OptionError(
      `reduceKeys: tolerance ${o.tolerance} is below what the clip's numbers resolve (${floor.toExponential(1)} in its units)`,
    );
  }
  if (F < 2) {
    // one frame: one key per animated component, exact
    return finish(clip, data, o, allKeys(J, F, clip.animated));
  }
  if (o.maxKeys === Number.POSITIVE_INFINITY) {
    const reduction = reduceAll(clip, data, o);
    return finish(clip, data, o, reduction.keys, reduction);
  }
  // key budget: bisection on the tolerance between 0 and the given one
  let hi = o.metric === 'object' ? o.tolerance : 1;
  let best = reduceAll(clip, data, { ...o, ...scaled(o, hi) });
  if (maxTrackKeys(best.keys) > o.maxKeys) {
    throw new OptionError(
      `reduceKeys: even tolerance ${hi} needs ${maxTrackKeys(best.keys)} keys in a track; raise tolerance`,
    );
  }
  let lo = 0;
  let bestScale = hi;
  for (let it = 0; it < 40 && hi - lo > 1e-3 * hi; it++) {
    const mid = (lo + hi) / 2;
    if (!(mid > floor)) break;
    const reduction = reduceAll(clip, data, { ...o, ...scaled(o, mid) });
    if (maxTrackKeys(reduction.keys) <= o.maxKeys) {
      hi = mid;
      best = reduction;
      bestScale = mid;
    } else lo = mid;
  }
  return finish(clip, data, { ...o, ...scaled(o, bestScale) }, best.keys, best);
}

/** The tolerances for a bisection step: `'object'` scales `tolerance`, `'local'` all three by `s`. */
function scaled(o: Resolved, s: number): Partial<Resolved> {
  if (o.metric === 'object') return { tolerance: s };
  return {
    tolerance: o.tolerance * s,
    toleranceAngle: o.toleranceAngle * s,
    toleranceScale: o.toleranceScale * s,
  };
}

/** Kept frame indices per joint and component (0 translation, 1 rotation, 2 scale); null where not animated. */
type KeySets = (Int32Array | null)[][];

function maxTrackKeys(keys: KeySets): number {
  let m = 0;
  for (const joint of keys) for (const k of joint) if (k) m = Math.max(m, k.length);
  return m;
}

function allKeys(J: number, F: number, animated: Uint8Array): KeySets {
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
interface Prepared {
  J: number;
  F: number;
  parents: Int32Array;
  /** Local translation, rotation (continuous), scale: frame-major like the clip. */
  t: Float64Array;
  q: Float64Array;
  s: Float64Array;
  /** World linear part (row-major 3x3) and origin of the original, frame-major. */
  M: Float64Array;
  p: Float64Array;
  /** World rotation of the original as quaternions (x, y, z, w), frame-major; filled only when `!scaled`. */
  Q: Float64Array;
  /** Whether any scale differs from 1 (then ‖ΔM‖_F bounds the spectral norm, else ‖ΔM‖_F/√2 is exact). */
  scaled: boolean;
  /** Whether every rotation is a unit quaternion to 1e-12 (the quaternion fast path needs it). */
  unit: boolean;
  depth: Int32Array;
  height: Int32Array;
  leaf: Uint8Array;
  /** Every joint's descendants (all levels; effort 'best' only, else none), as a list: joint `j`'s are `below[belowStart[j] .. belowStart[j + 1]]`. */
  below: Int32Array;
  belowStart: Int32Array;
  /**
   * Per frame and joint (frame-major), the largest distance from the joint's origin to any descendant's
   * in the original pose: `|y_k|` of {@link descendantsHold}, so `|Δp| + ‖ΔM‖·(reach + shell)` bounds it
   * per frame. Filled for effort 'best' on clips without scale (else empty).
   */
  reach: Float64Array;
  /** Largest |coordinate| of any world position: the clip's extent, for the precision floor. */
  extent: number;
  /** Rotation tangents (per second) for cubic splines, from central differences. */
  dq: Float64Array;
  dt: Float64Array;
  ds: Float64Array;
  frameTime: number;
}

function prepare(clip: Clip, cubic: boolean, points: boolean): Prepared {
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  const parents = clip.skeleton.parents;
  const q = Float64Array.from(clip.rotations.data);
  // sign-continuous rotations, so interpolation between any two kept keys takes the path the data took
  for (let j = 0; j < J; j++) {
    for (let f = 1; f < F; f++) {
      const a = ((f - 1) * J + j) * 4;
      const b = (f * J + j) * 4;
      if (q[a] * q[b] + q[a + 1] * q[b + 1] + q[a + 2] * q[b + 2] + q[a + 3] * q[b + 3] < 0) {
        for (let c = 0; c < 4; c++) q[b + c] = -q[b + c];
      }
    }
  }
  const t = Float64Array.from(clip.translations.data);
  const s = new Float64Array(F * J * 3);
  if (clip.scales) s.set(clip.scales.data);
  else for (let f = 0; f < F; f++) s.set(clip.skeleton.restScales, f * J * 3);
  let scaledAny = false;
  for (let i = 0; i < s.length; i++) if (s[i] !== 1) scaledAny = true;
  // the quaternion check matches the matrices only for unit quaternions (a float32 file's are not, to 1e-7)
  let unit = true;
  for (let i = 0; i < q.length; i += 4) {
    const n = q[i] * q[i] + q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2] + q[i + 3] * q[i + 3];
    if (Math.abs(n - 1) > 1e-12) unit = false;
  }
  const M = new Float64Array(F * J * 9);
  const p = new Float64Array(F * J * 3);
  const Q = new Float64Array(scaledAny ? 0 : F * J * 4);
  if (!scaledAny) {
    for (let f = 0; f < F; f++) {
      for (let j = 0; j < J; j++) {
        const i = (f * J + j) * 4;
        if (parents[j] < 0) for (let c = 0; c < 4; c++) Q[i + c] = q[i + c];
        else quatMul(Q, i, Q, (f * J + parents[j]) * 4, q, i);
      }
    }
  }
  const local = new Float64Array(9);
  let extent = 0;
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      localMatrix(local, 0, q, (f * J + j) * 4, s, (f * J + j) * 3);
      compose(
        M,
        p,
        (f * J + j) * 9,
        (f * J + j) * 3,
        parents[j] < 0 ? -1 : f * J + parents[j],
        M,
        p,
        local,
        0,
        t,
        (f * J + j) * 3,
      );
      for (let c = 0; c < 3; c++) extent = Math.max(extent, Math.abs(p[(f * J + j) * 3 + c]));
    }
  }
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
  const reach = new Float64Array(scaledAny || !points ? 0 : F * J);
  if (points && !scaledAny) {
    for (let f = 0; f < F; f++) {
      for (let k = 0; k < J; k++) {
        const pk = (f * J + k) * 3;
        for (let a = parents[k]; a >= 0; a = parents[a]) {
          const pa = (f * J + a) * 3;
          const dx = p[pk] - p[pa];
          const dy = p[pk + 1] - p[pa + 1];
          const dz = p[pk + 2] - p[pa + 2];
          const r = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (r > reach[f * J + a]) reach[f * J + a] = r;
        }
      }
    }
  }
  const dt = clip.frameTime;
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
    extent,
    // tangents only for cubic splines
    dq: cubic ? derivative(q, F, J, 4, dt) : q,
    dt: cubic ? derivative(t, F, J, 3, dt) : t,
    ds: cubic ? derivative(s, F, J, 3, dt) : s,
    frameTime: dt,
  };
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

/** Hamilton product `a[ao..] ⊗ b[bo..]` into `out[o..]` (x, y, z, w; `R(a ⊗ b) = R(a)·R(b)`). */
function quatMul(
  out: Float64Array,
  o: number,
  a: Float64Array,
  ao: number,
  b: ArrayLike<number>,
  bo: number,
): void {
  const ax = a[ao];
  const ay = a[ao + 1];
  const az = a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Row-major `R·S` of quaternion `q[qo..]` and scale `s[so..]` into `out[o..]`. */
function localMatrix(
  out: Float64Array,
  o: number,
  q: ArrayLike<number>,
  qo: number,
  s: ArrayLike<number>,
  so: number,
): void {
  // toMatrixFlat's formula (normalising), inline: this runs for every joint and frame several times
  const x = q[qo];
  const y = q[qo + 1];
  const z = q[qo + 2];
  const w = q[qo + 3];
  const k = 2 / (x * x + y * y + z * z + w * w);
  const xx = x * x * k;
  const yy = y * y * k;
  const zz = z * z * k;
  const xy = x * y * k;
  const xz = x * z * k;
  const yz = y * z * k;
  const wx = w * x * k;
  const wy = w * y * k;
  const wz = w * z * k;
  const sx = s[so];
  const sy = s[so + 1];
  const sz = s[so + 2];
  out[o] = (1 - yy - zz) * sx;
  out[o + 1] = (xy - wz) * sy;
  out[o + 2] = (xz + wy) * sz;
  out[o + 3] = (xy + wz) * sx;
  out[o + 4] = (1 - xx - zz) * sy;
  out[o + 5] = (yz - wx) * sz;
  out[o + 6] = (xz - wy) * sx;
  out[o + 7] = (yz + wx) * sy;
  out[o + 8] = (1 - xx - yy) * sz;
}

/**
 * World transform of a joint: `M = M_parent · L`, `p = p_parent + M_parent · t` (`parent` -1: `M = L`, `p = t`),
 * written at `M[mo..]`, `p[po..]`; the parent's is read at item `parent` of `PM`/`Pp`.
 */
function compose(
  M: Float64Array,
  p: Float64Array,
  mo: number,
  po: number,
  parent: number,
  PM: Float64Array,
  Pp: Float64Array,
  L: Float64Array,
  lo: number,
  t: ArrayLike<number>,
  to: number,
): void {
  if (parent < 0) {
    for (let i = 0; i < 9; i++) M[mo + i] = L[lo + i];
    p[po] = t[to];
    p[po + 1] = t[to + 1];
    p[po + 2] = t[to + 2];
    return;
  }
  const a = parent * 9;
  const b = parent * 3;
  const x = t[to];
  const y = t[to + 1];
  const z = t[to + 2];
  const px = Pp[b] + PM[a] * x + PM[a + 1] * y + PM[a + 2] * z;
  const py = Pp[b + 1] + PM[a + 3] * x + PM[a + 4] * y + PM[a + 5] * z;
  const pz = Pp[b + 2] + PM[a + 6] * x + PM[a + 7] * y + PM[a + 8] * z;
  for (let r = 0; r < 3; r++) {
    const m0 = PM[a + r * 3];
    const m1 = PM[a + r * 3 + 1];
    const m2 = PM[a + r * 3 + 2];
    const l0 = L[lo];
    M[mo + r * 3] = m0 * l0 + m1 * L[lo + 3] + m2 * L[lo + 6];
    M[mo + r * 3 + 1] = m0 * L[lo + 1] + m1 * L[lo + 4] + m2 * L[lo + 7];
    M[mo + r * 3 + 2] = m0 * L[lo + 2] + m1 * L[lo + 5] + m2 * L[lo + 8];
  }
  p[po] = px;
  p[po + 1] = py;
  p[po + 2] = pz;
}

/** Hierarchical radius `ρ_j` (see {@link reduceKeys}). */
function radii(d: Prepared, shell: number): Float64Array {
  const { J, F, parents, t, s } = d;
  const rho = new Float64Array(J).fill(shell);
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

/** Spectral norm of the rotation error a 16-bit rounding of a unit quaternion can make: `2·sin(θ/2) ≤ |Δq|·2`, `|Δq| ≤ √4·0.5/32767`, with slack. */
const INT16_ROTATION_ERROR = 2.05 / 32767;

/**
 * The fraction of the tolerance each joint's check may use (see {@link reduceKeys}). Each joint takes its
 * parent's share, its own floor `m_j` (what the 16-bit rounding of its rotation alone can cost,
 * `ρ_j·2.05/32767` over the tolerance; 0 without quantisation) and half of what is left after the
 * floors reserved for its deepest chain of descendants; leaves take all (1). Without quantisation this
 * is `1 − 2^-(depth+1)`; the floors keep deep hierarchies (faces, fingers) feasible with 16-bit keys.
 */
function errorShares(d: Prepared, o: Resolved, rho: Float64Array): Float64Array {
  const { J, parents } = d;
  const floor = new Float64Array(J);
  if (o.quantization === 'int16')
    for (let j = 0; j < J; j++) floor[j] = (rho[j] * INT16_ROTATION_ERROR) / o.tolerance;
  // reserve[j]: the largest sum of floors along a chain strictly below j
  const reserve = new Float64Array(J);
  for (let j = J - 1; j >= 0; j--) {
    const a = parents[j];
    if (a >= 0 && floor[j] + reserve[j] > reserve[a]) reserve[a] = floor[j] + reserve[j];
  }
  const share = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    const base = parents[j] < 0 ? 0 : share[parents[j]];
    if (d.leaf[j]) share[j] = 1;
    else share[j] = base + floor[j] + Math.max(0, 1 - base - floor[j] - reserve[j]) / 2;
  }
  return share;
}

/** The reduction state of one joint: its candidate local TRS per frame and the reduced parent's world transform. */
interface JointState {
  /** Local translation, rotation, scale of the joint per frame (reduced as components are done). */
  lt: Float64Array;
  lq: Float64Array;
  ls: Float64Array;
  /** Reduced world transforms of every joint, per frame (filled parents first). */
  RM: Float64Array;
  Rp: Float64Array;
  /** Reduced world rotations as quaternions, when the clip has no scale (the rotation fast path). */
  RQ: Float64Array;
}

/**
 * What {@link reduceAll} found: the kept keys, and what a player evaluates from them at every original
 * frame (local TRS, frame-major, and the world transforms they compose to), which the report measures.
 */
interface Reduction {
  keys: KeySets;
  /** Per joint: its rotation keys' values (x, y, z, w per kept key) when they are fitted, else null (the samples). */
  rotationValues: (Float64Array | null)[];
  lt: Float64Array;
  lq: Float64Array;
  ls: Float64Array;
  RM: Float64Array;
  Rp: Float64Array;
}

function reduceAll(clip: Clip, d: Prepared, o: Resolved): Reduction {
  const { J, F } = d;
  const out: KeySets = [];
  // the local values the player evaluates, kept for the 'local' report ('object' measures world transforms)
  const keep = o.metric === 'local' ? F * J : 0;
  const played = {
    lt: new Float64Array(keep * 3),
    lq: new Float64Array(keep * 4),
    ls: new Float64Array(keep * 3),
  };
  const rho = o.metric === 'object' ? radii(d, o.shell) : new Float64Array(J);
  const shares = o.metric === 'object' ? errorShares(d, o, rho) : new Float64Array(J).fill(1);
  const state: JointState = {
    lt: new Float64Array(F * 3),
    lq: new Float64Array(F * 4),
    ls: new Float64Array(F * 3),
    RM: new Float64Array(F * J * 9),
    Rp: new Float64Array(F * J * 3),
    RQ: new Float64Array(d.scaled ? 0 : F * J * 4),
  };
  // the rotation fast path: object metric, linear player, no scale anywhere, unit quaternions
  const fast = o.metric === 'object' && o.interpolation === 'linear' && !d.scaled && d.unit;
  const target = new Float64Array(fast ? F * 4 : 0);
  const offset = new Float64Array(fast ? F : 0);
  const delta = new Float64Array(fast ? F * 3 : 0);
  // descendants' points are checked one by one where the radius bound fails (rigid joints only)
  const points = o.effort === 'best' && o.metric === 'object' && !d.scaled;
  const world = new Float64Array(9);
  const fitted = fast && o.effort === 'best';
  const values = new Float64Array(fitted ? F * 4 : 0);
  const fit = new Float64Array(fitted ? F * 4 : 0);
  const rotationValues: (Float64Array | null)[] = [];
  const L = new Float64Array(9);
  const scratch = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    // the joint's exact local values, one component replaced by its keys at a time
    gatherJoint(state.lt, d.t, F, J, j, 3);
    gatherJoint(state.lq, d.q, F, J, j, 4);
    // without scales every value is 1: gathered again only after a joint whose scale keys were evaluated
    if (d.scaled || j === 0 || clip.animated[j - 1] & ANIMATED_SCALE) gatherJoint(state.ls, d.s, F, J, j, 3);
    const share = shares[j];
    const check: Check = {
      name: clip.skeleton.names[j],
      d,
      o,
      j,
      state,
      limit: share * o.tolerance,
      rho: rho[j],
      L,
      scratch,
      fast,
      target,
      offset,
      delta,
      points: points && d.belowStart[j + 1] > d.belowStart[j],
      world,
      values,
      fit,
      fitStart: -1,
      fitUpTo: -1,
    };
    const keys: (Int32Array | null)[] = [null, null, null];
    const flags = clip.animated[j];
    // rotation first (it carries the largest lever), then translation, then scale
    for (const component of [1, 0, 2] as const) {
      const bit =
        component === 0 ? ANIMATED_TRANSLATION : component === 1 ? ANIMATED_ROTATION : ANIMATED_SCALE;
      if (!(flags & bit)) continue;
      if (component === 1 && fast) rotationTargets(check);
      if (component === 1 && fitted) {
        const kept = greedyFitted(check);
        keys[1] = kept;
        const stored = new Float64Array(kept.length * 4);
        for (let k = 0; k < kept.length; k++)
          for (let c = 0; c < 4; c++) stored[k * 4 + c] = values[kept[k] * 4 + c];
        rotationValues[j] = stored;
        applyValues(check, kept, stored);
        continue;
      }
      const kept = greedy(check, component);
      keys[component] = kept;
      apply(check, component, kept);
    }
    if (rotationValues.length === j) rotationValues.push(null);
    // the joint's reduced world transform, for its children
    for (let f = 0; f < F; f++) {
      localMatrix(L, 0, state.lq, f * 4, state.ls, f * 3);
      const parent = d.parents[j] < 0 ? -1 : f * J + d.parents[j];
      compose(
        state.RM,
        state.Rp,
        (f * J + j) * 9,
        (f * J + j) * 3,
        parent,
        state.RM,
        state.Rp,
        L,
        0,
        state.lt,
        f * 3,
      );
      if (fast) {
        const i = (f * J + j) * 4;
        if (d.parents[j] < 0) for (let c = 0; c < 4; c++) state.RQ[i + c] = state.lq[f * 4 + c];
        else quatMul(state.RQ, i, state.RQ, (f * J + d.parents[j]) * 4, state.lq, f * 4);
      }
    }
    out.push(keys);
    if (keep) {
      scatterJoint(played.lt, state.lt, F, J, j, 3);
      scatterJoint(played.lq, state.lq, F, J, j, 4);
      scatterJoint(played.ls, state.ls, F, J, j, 3);
    }
  }
  return { keys: out, rotationValues, ...played, RM: state.RM, Rp: state.Rp };
}

/** A per-frame array of joint `j`'s values into a frame-major one. */
function scatterJoint(
  dst: Float64Array,
  src: Float64Array,
  F: number,
  J: number,
  j: number,
  w: number,
): void {
  for (let f = 0; f < F; f++) {
    const a = (f * J + j) * w;
    const b = f * w;
    for (let c = 0; c < w; c++) dst[a + c] = src[b + c];
  }
}

/** Joint `j`'s values of a frame-major array into a per-frame one. */
function gatherJoint(dst: Float64Array, src: Float64Array, F: number, J: number, j: number, w: number): void {
  for (let f = 0; f < F; f++) {
    const a = (f * J + j) * w;
    const b = f * w;
    for (let c = 0; c < w; c++) dst[b + c] = src[a + c];
  }
}

interface Check {
  /** The joint's name, for messages. */
  name: string;
  d: Prepared;
  o: Resolved;
  j: number;
  state: JointState;
  limit: number;
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
function rotationTargets(check: Check): void {
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
      const pa = (f * J + parent) * 9;
      const pp = (f * J + parent) * 3;
      const RM = state.RM;
      const Rp = state.Rp;
      px = Rp[pp] + RM[pa] * x + RM[pa + 1] * y + RM[pa + 2] * z;
      py = Rp[pp + 1] + RM[pa + 3] * x + RM[pa + 4] * y + RM[pa + 5] * z;
      pz = Rp[pp + 2] + RM[pa + 6] * x + RM[pa + 7] * y + RM[pa + 8] * z;
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
 * `|Δp + C·y_k − (p_k − p_j)|`, and its vertices by at most `‖ΔM‖·shell` more (`norm` = `‖C − M‖`, spectral).
 * The joint's own vertices are the case `y = 0`. Every descendant's check, keeping all its keys, sees the
 * same points moved by the same amounts, so a joint that passes leaves each descendant feasible, as the
 * radius bound (`|Δp| + ‖ΔM‖·ρ_j`, never smaller) does. Rigid transforms only (`M` orthonormal).
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
  const M = d.M;
  const P = d.p;
  const mo = (f * J + j) * 9;
  const po = (f * J + j) * 3;
  const room = limit - norm * check.o.shell;
  if (!(room > 0)) return false;
  const room2 = room * room;
  if (ex * ex + ey * ey + ez * ez > room2) return false;
  const end = d.belowStart[j + 1];
  for (let n = d.belowStart[j]; n < end; n++) {
    const pk = (f * J + d.below[n]) * 3;
    const wx = P[pk] - P[po];
    const wy = P[pk + 1] - P[po + 1];
    const wz = P[pk + 2] - P[po + 2];
    const yx = M[mo] * wx + M[mo + 3] * wy + M[mo + 6] * wz;
    const yy = M[mo + 1] * wx + M[mo + 4] * wy + M[mo + 7] * wz;
    const yz = M[mo + 2] * wx + M[mo + 5] * wy + M[mo + 8] * wz;
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
  localMatrix(check.world, 0, q4, 0, UNIT_SCALE, 0);
  const delta = check.delta;
  return descendantsHold(check, f, delta[f * 3], delta[f * 3 + 1], delta[f * 3 + 2], norm, limit);
}

const UNIT_SCALE = Float64Array.of(1, 1, 1);
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
const keyB = new Float64Array(4);

/** Joint `j`'s rotation sample at frame `f` as stored (quantised when asked) into `out[o..]`. */
function sampleKey(out: Float64Array, o: number, d: Prepared, r: Resolved, j: number, f: number): void {
  const i = (f * d.J + j) * 4;
  const quantized = r.quantization === 'int16';
  for (let c = 0; c < 4; c++) out[o + c] = quantized ? quantize16(d.q[i + c]) : d.q[i + c];
}

/**
 * {@link segmentHolds} for a rotation on the fast path: the slerp between the (quantised) keys at `a`
 * and `b`, normalised, against `check.target` at every frame, with one angle per segment.
 */
function rotationHolds(check: Check, a: number, b: number, last: number): boolean {
  const { d, j } = check;
  const ia = (a * d.J + j) * 4;
  const ib = (b * d.J + j) * 4;
  if (check.o.quantization !== 'int16') return rotationSpanHolds(check, d.q, ia, d.q, ib, a, b, last);
  // the stored (rounded) values
  for (let c = 0; c < 4; c++) {
    keyA[c] = quantize16(d.q[ia + c]);
    keyB[c] = quantize16(d.q[ib + c]);
  }
  return rotationSpanHolds(check, keyA, 0, keyB, 0, a, b, last);
}

/**
 * {@link rotationHolds} for given key values: `ka[kao..]` at frame `a`, `kb[kbo..]` at `b` (as stored:
 * not necessarily unit); `a === b`: frames `a` to `last` hold `ka`. Arrays, not numbers: doubles passed
 * to a call that is not inlined are boxed.
 */
function rotationSpanHolds(
  check: Check,
  ka: Float64Array,
  kao: number,
  kb: Float64Array,
  kbo: number,
  a: number,
  b: number,
  last: number,
): boolean {
  const { target, offset, j } = check;
  const J = check.d.J;
  const reach = check.d.reach;
  const shell = check.o.shell;
  const limit = check.limit * FAST_MARGIN;
  const rho = check.rho;
  let ax = ka[kao];
  let ay = ka[kao + 1];
  let az = ka[kao + 2];
  let aw = ka[kao + 3];
  if (a === b) {
    // the key held: frames a..last see one (normalised) value
    const n = 1 / Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);
    ax *= n;
    ay *= n;
    az *= n;
    aw *= n;
    for (let f = a; f <= last; f++) {
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
  const dot = ax * bx + ay * by + az * bz + aw * bw;
  if (dot < 0) {
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  // the angle between the keys on the 4-sphere, as slerpFlat takes it
  const mx = ax - bx;
  const my = ay - by;
  const mz = az - bz;
  const mw = aw - bw;
  const sx = ax + bx;
  const sy = ay + by;
  const sz = az + bz;
  const sw = aw + bw;
  const theta =
    2 *
    Math.atan2(
      Math.sqrt(mx * mx + my * my + mz * mz + mw * mw),
      Math.sqrt(sx * sx + sy * sy + sz * sz + sw * sw),
    );
  const small = theta < 1e-10;
  const inv = small ? 1 : 1 / Math.sin(theta);
  const span = 1 / (b - a);
  for (let f = a + 1; f <= last; f++) {
    const u = (f - a) * span;
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

/**
 * Kept frames of joint `check.j`'s rotation with fitted key values (into `check.values` at the kept
 * frames): greedy longest segments from the last key's value, each end trying a fitted value
 * ({@link fitKey}) and then the sample, each verified exactly by {@link rotationSpanHolds}. The sample
 * fallback keeps every joint as feasible as with sample keys.
 */
function greedyFitted(check: Check): Int32Array {
  const { d, o, j, values } = check;
  const F = d.F;
  sampleKey(values, 0, d, o, j, 0);
  if (!rotationSpanHolds(check, values, 0, values, 0, 0, 0, 0)) infeasible(check, 0);
  const kept: number[] = [0];
  let i = 0;
  while (i < F - 1) {
    if (!spanTry(check, i, i + 1)) infeasible(check, i + 1);
    let good = i + 1;
    let bad = -1;
    let step = 2;
    while (good < F - 1) {
      const end = Math.min(F - 1, i + step);
      if (spanTry(check, i, end)) {
        good = end;
        step *= 2;
      } else {
        bad = end;
        break;
      }
    }
    if (bad > 0) {
      let lo = good;
      let hi = bad;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (spanTry(check, i, mid)) lo = mid;
        else hi = mid;
      }
      // the value stored for `lo` is from its own passing try (each end is tried once per start)
      good = lo;
    }
    kept.push(good);
    i = good;
  }
  if (kept.length === 2 && rotationHolds(check, 0, 0, F - 1)) {
    sampleKey(values, 0, d, o, j, 0);
    return Int32Array.of(0);
  }
  return Int32Array.from(kept);
}

/**
 * Whether a key at `e` can follow the key at `i` (value `check.values[i]`): a fitted value first, then
 * the sample (sign-aligned with the key before); the passing value goes to `check.values[e]`.
 */
function spanTry(check: Check, i: number, e: number): boolean {
  const { values } = check;
  if (fitKey(check, i, e, keyB) && rotationSpanHolds(check, values, i * 4, keyB, 0, i, e, e)) {
    for (let c = 0; c < 4; c++) values[e * 4 + c] = keyB[c];
    return true;
  }
  sampleKey(keyB, 0, check.d, check.o, check.j, e);
  const dot =
    values[i * 4] * keyB[0] +
    values[i * 4 + 1] * keyB[1] +
    values[i * 4 + 2] * keyB[2] +
    values[i * 4 + 3] * keyB[3];
  if (dot < 0) for (let c = 0; c < 4; c++) keyB[c] = -keyB[c];
  if (rotationSpanHolds(check, values, i * 4, keyB, 0, i, e, e)) {
    for (let c = 0; c < 4; c++) values[e * 4 + c] = keyB[c];
    return true;
  }
  return false;
}

/** Share of each frame's allowance a fitted key aims for: room for the tangent-space approximation. */
const FIT_SHRINK = 0.9;
/** Projections per fitted key. */
const FIT_ITERATIONS = 2;

/**
 * A key value at frame `e` after the key `K = check.values[i]`, aimed to keep frames `i + 1` to `e`
 * within their allowance, into `out` (quantised when asked); false when no frame can be helped.
 *
 * In the tangent space at `K` (rotation vectors `g(q) = log(K* ⊗ q)`), the slerp from `K` to a key `X`
 * is the ray `u·x`, `x = g(X)`; frame `f` (at `u_f`) allows the world rotation error
 * `θ_f = 2·asin((limit − offset_f)/(2ρ))` around its target `g(T_f) = z_f`, so `x` must lie in the ball
 * of centre `z_f/u_f` and radius `θ_f/u_f` for every `f`. Starting at the ball of `e` itself, the point
 * is projected onto the most violated ball a few times (alternating projections onto convex sets). The
 * tangent-space picture is first order; {@link rotationSpanHolds} verifies the result exactly.
 */
function fitKey(check: Check, i: number, e: number, out: Float64Array): boolean {
  const { values, target, offset, fit } = check;
  const limit = check.limit;
  let kx = values[i * 4];
  let ky = values[i * 4 + 1];
  let kz = values[i * 4 + 2];
  let kw = values[i * 4 + 3];
  const kn = 1 / Math.sqrt(kx * kx + ky * ky + kz * kz + kw * kw);
  kx *= kn;
  ky *= kn;
  kz *= kn;
  kw *= kn;
  // z_f and θ_f depend on the start only: computed once per start, as the tries reach farther
  if (check.fitStart !== i) {
    check.fitStart = i;
    check.fitUpTo = i;
  }
  for (let f = check.fitUpTo + 1; f <= e; f++) {
    // aimed within the radius bound (aiming within the per-frame reach, which is larger, kept more keys)
    const room = (limit - offset[f]) / (2 * check.rho);
    // K* ⊗ T_f, on the near hemisphere
    const tx = target[f * 4];
    const ty = target[f * 4 + 1];
    const tz = target[f * 4 + 2];
    const tw = target[f * 4 + 3];
    let rx = kw * tx - kx * tw - ky * tz + kz * ty;
    let ry = kw * ty + kx * tz - ky * tw - kz * tx;
    let rz = kw * tz - kx * ty + ky * tx - kz * tw;
    const rw = kw * tw + kx * tx + ky * ty + kz * tz;
    if (rw < 0) {
      rx = -rx;
      ry = -ry;
      rz = -rz;
    }
    const sn = Math.sqrt(rx * rx + ry * ry + rz * rz);
    const k = sn > 1e-300 ? (2 * Math.atan2(sn, Math.abs(rw))) / sn : 2;
    fit[f * 4] = rx * k;
    fit[f * 4 + 1] = ry * k;
    fit[f * 4 + 2] = rz * k;
    fit[f * 4 + 3] = room > 0 ? 2 * Math.asin(Math.min(1, room)) * FIT_SHRINK : 0;
  }
  if (e > check.fitUpTo) check.fitUpTo = e;
  for (let f = i + 1; f <= e; f++) if (!(fit[f * 4 + 3] > 0)) return false;
  const span = 1 / (e - i);
  let x = fit[e * 4];
  let y = fit[e * 4 + 1];
  let z = fit[e * 4 + 2];
  for (let it = 0; it < FIT_ITERATIONS; it++) {
    // frame f wants |u_f·x − z_f| ≤ θ_f: the ball of centre z_f/u_f, radius θ_f/u_f
    let worst = 1;
    let at = -1;
    for (let f = i + 1; f <= e; f++) {
      const u = (f - i) * span;
      const dx = u * x - fit[f * 4];
      const dy = u * y - fit[f * 4 + 1];
      const dz = u * z - fit[f * 4 + 2];
      const ratio = Math.sqrt(dx * dx + dy * dy + dz * dz) / fit[f * 4 + 3];
      if (ratio > worst) {
        worst = ratio;
        at = f;
      }
    }
    if (at < 0) break;
    // onto that ball's surface
    const u = (at - i) * span;
    const cx = fit[at * 4] / u;
    const cy = fit[at * 4 + 1] / u;
    const cz = fit[at * 4 + 2] / u;
    x = cx + (x - cx) / worst;
    y = cy + (y - cy) / worst;
    z = cz + (z - cz) / worst;
  }
  // X = K ⊗ exp(x)
  const angle = Math.sqrt(x * x + y * y + z * z);
  const sh = angle > 1e-300 ? Math.sin(angle / 2) / angle : 0.5;
  const ex = x * sh;
  const ey = y * sh;
  const ez = z * sh;
  const ew = Math.cos(angle / 2);
  out[0] = kw * ex + kx * ew + ky * ez - kz * ey;
  out[1] = kw * ey - kx * ez + ky * ew + kz * ex;
  out[2] = kw * ez + kx * ey - ky * ex + kz * ew;
  out[3] = kw * ew - kx * ex - ky * ey - kz * ez;
  if (check.o.quantization === 'int16') for (let c = 0; c < 4; c++) out[c] = quantize16(out[c]);
  return true;
}

/** {@link apply} for rotation keys with given values (`stored`, four per kept key). */
function applyValues(check: Check, kept: Int32Array, stored: Float64Array): void {
  const { d, o, state } = check;
  const dst = state.lq;
  const v = check.scratch;
  const quantized = o.quantization === 'int16';
  for (let k = 0; k < kept.length; k++) {
    const f = kept[k];
    for (let c = 0; c < 4; c++) v[c] = stored[k * 4 + c];
    normalise4(v);
    for (let c = 0; c < 4; c++) dst[f * 4 + c] = v[c];
    if (k === 0) continue;
    const a = kept[k - 1];
    for (let g = a + 1; g < f; g++) {
      slerpFlat(v, 0, stored, (k - 1) * 4, stored, k * 4, (g - a) / (f - a));
      if (quantized) normalise4(v);
      for (let c = 0; c < 4; c++) dst[g * 4 + c] = v[c];
    }
  }
  const last = kept[kept.length - 1];
  for (let g = last + 1; g < d.F; g++) for (let c = 0; c < 4; c++) dst[g * 4 + c] = dst[last * 4 + c];
}

/** Kept frames of one component of joint `check.j`: greedy longest segments, each verified. */
function greedy(check: Check, component: 0 | 1 | 2): Int32Array {
  const F = check.d.F;
  const kept: number[] = [0];
  if (!segmentHolds(check, component, 0, 0)) infeasible(check, 0);
  let i = 0;
  while (i < F - 1) {
    // doubling, then bisection between the last passing and first failing end
    if (!segmentHolds(check, component, i, i + 1)) infeasible(check, i + 1);
    let good = i + 1;
    let bad = -1;
    let step = 2;
    while (true) {
      const end = Math.min(F - 1, i + step);
      if (segmentHolds(check, component, i, end)) {
        good = end;
        if (end === F - 1) break;
        step *= 2;
      } else {
        bad = end;
        break;
      }
    }
    if (bad > 0) {
      let lo = good;
      let hi = bad;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (segmentHolds(check, component, i, mid)) lo = mid;
        else hi = mid;
      }
      good = lo;
    }
    kept.push(good);
    i = good;
  }
  // a channel that one key holds within the bound (a constant one) keeps one key, not two
  if (kept.length === 2 && segmentHolds(check, component, 0, 0, F - 1)) return Int32Array.of(0);
  return Int32Array.from(kept);
}

const INV_SQRT2 = Math.SQRT1_2;

/** Even a key on every frame misses the limit: only quantisation (or a tolerance at round-off) does that. */
function infeasible(check: Check, frame: number): never {
  throw new OptionError(
    `reduceKeys: joint ${check.j} ('${check.name}') cannot stay within the tolerance at frame ${frame} even with every key (${check.o.quantization === 'int16' ? 'the 16-bit rounding alone exceeds it' : 'round-off exceeds it'}); raise the tolerance`,
  );
}

/**
 * Whether keys at frames `a` and `b` (and none between) keep frames `a + 1` to `b` within the limit
 * (`a === b`: frames `a` to `last` all holding key `a`'s value, as a one-key track does). The key frame itself is checked too: the joint's other
 * components and its ancestors are already reduced there, and quantisation moves the key.
 */
function segmentHolds(check: Check, component: 0 | 1 | 2, a: number, b: number, last = b): boolean {
  if (component === 1 && check.fast) return rotationHolds(check, a, b, last);
  const { d, o, state, j, L } = check;
  const { J } = d;
  const v = check.scratch;
  for (let f = a === b ? a : a + 1; f <= last; f++) {
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
    const mo = (f * J + j) * 9;
    const po = (f * J + j) * 3;
    const C = check.world;
    if (parent < 0) {
      for (let i = 0; i < 9; i++) {
        C[i] = L[i];
        const e = L[i] - d.M[mo + i];
        frob += e * e;
      }
      px = lt[to];
      py = lt[to + 1];
      pz = lt[to + 2];
    } else {
      const pa = (f * J + parent) * 9;
      const pp = (f * J + parent) * 3;
      const RM = state.RM;
      for (let r = 0; r < 3; r++) {
        m0 = RM[pa + r * 3];
        m1 = RM[pa + r * 3 + 1];
        m2 = RM[pa + r * 3 + 2];
        for (let c = 0; c < 3; c++) {
          const m = m0 * L[c] + m1 * L[3 + c] + m2 * L[6 + c];
          C[r * 3 + c] = m;
          const e = m - d.M[mo + r * 3 + c];
          frob += e * e;
        }
      }
      const Rp = state.Rp;
      const x = lt[to];
      const y = lt[to + 1];
      const z = lt[to + 2];
      px = Rp[pp] + RM[pa] * x + RM[pa + 1] * y + RM[pa + 2] * z;
      py = Rp[pp + 1] + RM[pa + 3] * x + RM[pa + 4] * y + RM[pa + 5] * z;
      pz = Rp[pp + 2] + RM[pa + 6] * x + RM[pa + 7] * y + RM[pa + 8] * z;
    }
    const ex = px - d.p[po];
    const ey = py - d.p[po + 1];
    const ez = pz - d.p[po + 2];
    const dp = Math.sqrt(ex * ex + ey * ey + ez * ez);
    const norm = d.scaled ? Math.sqrt(frob) : Math.sqrt(frob) * INV_SQRT2;
    if (dp + norm * check.rho > check.limit) {
      if (!check.points) return false;
      if (
        dp + norm * (d.reach[f * J + j] + o.shell) > check.limit &&
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
    const dot = Math.abs(v[0] * q[i * 4] + v[1] * q[i * 4 + 1] + v[2] * q[i * 4 + 2] + v[3] * q[i * 4 + 3]);
    return 2 * Math.acos(Math.min(1, dot)) <= o.toleranceAngle;
  }
  const src = component === 0 ? d.t : d.s;
  const dx = v[0] - src[i * 3];
  const dy = v[1] - src[i * 3 + 1];
  const dz = v[2] - src[i * 3 + 2];
  if (component === 0) return Math.hypot(dx, dy, dz) <= o.tolerance;
  const base = Math.max(Math.abs(src[i * 3]), Math.abs(src[i * 3 + 1]), Math.abs(src[i * 3 + 2]), 1e-12);
  return Math.max(Math.abs(dx), Math.abs(dy), Math.abs(dz)) / base <= o.toleranceScale;
}

/** Rounds to the nearest normalised 16-bit value, as `KHR_mesh_quantization` stores it. */
function quantize16(x: number): number {
  return Math.max(-32767, Math.min(32767, Math.round(x * 32767))) / 32767;
}

const qa = new Float64Array(4);
const qb = new Float64Array(4);

/**
 * Value of one component of joint `j` at frame `f` from keys at frames `a` and `b`, as the player
 * evaluates it (linear: slerp/lerp; cubic: glTF Hermite with the central-difference tangents; rotations
 * normalised after; quantised rotation keys when asked).
 */
function interpolateComponent(
  out: Float64Array,
  d: Prepared,
  o: Resolved,
  j: number,
  component: 0 | 1 | 2,
  a: number,
  b: number,
  f: number,
): void {
  const J = d.J;
  const w = component === 1 ? 4 : 3;
  const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
  const ia = (a * J + j) * w;
  const ib = (b * J + j) * w;
  if (a === b) {
    // the key itself, as stored
    for (let c = 0; c < w; c++)
      out[c] = component === 1 && o.quantization === 'int16' ? quantize16(src[ia + c]) : src[ia + c];
    if (component === 1 && o.quantization === 'int16') normalise4(out);
    return;
  }
  const u = (f - a) / (b - a);
  if (o.interpolation === 'linear') {
    if (component === 1) {
      for (let c = 0; c < 4; c++) {
        qa[c] = o.quantization === 'int16' ? quantize16(src[ia + c]) : src[ia + c];
        qb[c] = o.quantization === 'int16' ? quantize16(src[ib + c]) : src[ib + c];
      }
      slerpFlat(out, 0, qa, 0, qb, 0, u);
      if (o.quantization === 'int16') normalise4(out);
      return;
    }
    for (let c = 0; c < 3; c++) out[c] = src[ia + c] + (src[ib + c] - src[ia + c]) * u;
    return;
  }
  // glTF cubic spline: p(u) = (2u³ − 3u² + 1)·v_a + (u³ − 2u² + u)·td·m_a + (−2u³ + 3u²)·v_b + (u³ − u²)·td·m_b
  const der = component === 0 ? d.dt : component === 1 ? d.dq : d.ds;
  const td = (b - a) * d.frameTime;
  const u2 = u * u;
  const u3 = u2 * u;
  const h00 = 2 * u3 - 3 * u2 + 1;
  const h10 = u3 - 2 * u2 + u;
  const h01 = -2 * u3 + 3 * u2;
  const h11 = u3 - u2;
  for (let c = 0; c < w; c++) {
    out[c] = h00 * src[ia + c] + h10 * td * der[ia + c] + h01 * src[ib + c] + h11 * td * der[ib + c];
  }
  if (component === 1) normalise4(out);
}

function normalise4(q: Float64Array): void {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  q[0] /= n;
  q[1] /= n;
  q[2] /= n;
  q[3] /= n;
}

/** Replaces one component of the joint's candidate local values by what its kept keys evaluate to. */
function apply(check: Check, component: 0 | 1 | 2, kept: Int32Array): void {
  const { d, o, j, state } = check;
  const w = component === 1 ? 4 : 3;
  const dst = component === 0 ? state.lt : component === 1 ? state.lq : state.ls;
  const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
  const v = check.scratch;
  for (let k = 0; k < kept.length; k++) {
    const f = kept[k];
    for (let c = 0; c < w; c++) {
      const x = src[(f * d.J + j) * w + c];
      dst[f * w + c] = component === 1 && o.quantization === 'int16' ? quantize16(x) : x;
    }
    if (component === 1 && o.quantization === 'int16')
      normalise4(dst.subarray(f * 4, f * 4 + 4) as Float64Array);
    if (k === 0) continue;
    const a = kept[k - 1];
    for (let g = a + 1; g < f; g++) {
      interpolateComponent(v, d, o, j, component, a, f, g);
      for (let c = 0; c < w; c++) dst[g * w + c] = v[c];
    }
  }
  // after the last key the player holds it (a one-key track everywhere)
  const last = kept[kept.length - 1];
  for (let g = last + 1; g < d.F; g++) for (let c = 0; c < w; c++) dst[g * w + c] = dst[last * w + c];
}

/** Builds the keyed clip and measures the achieved error at every original frame. */
function finish(
  clip: Clip,
  d: Prepared,
  o: Resolved,
  keys: KeySets,
  reduction?: Reduction,
): ReduceKeysResult {
  const { J, F } = d;
  const t0 = clip.startTime ?? 0;
  const tracks: Track[] = [];
  let keysBefore = 0;
  let keysAfter = 0;
  const interpolation: Interpolation = o.interpolation;
  // what a player sees, per joint, to measure the error: as the reduction evaluated it, or evaluated here
  const lt = reduction ? reduction.lt : Float64Array.from(d.t);
  const lq = reduction ? reduction.lq : Float64Array.from(d.q);
  const ls = reduction ? reduction.ls : Float64Array.from(d.s);
  const v = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    for (const component of [0, 1, 2] as const) {
      const kept = keys[j][component];
      if (!kept) continue;
      const w = component === 1 ? 4 : 3;
      const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
      const der = component === 0 ? d.dt : component === 1 ? d.dq : d.ds;
      const dst = component === 0 ? lt : component === 1 ? lq : ls;
      keysBefore += F;
      keysAfter += kept.length;
      const times = new Float64Array(kept.length);
      const fittedValues = component === 1 && reduction ? reduction.rotationValues[j] : null;
      const per = interpolation === 'cubicspline' ? 3 : 1;
      const values = new Float64Array(kept.length * w * per);
      for (let k = 0; k < kept.length; k++) {
        const f = kept[k];
        times[k] = t0 + f * d.frameTime;
        const base = k * w * per;
        for (let c = 0; c < w; c++) {
          let x = src[(f * J + j) * w + c];
          if (component === 1 && o.quantization === 'int16') x = quantize16(x);
          if (fittedValues) x = fittedValues[k * 4 + c];
          if (per === 3) {
            values[base + c] = der[(f * J + j) * w + c];
            values[base + w + c] = x;
            values[base + 2 * w + c] = der[(f * J + j) * w + c];
          } else values[base + c] = x;
        }
      }
      tracks.push({
        joint: j,
        path: component === 0 ? 'translation' : component === 1 ? 'rotation' : 'scale',
        interpolation,
        times,
        values,
        width: w,
      });
      if (reduction) continue;
      // what the player evaluates at every original frame
      for (let k = 0; k < kept.length; k++) {
        const f = kept[k];
        if (component === 1 && o.quantization === 'int16') {
          for (let c = 0; c < 4; c++) v[c] = quantize16(src[(f * J + j) * 4 + c]);
          normalise4(v);
          for (let c = 0; c < 4; c++) dst[(f * J + j) * 4 + c] = v[c];
        }
        if (k === 0) continue;
        const a = kept[k - 1];
        for (let g = a + 1; g < f; g++) {
          interpolateComponent(v, d, o, j, component, a, f, g);
          for (let c = 0; c < w; c++) dst[(g * J + j) * w + c] = v[c];
        }
      }
      const last = kept[kept.length - 1];
      for (let g = last + 1; g < F; g++) {
        for (let c = 0; c < w; c++) dst[(g * J + j) * w + c] = dst[(last * J + j) * w + c];
      }
    }
  }
  const report = measure(d, o, lt, lq, ls, keysBefore, keysAfter, tracks.length, reduction);
  const keyed: KeyedClip = {
    ...(clip.name !== undefined ? { name: clip.name } : {}),
    skeleton: clip.skeleton,
    tracks,
    orders: clip.orders.slice(),
    ...(clip.source !== undefined ? { source: clip.source } : {}),
  };
  return { clip: keyed, report };
}

function measure(
  d: Prepared,
  o: Resolved,
  lt: Float64Array,
  lq: Float64Array,
  ls: Float64Array,
  keysBefore: number,
  keysAfter: number,
  tracks: number,
  reduction?: Reduction,
): ReduceKeysReport {
  const { J, F } = d;
  const errors = new Float64Array(F * J);
  let maxAngle = 0;
  let maxScaleError = 0;
  let maxError = 0;
  if (o.metric === 'object') {
    // world transforms: the reduction's (composed from the same local values), or composed here per frame
    const RM = reduction ? reduction.RM : new Float64Array(J * 9);
    const Rp = reduction ? reduction.Rp : new Float64Array(J * 3);
    const L = new Float64Array(9);
    for (let f = 0; f < F; f++) {
      for (let j = 0; j < J; j++) {
        const wm = reduction ? (f * J + j) * 9 : j * 9;
        const wp = reduction ? (f * J + j) * 3 : j * 3;
        if (!reduction) {
          localMatrix(L, 0, lq, (f * J + j) * 4, ls, (f * J + j) * 3);
          compose(RM, Rp, wm, wp, d.parents[j], RM, Rp, L, 0, lt, (f * J + j) * 3);
        }
        const mo = (f * J + j) * 9;
        const po = (f * J + j) * 3;
        let worst = 0;
        // six virtual vertices: ± each local axis at the shell distance
        const dx = Rp[wp] - d.p[po];
        const dy = Rp[wp + 1] - d.p[po + 1];
        const dz = Rp[wp + 2] - d.p[po + 2];
        for (let k = 0; k < 6; k++) {
          const axis = k >> 1;
          const r = k & 1 ? -o.shell : o.shell;
          const ex = dx + (RM[wm + axis] - d.M[mo + axis]) * r;
          const ey = dy + (RM[wm + 3 + axis] - d.M[mo + 3 + axis]) * r;
          const ez = dz + (RM[wm + 6 + axis] - d.M[mo + 6 + axis]) * r;
          const e = Math.sqrt(ex * ex + ey * ey + ez * ez);
          if (e > worst) worst = e;
        }
        errors[f * J + j] = worst;
        if (worst > maxError) maxError = worst;
      }
    }
  } else {
    for (let i = 0; i < F * J; i++) {
      const e = Math.hypot(
        lt[i * 3] - d.t[i * 3],
        lt[i * 3 + 1] - d.t[i * 3 + 1],
        lt[i * 3 + 2] - d.t[i * 3 + 2],
      );
      errors[i] = e;
      if (e > maxError) maxError = e;
      const dot = Math.abs(
        lq[i * 4] * d.q[i * 4] +
          lq[i * 4 + 1] * d.q[i * 4 + 1] +
          lq[i * 4 + 2] * d.q[i * 4 + 2] +
          lq[i * 4 + 3] * d.q[i * 4 + 3],
      );
      maxAngle = Math.max(maxAngle, 2 * Math.acos(Math.min(1, dot)));
      for (let c = 0; c < 3; c++) {
        const base = Math.max(
          Math.abs(d.s[i * 3]),
          Math.abs(d.s[i * 3 + 1]),
          Math.abs(d.s[i * 3 + 2]),
          1e-12,
        );
        maxScaleError = Math.max(maxScaleError, Math.abs(ls[i * 3 + c] - d.s[i * 3 + c]) / base);
      }
    }
  }
  const p99 = errors.length
    ? select(errors, Math.min(errors.length - 1, Math.ceil(0.99 * errors.length) - 1))
    : 0;
  if (!Number.isFinite(maxError))
    throw new ShapeError('reduceKeys: the reduced clip evaluates to a non-finite pose');
  return {
    metric: o.metric,
    tolerance: o.tolerance,
    shellDistance: o.shell,
    keysBefore,
    keysAfter,
    tracks,
    maxError,
    p99Error: p99,
    maxAngle,
    maxScaleError,
    quantization: o.quantization,
  };
}

/** The `k`-th smallest value of `a` (0-based), reordering `a` (quickselect, Hoare partition; NaN-free input). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}
