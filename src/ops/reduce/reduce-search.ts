// The key search of the reduction: joints parents first, each component by a greedy longest-segment pass
// (doubling, then bisection), rotation keys with fitted values for effort 'best'.

import { OptionError } from '../../errors.js';
import { slerpFlat } from '../../quat/core.js';
import { ANIMATED_ROTATION, ANIMATED_SCALE, ANIMATED_TRANSLATION, type Clip } from '../../series/clip.js';
import {
  angleTan2,
  type Check,
  keyB,
  rotationHolds,
  rotationSpanHolds,
  rotationTargets,
  sampleKey,
  segmentHolds,
} from './reduce-check.js';
import { COLLAPSED, DROPPED, isConstantTrack, isRestValue } from './reduce-constant.js';
import { apply, interpolationOf, normalise4, quantize16 } from './reduce-interpolate.js';
import { LINEAR } from './reduce-keyed.js';
import type { Resolved } from './reduce-options.js';
import { errorShares, type KeySets, type Prepared, radii } from './reduce-prepare.js';
import { compose, composeRotation, localMatrix } from './reduce-transforms.js';

/** The reduction state of one joint: its candidate local TRS per frame and the reduced parent's world transform. */
export interface JointState {
  /** Local translation, rotation, scale of the joint per frame (reduced as components are done). */
  lt: Float64Array;
  lq: Float64Array;
  ls: Float64Array;
  /**
   * Reduced world transforms of every joint, per frame (filled parents first; 'object' metric, else
   * empty): linear parts `RM` (row-major 3x3) when the clip has scales, else rotations `RQ` (unit
   * quaternions; see {@link Prepared.Q}), and origins `Rp`.
   */
  RM: Float64Array;
  Rp: Float64Array;
  RQ: Float64Array;
}

/**
 * What {@link reduceAll} found: the kept keys, and what a player evaluates from them at every original
 * frame (local TRS, frame-major, and the world transforms they compose to), which the report measures.
 */
export interface Reduction {
  keys: KeySets;
  /** Per joint: its rotation keys' values (x, y, z, w per kept key) when they are fitted, else null (the samples). */
  rotationValues: (Float64Array | null)[];
  lt: Float64Array;
  lq: Float64Array;
  ls: Float64Array;
  /** The reduced world transforms ({@link JointState.RM}). */
  RM: Float64Array;
  Rp: Float64Array;
  RQ: Float64Array;
  /**
   * Per `joint·3 + component`: {@link COLLAPSED} for a constant track kept as one key, {@link DROPPED}
   * for one at the joint's rest value (its one key stays in `keys` for the report; it is not written).
   */
  constant: Uint8Array;
}

export function reduceAll(clip: Clip, d: Prepared, o: Resolved): Reduction {
  const { J, F } = d;
  const out: KeySets = [];
  // the local values the player evaluates, kept for the 'local' report ('object' measures world transforms)
  const keep = o.metric === 'local' ? F * J : 0;
  const played = {
    lt: new Float64Array(keep * 3),
    lq: new Float64Array(keep * 4),
    ls: new Float64Array(keep * 3),
  };
  const rho = o.metric === 'object' ? radii(d) : new Float64Array(J);
  const shares = o.metric === 'object' ? errorShares(d) : new Float64Array(J).fill(1);
  // the rotation fast path: object metric, linear player, no scale anywhere (on a keyed clip: every
  // rotation track LINEAR); rotations that are not unit (float32 keys) are normalised as a player does
  let linear = o.interpolation === 'linear';
  if (d.keyed !== null)
    for (let j = 0; j < J; j++) if (d.keyed.interpolation[j * 3 + 1] !== LINEAR) linear = false;
  const object = o.metric === 'object';
  const fast = object && linear && !d.scaled;
  const state: JointState = {
    lt: new Float64Array(F * 3),
    lq: new Float64Array(F * 4),
    ls: new Float64Array(F * 3),
    // the reduced world transforms ('object' metric): matrices with scales, else unit quaternions
    RM: new Float64Array(object && d.scaled ? F * J * 9 : 0),
    Rp: new Float64Array(object ? F * J * 3 : 0),
    RQ: new Float64Array(object && !d.scaled ? F * J * 4 : 0),
  };
  const target = new Float64Array(fast ? F * 4 : 0);
  const offset = new Float64Array(fast ? F : 0);
  const delta = new Float64Array(fast ? F * 3 : 0);
  // descendants' points are checked one by one where the radius bound fails
  const points = o.effort === 'best' && object;
  const world = new Float64Array(9);
  // fitted values leave the samples: not on a keyed clip, whose kept keys are its own
  const fitted = fast && o.effort === 'best' && d.keyed === null;
  const values = new Float64Array(fitted ? F * 4 : 0);
  const fit = new Float64Array(fitted ? F * 4 : 0);
  const rotationValues: (Float64Array | null)[] = [];
  const constant = new Uint8Array(J * 3);
  const L = new Float64Array(9);
  const scratch = new Float64Array(4);
  const tan2 = angleTan2(o.toleranceAngle);
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
      angleTan2: tan2,
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
        constant[j * 3 + 1] = constancy(clip, check, kept, 1);
        continue;
      }
      const kept = greedy(check, component);
      keys[component] = kept;
      apply(check, component, kept);
      constant[j * 3 + component] = constancy(clip, check, kept, component);
    }
    if (rotationValues.length === j) rotationValues.push(null);
    // the joint's reduced world transform, for its children and the report
    if (object) composeJoint(state, d, j, L);
    out.push(keys);
    if (keep) {
      scatterJoint(played.lt, state.lt, F, J, j, 3);
      scatterJoint(played.lq, state.lq, F, J, j, 4);
      scatterJoint(played.ls, state.ls, F, J, j, 3);
    }
  }
  return { keys: out, rotationValues, ...played, RM: state.RM, Rp: state.Rp, RQ: state.RQ, constant };
}

/**
 * Joint `j`'s reduced world transform at every frame into `state.RM`/`state.RQ` and `state.Rp`, from its
 * reduced local values and its reduced parent's (`L`: scratch for a local matrix).
 */
function composeJoint(state: JointState, d: Prepared, j: number, L: Float64Array): void {
  const { F, J } = d;
  for (let f = 0; f < F; f++) {
    const parent = d.parents[j] < 0 ? -1 : f * J + d.parents[j];
    const i = f * J + j;
    if (d.scaled) {
      localMatrix(L, 0, state.lq, f * 4, state.ls, f * 3);
      compose(state.RM, state.Rp, i * 9, i * 3, parent, state.RM, state.Rp, L, 0, state.lt, f * 3);
      continue;
    }
    composeRotation(
      state.RQ,
      state.Rp,
      i * 4,
      i * 3,
      parent,
      state.RQ,
      state.Rp,
      state.lq,
      f * 4,
      state.lt,
      f * 3,
      d.unit,
    );
  }
}

/**
 * {@link COLLAPSED} when the component's keys are all equal and it kept one key, {@link DROPPED} when
 * that key also plays the joint's rest value exactly and no `keepAtRest` entry keeps it, else 0. Its
 * values in `check.state` are what the check evaluated either way: dropping changes nothing a player
 * shows, and the bound and the report stand as they are.
 */
function constancy(clip: Clip, check: Check, kept: Int32Array, component: 0 | 1 | 2): number {
  if (kept.length !== 1 || !isConstantTrack(clip, check.d, check.j, component)) return 0;
  const keep = check.o.keepAtRest;
  if (keep === null || keep.has(check.j * 3 + component)) return COLLAPSED;
  const { state } = check;
  const played = component === 0 ? state.lt : component === 1 ? state.lq : state.ls;
  return isRestValue(clip, played, 0, check.j, component) ? DROPPED : COLLAPSED;
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

/**
 * Kept frames of one component of joint `check.j`: greedy longest segments, each verified. On a keyed
 * clip only the track's own keys are candidates, and the frames before its first key and after its last
 * (which hold those keys) are checked too.
 */
function greedy(check: Check, component: 0 | 1 | 2): Int32Array {
  const F = check.d.F;
  const own = check.d.keyed ? check.d.keyed.keys[check.j * 3 + component] : null;
  const n = own ? own.length : F;
  const frame = (p: number) => (own ? own[p] : p);
  // a segment that skips keys must not join rotations half a turn apart: players part ways there
  const holds = (p: number, q: number) =>
    !(component === 1 && q > p + 1 && halfTurn(check, frame(p), frame(q))) &&
    segmentHolds(check, component, frame(p), frame(q));
  const f0 = frame(0);
  const kept: number[] = [f0];
  if (!segmentHolds(check, component, f0, f0, f0, 0)) infeasible(check, f0);
  let i = 0;
  while (i < n - 1) {
    // doubling, then bisection between the last passing and first failing end (positions among the candidates)
    if (!holds(i, i + 1)) infeasible(check, frame(i + 1));
    let good = i + 1;
    let bad = -1;
    let step = 2;
    while (true) {
      const end = Math.min(n - 1, i + step);
      if (holds(i, end)) {
        good = end;
        if (end === n - 1) break;
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
        if (holds(i, mid)) lo = mid;
        else hi = mid;
      }
      good = lo;
    }
    kept.push(frame(good));
    i = good;
  }
  const last = frame(n - 1);
  if (last < F - 1 && !segmentHolds(check, component, last, last, F - 1)) infeasible(check, F - 1);
  // a channel that one key holds within the bound (a constant one) keeps one key, not two
  if (kept.length === 2 && segmentHolds(check, component, f0, f0, F - 1, 0)) return Int32Array.of(f0);
  return Int32Array.from(kept);
}

/** `|q_a·q_b|` below which two rotation keys count as half a turn apart (within about 0.1°). */
const HALF_TURN = 1e-3;

/**
 * Whether joint `check.j`'s rotation samples at frames `a` and `b` are half a turn apart (to
 * {@link HALF_TURN}) on a LINEAR track: the shorter arc between them is then decided by round-off and by
 * the sign each key is stored with, so a player may turn the other way than the check did.
 */
function halfTurn(check: Check, a: number, b: number): boolean {
  const { d, o, j } = check;
  if (interpolationOf(d, o, j, 1) !== LINEAR) return false;
  const q = d.q;
  const ia = (a * d.J + j) * 4;
  const ib = (b * d.J + j) * 4;
  const dot = q[ia] * q[ib] + q[ia + 1] * q[ib + 1] + q[ia + 2] * q[ib + 2] + q[ia + 3] * q[ib + 3];
  return Math.abs(dot) < HALF_TURN;
}

/** Even a key on every frame misses the limit: only quantisation (or a tolerance at round-off) does that. */
function infeasible(check: Check, frame: number): never {
  throw new OptionError(
    `reduceKeys: joint ${check.j} ('${check.name}') cannot stay within the tolerance at frame ${frame}${check.d.keyed ? ` (${check.d.keyed.times[frame]} s)` : ''} even with every key (${check.o.quantization === 'int16' ? 'the 16-bit rounding alone exceeds it' : 'round-off exceeds it'}); raise the tolerance`,
  );
}
