// Variable bit rates (quantization 'variable'): every key kept, each rotation track stored with
// EXT_meshopt_compression's quaternion filter at its own bit width (4 to 16) and each translation track with
// its exponential filter at its own mantissa width (1 to 24), the widths chosen together under the
// object-space bound and the result measured, as ACL chooses a bit rate per track.
import { OptionError } from '../../errors.js';
import { multiplyRaw } from '../../quat/raw.js';
import { ANIMATED_ROTATION, ANIMATED_TRANSLATION, type Clip } from '../../series/clip.js';
import { decodeExpFilter, EXP_FILTER_MAX_BITS, EXP_FILTER_MIN_BITS, encodeExpFilter } from './exp-filter.js';
import {
  decodeQuatFilter,
  encodeQuatFilter,
  QUAT_FILTER_MAX_BITS,
  QUAT_FILTER_MIN_BITS,
} from './quat-filter.js';
import { COLLAPSED, DROPPED, isConstantTrack, isRestValue, keptOne } from './reduce-constant.js';
import { CUBIC } from './reduce-keyed.js';
import type { ReduceKeysResult, Resolved } from './reduce-options.js';
import { type KeySets, type Prepared, trackKeys } from './reduce-prepare.js';
import { finish } from './reduce-report.js';

const LEVELS = QUAT_FILTER_MAX_BITS - QUAT_FILTER_MIN_BITS + 1;
/** Measurements spent trying float tracks at 16 bits once widths are chosen. */
const FLOAT_TRIALS = 24;
/** The level above the widest: the track stored as float32, without the filter. */
const FLOAT_LEVEL = LEVELS;
/** Translation levels: mantissa widths 1 to 24 under the exponential filter, then float32. */
const T_LEVELS = EXP_FILTER_MAX_BITS - EXP_FILTER_MIN_BITS + 1;
/** Measurements spent lowering filtered translation tracks (or trying float ones at 24 bits) once chosen. */
const TRANSLATION_TRIALS = 24;
/** The exponential filter's encoder refuses magnitudes from 2^100: such a track stays float32. */
const EXP_LIMIT = 2 ** 100;

/** The width {@link ReduceKeysReport.rotationBits} gives a rotation track stored as float32 (no filter). */
export const FLOAT_BITS = 32;

/** The filter input of one rotation track: its joint, bit width and four codes per kept key. */
export interface RotationCodes {
  joint: number;
  bits: number;
  codes: Int16Array;
}

/** The exponential filter input of one translation track: its joint, mantissa width and three codes per kept key. */
export interface TranslationCodes {
  joint: number;
  bits: number;
  codes: Uint32Array;
}

/** What {@link variableBits} returns: the reduction's result, the filter codes and per joint the widths. */
export interface VariableBits {
  result: ReduceKeysResult;
  codes: RotationCodes[];
  translationCodes: TranslationCodes[];
  bits: Uint8Array;
  translationBits: Uint8Array;
}

/**
 * A track the greedy lowers: per level (narrowest first, the last float32) the modelled error per unit of
 * reach, and the joints its error moves with their reach.
 */
interface Lowerable {
  theta: Float64Array;
  nodes: Int32Array;
  reach: Float64Array;
}

/**
 * Every key of every track kept; each animated rotation track's bit width and each animated translation
 * track's mantissa width chosen so that the measured object-space error stays within `o.tolerance`.
 * Returns the reduction's result (rotation keys as the quaternion filter decodes them, normalised 16-bit
 * values; translation keys as the exponential filter decodes them, float32 divided by
 * `o.translationScale`; float32 for the tracks no width holds), the codes the writer stores, and per
 * joint the widths chosen ({@link FLOAT_BITS} for a float track, 0 for none).
 *
 * Method. A linear model of the error picks the widths: with error feedback down the hierarchy (each
 * joint's key is encoded from the local rotation that puts its world rotation on the original's given
 * its parent's decoded one, as `quantizedReference` does for 16-bit keys), a joint's world rotation error
 * is its own decoding error θ, which moves its children's origins by θ·(bone length) and its own virtual
 * vertices by θ·shell; without feedback (tracks keyed at different times) θ moves every descendant by
 * θ·(its distance). Per joint and width, θ is the largest decoding angle over the track's keys; above
 * 16 bits is one more level, the track kept as float32 (θ its float32 rounding). A translation track's
 * decoding error (the largest over its keys of the distance between decoded and original translation,
 * per mantissa width; above 24 bits float32's rounding) moves the joint and every descendant rigidly, by
 * that distance through the parent's world linear part (1 without scales, its Frobenius norm with them).
 * Starting at float everywhere, the track whose lowering by one level keeps the largest modelled error
 * in the joints it moves smallest is lowered, while every modelled error (the sum over the tracks that
 * move a joint) stays within the budget, so a track whose narrowest level the budget cannot take stays
 * float (and only that track: a rotation's children are encoded against its float value, as against any
 * decoded parent). The pose is then encoded and measured exactly (six virtual vertices per joint at
 * every original frame, translations and rotations decoded together), and the model's budget scaled by
 * the ratio of the tolerance to the measured error (the model bounds from above, so it usually grows)
 * and the widths chosen again, up to ten times; of the choices that measure within the tolerance the
 * one with the fewest bits (a float key counted as 32 bits a component) is kept. Then, measured each
 * time, float rotation tracks are tried at 16 bits and each translation width is bisected down to the
 * narrowest that keeps the pose within the tolerance.
 *
 * The bound is split between rotations and translations two ways and the choice with fewer bits kept:
 * both kinds of track lowered by the one greedy (a translation level competes with a rotation level for
 * the same budget), and rotations alone in the greedy (translations float32 there), the translations
 * then bisected into what the measurement leaves. The greedy's steps are coarse (one level of one track
 * can move the measured error by 15%), so neither always wins: on CMU 01_01 at 0.02 cm the widths of
 * the second sum to 290 a frame, the first's to 294; at 0.05 cm both sum to 258.
 *
 * Translation tracks with one key (constant), CUBICSPLINE ones (a keyed clip's; the filter codes would
 * hold values only) and ones with a magnitude the filter cannot encode stay float32. Every width up to
 * 24 counts fewer bits than float32 (a filtered component is counted at its width, a float one at 32):
 * the codes keep one exponent per component where float32 stores one per value, and meshoptimizer's
 * codec compresses them at least as well (on CMU 01_01's root translation: 18.3 kB at 24 bits, 19.5 kB
 * as float32).
 *
 * @throws {OptionError} when float32 rotations and translations everywhere measure above the tolerance
 * (the tolerance is below what the clip's float32 values resolve).
 */
export function variableBits(clip: Clip, d: Prepared, o: Resolved): VariableBits {
  const { J, F } = d;
  const keys = trackKeys(clip, d);
  const states = constantTracks(clip, d, o, keys);
  const animated: number[] = [];
  for (let j = 0; j < J; j++)
    if (clip.animated[j] & ANIMATED_ROTATION && keys[j][1] && states[j * 3 + 1] !== DROPPED) animated.push(j);
  // translation tracks stored as float32 or filtered: measured at their float32 (or decoded) values
  const moved: number[] = [];
  const filterable: number[] = [];
  // CUBICSPLINE translations (a keyed clip's) stay float32 as they are: codes would hold no tangents
  const cubic: number[] = [];
  for (let j = 0; j < J; j++) {
    const kept = keys[j][0];
    if (!(clip.animated[j] & ANIMATED_TRANSLATION) || !kept || states[j * 3] === DROPPED) continue;
    if (d.keyed !== null && d.keyed.interpolation[j * 3] === CUBIC) {
      cubic.push(j);
      continue;
    }
    moved.push(j);
    if (kept.length > 1 && states[j * 3] !== COLLAPSED && encodable(d, kept, j, o.translationScale))
      filterable.push(j);
  }
  // a writer stores translations times the scale in float32: one beyond float32's range is refused, named
  for (const j of [...moved, ...cubic]) {
    const kept = keys[j][0] as Int32Array;
    for (let k = 0; k < kept.length; k++)
      for (let c = 0; c < 3; c++) {
        const v = d.t[(kept[k] * J + j) * 3 + c] * o.translationScale;
        if (!Number.isFinite(Math.fround(v)))
          throw new OptionError(
            `reduceKeys: translationScale ${o.translationScale} puts joint ${j}'s translation at frame ${kept[k]} at ${v}, beyond float32`,
          );
      }
  }
  // one key of a constant track holds every frame: it is encoded as it is, the others with feedback
  const held = new Uint8Array(J);
  for (const j of animated) if (states[j * 3 + 1] === COLLAPSED) held[j] = 1;
  const feedback = animated.every((j) => held[j] || (keys[j][1] as Int32Array).length === F);
  const theta = angleTables(d, keys, animated);
  const influence = influences(d, animated, feedback, held);
  const tracks: Lowerable[] = animated.map((_, i) => ({ theta: theta[i], ...influence[i] }));
  for (const j of filterable)
    tracks.push({ theta: distanceTable(d, keys[j][0] as Int32Array, j, o.translationScale), ...rigid(d, j) });
  const bits = new Uint8Array(J);
  const tBits = new Uint8Array(J);
  for (const j of [...moved, ...cubic]) tBits[j] = FLOAT_BITS;
  const levels = new Int32Array(tracks.length);
  const setBits = () => {
    animated.forEach((j, i) => {
      bits[j] = levels[i] === FLOAT_LEVEL ? FLOAT_BITS : QUAT_FILTER_MIN_BITS + levels[i];
    });
    filterable.forEach((j, n) => {
      const level = levels[animated.length + n];
      tBits[j] = level === T_LEVELS ? FLOAT_BITS : EXP_FILTER_MIN_BITS + level;
    });
  };
  const cost = (b: Uint8Array, t: Uint8Array) =>
    animated.reduce((n, j) => n + b[j] * (keys[j][1] as Int32Array).length, 0) +
    moved.reduce((n, j) => n + t[j] * (keys[j][0] as Int32Array).length, 0);
  // the model bounds the error from above: its budget is scaled towards the tolerance by what the
  // measurement finds, and the feasible choice with the fewest bits kept
  type Choice = Omit<VariableBits, 'translationBits'> & { translationBits: Uint8Array; cost: number };
  let lastError = Number.POSITIVE_INFINITY;
  // the pose at the widths in `bits` and `tBits`, measured: float tracks as they are, the others as the
  // filters decode them
  const measured = () => {
    const { from, codes } = encodePose(d, keys, animated, bits, feedback, held);
    const { t, translationCodes } = encodeTranslations(d, keys, moved, tBits, o.translationScale);
    const storedAsIs = new Uint8Array(J * 3);
    for (const j of animated) if (bits[j] === FLOAT_BITS) storedAsIs[j * 3 + 1] = 1;
    for (const j of moved) storedAsIs[j * 3] = 1;
    const q = { ...d, q: from, t };
    const result = finish(clip, q, { ...o, quantization: 'int16', storedAsIs }, keys, undefined, states);
    return { result, codes, translationCodes };
  };
  const keep = (m: ReturnType<typeof measured>): Choice => ({
    ...m,
    bits: bits.slice(),
    translationBits: tBits.slice(),
    cost: cost(bits, tBits),
  });
  // `lowered` tracks chosen by the model (the others float), then refined by measurement
  const search = (lowered: Lowerable[]): Choice | null => {
    // the model bounds the error from above: its budget is scaled towards the tolerance by what the
    // measurement finds, and the feasible choice with the fewest bits kept
    let budget = o.tolerance;
    let best: Choice | null = null;
    for (let attempt = 0; attempt < 10; attempt++) {
      chooseBits(levels, lowered, J, budget);
      for (let i = lowered.length; i < tracks.length; i++) levels[i] = tracks[i].theta.length - 1;
      setBits();
      const m = measured();
      const error = m.result.report.maxError;
      lastError = error;
      if (error <= o.tolerance) {
        const c = cost(bits, tBits);
        if (best === null || c < best.cost) best = keep(m);
      } else if (levels.every((level, i) => level === tracks[i].theta.length - 1)) break;
      const ratio = (0.995 * o.tolerance) / error;
      if (error <= o.tolerance && ratio < 1.02) break; // within 2.5% of the tolerance: close enough
      budget *= Math.min(2, Math.max(0.5, error > o.tolerance ? Math.min(0.95, ratio) : ratio));
    }
    if (best === null) return null;
    // the model is conservative: a float track may hold at 16 bits. Each is tried (the smallest modelled
    // harm first, at most FLOAT_TRIALS measurements) and kept at 16 bits when the pose measures within
    bits.set(best.bits);
    tBits.set(best.translationBits);
    const floats = animated
      .map((j, i) => ({ j, harm: theta[i][LEVELS - 1] * Math.max(...influence[i].reach) }))
      .filter((t) => bits[t.j] === FLOAT_BITS)
      .sort((x, y) => x.harm - y.harm);
    for (const { j } of floats.slice(0, FLOAT_TRIALS)) {
      bits[j] = QUAT_FILTER_MAX_BITS;
      const m = measured();
      if (m.result.report.maxError <= o.tolerance) best = keep(m);
      else bits[j] = FLOAT_BITS;
    }
    // the translations take what room the measurement leaves: each track's width bisected between the
    // narrowest and the one it has (float32 as 25), keeping the narrowest that measures within (at most
    // TRANSLATION_TRIALS measurements in all)
    let trials = 0;
    for (const j of filterable) {
      let lo = EXP_FILTER_MIN_BITS - 1;
      let hi = tBits[j] === FLOAT_BITS ? EXP_FILTER_MAX_BITS + 1 : tBits[j];
      while (hi - lo > 1 && trials < TRANSLATION_TRIALS) {
        const mid = (lo + hi) >> 1;
        tBits[j] = mid;
        trials++;
        const m = measured();
        if (m.result.report.maxError <= o.tolerance) {
          best = keep(m);
          hi = mid;
        } else lo = mid;
      }
      tBits[j] = hi > EXP_FILTER_MAX_BITS ? FLOAT_BITS : hi;
    }
    return best;
  };
  // the bound split two ways, the cheaper kept: rotations and translations lowered by one greedy; and
  // rotations first (translations float32 in the model), the translations then given what is left
  let best = search(tracks);
  if (filterable.length > 0) {
    const apart = search(tracks.slice(0, animated.length));
    if (apart !== null && (best === null || apart.cost < best.cost)) best = apart;
  }
  if (best === null) {
    // the model was too far off to converge: float32 everywhere, measured
    bits.fill(0);
    for (const j of animated) bits[j] = FLOAT_BITS;
    for (const j of moved) tBits[j] = FLOAT_BITS;
    const m = measured();
    lastError = m.result.report.maxError;
    if (lastError <= o.tolerance) best = keep(m);
  }
  if (best !== null)
    return {
      result: best.result,
      codes: best.codes,
      translationCodes: best.translationCodes,
      bits: best.bits,
      translationBits: best.translationBits,
    };
  throw new OptionError(
    `reduceKeys: tolerance ${o.tolerance.toPrecision(3)} cannot hold with variable bit rates: float32 rotations and translations measure ${lastError.toPrecision(3)}; raise the tolerance`,
  );
}

/**
 * Constant tracks (every key equal in float32, rotations up to sign) keep their first key
 * ({@link COLLAPSED}; `keys` is changed to that one key), and none when it is the joint's rest value and
 * `o.keepAtRest` does not keep it ({@link DROPPED}): as the search does for the other storage modes.
 */
function constantTracks(clip: Clip, d: Prepared, o: Resolved, keys: KeySets): Uint8Array {
  const states = new Uint8Array(d.J * 3);
  const src = [d.t, d.q, d.s];
  for (let j = 0; j < d.J; j++) {
    for (const component of [0, 1, 2] as const) {
      const own = keys[j][component];
      if (!own || !isConstantTrack(clip, d, j, component)) continue;
      keys[j][component] = own.subarray(0, 1);
      const w = component === 1 ? 4 : 3;
      const keep = o.keepAtRest === null || o.keepAtRest.has(j * 3 + component);
      const rest = !keep && isRestValue(clip, src[component], (own[0] * d.J + j) * w, j, component);
      states[j * 3 + component] = rest ? DROPPED : COLLAPSED;
    }
  }
  // the rule finish applies (an animation keeps one channel), here so that channel gets its codes
  return keptOne(states, keys, d);
}

/**
 * Per animated joint and level (widths 4..16, then float32), the largest decoding angle of its rotation
 * keys (radians).
 */
function angleTables(d: Prepared, keys: KeySets, animated: number[]): Float64Array[] {
  const codes = new Int16Array(4);
  const out = new Int16Array(4);
  const q = new Float64Array(4);
  const r = new Float64Array(4);
  return animated.map((j) => {
    const table = new Float64Array(LEVELS + 1);
    const kept = keys[j][1] as Int32Array;
    for (let level = 0; level < LEVELS; level++) {
      const bits = QUAT_FILTER_MIN_BITS + level;
      let worst = 0;
      for (let k = 0; k < kept.length; k++) {
        unit(d.q, (kept[k] * d.J + j) * 4, q);
        encodeQuatFilter(q, 0, bits, codes, 0);
        decodeQuatFilter(codes, 0, out, 0);
        worst = Math.max(worst, angleTo(q, out));
      }
      table[level] = worst;
    }
    let worst = 0;
    for (let k = 0; k < kept.length; k++) {
      unit(d.q, (kept[k] * d.J + j) * 4, q);
      for (let c = 0; c < 4; c++) r[c] = Math.fround(q[c]);
      worst = Math.max(worst, angleTo(q, r));
    }
    table[FLOAT_LEVEL] = worst;
    return table;
  });
}

/**
 * Per animated joint `a`, the joints its rotation error moves and how far per radian: its own virtual
 * vertices (the shell in scene units) and each descendant `k`. With feedback, the first joint `c` on the
 * path from `a` down to `k` whose keys are encoded with feedback (animated, not one held key) puts its
 * world rotation back, so `c`'s subtree only follows `c`'s origin: `k` moves by `|p_c − p_a|` (largest
 * over frames); without such a joint (or without feedback) `k` turns with `a`, by its largest distance
 * from `a` plus its shell.
 */
function influences(
  d: Prepared,
  animated: number[],
  feedback: boolean,
  held: Uint8Array,
): { nodes: Int32Array; reach: Float64Array }[] {
  const { J, F, parents, p, M } = d;
  const shell = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    for (let axis = 0; axis < 3; axis++) {
      const m = j * 9;
      // a column's length: 1 for a rotation (no scales: `M` is not kept)
      const col = d.scaled ? Math.hypot(M[m + axis], M[m + 3 + axis], M[m + 6 + axis]) : 1;
      shell[j] = Math.max(shell[j], col * d.shellOffsets[j * 3 + axis]);
    }
  }
  const corrects = new Uint8Array(J);
  if (feedback) for (const j of animated) if (!held[j]) corrects[j] = 1;
  const distance = (a: number, k: number): number => {
    let r = 0;
    for (let f = 0; f < F; f++) {
      const ia = (f * J + a) * 3;
      const ik = (f * J + k) * 3;
      r = Math.max(r, Math.hypot(p[ik] - p[ia], p[ik + 1] - p[ia + 1], p[ik + 2] - p[ia + 2]));
    }
    return r;
  };
  const inside = new Uint8Array(J);
  const anchor = new Int32Array(J);
  return animated.map((a) => {
    const nodes: number[] = [a];
    const reach: number[] = [shell[a]];
    // descendants in order (parents come before children in a clip's skeleton)
    inside.fill(0);
    inside[a] = 1;
    anchor[a] = -1;
    const origin = new Map<number, number>();
    for (let k = a + 1; k < J; k++) {
      const up = parents[k];
      if (up < 0 || !inside[up]) continue;
      inside[k] = 1;
      anchor[k] = anchor[up] >= 0 ? anchor[up] : corrects[k] ? k : -1;
      const c = anchor[k];
      let r: number;
      if (c >= 0) {
        let length = origin.get(c);
        if (length === undefined) origin.set(c, (length = distance(a, c)));
        r = length;
      } else r = distance(a, k) + shell[k];
      nodes.push(k);
      reach.push(r);
    }
    return { nodes: Int32Array.from(nodes), reach: Float64Array.from(reach) };
  });
}

/**
 * Greedy levels under the linear model, from float32 everywhere (each track's last level): lower the
 * track whose lowering keeps the largest error of the joints it moves smallest, while it stays within
 * the budget. Writes each track's level into `level`.
 */
function chooseBits(level: Int32Array, tracks: Lowerable[], J: number, budget: number): void {
  const load = new Float64Array(J);
  for (let i = 0; i < tracks.length; i++) {
    const { theta, nodes, reach } = tracks[i];
    level[i] = theta.length - 1;
    for (let n = 0; n < nodes.length; n++) load[nodes[n]] += theta[level[i]] * reach[n];
  }
  for (;;) {
    let best = -1;
    let bestWorst = Number.POSITIVE_INFINITY;
    for (let i = 0; i < tracks.length; i++) {
      if (level[i] === 0) continue;
      const { theta, nodes, reach } = tracks[i];
      const delta = theta[level[i] - 1] - theta[level[i]];
      let worst = 0;
      for (let n = 0; n < nodes.length; n++) worst = Math.max(worst, load[nodes[n]] + delta * reach[n]);
      if (worst <= budget && worst < bestWorst) {
        best = i;
        bestWorst = worst;
      }
    }
    if (best < 0) break;
    const { theta, nodes, reach } = tracks[best];
    const delta = theta[level[best] - 1] - theta[level[best]];
    for (let n = 0; n < nodes.length; n++) load[nodes[n]] += delta * reach[n];
    level[best]--;
  }
}

/** Whether every kept translation of joint `j`, times `scale`, is within what the exponential filter encodes. */
function encodable(d: Prepared, kept: Int32Array, j: number, scale: number): boolean {
  for (let k = 0; k < kept.length; k++)
    for (let c = 0; c < 3; c++)
      if (!(Math.abs(d.t[(kept[k] * d.J + j) * 3 + c] * scale) < EXP_LIMIT)) return false;
  return true;
}

/** Joint `j`'s kept translations times `scale` (what a writer at that scale stores), key-major. */
function scaledKeys(d: Prepared, kept: Int32Array, j: number, scale: number): Float64Array {
  const out = new Float64Array(kept.length * 3);
  for (let k = 0; k < kept.length; k++)
    for (let c = 0; c < 3; c++) out[k * 3 + c] = d.t[(kept[k] * d.J + j) * 3 + c] * scale;
  return out;
}

/**
 * Per mantissa width (1..24), then float32: the largest distance, over joint `j`'s kept keys, between
 * the stored translation (decoded, divided by `scale`) and the original, through the parent's world
 * linear part (scene units).
 */
function distanceTable(d: Prepared, kept: Int32Array, j: number, scale: number): Float64Array {
  const n = kept.length;
  const values = scaledKeys(d, kept, j, scale);
  const codes = new Uint32Array(n * 3);
  const out = new Float32Array(n * 3);
  const gain = parentGain(d, j);
  const worst = () => {
    let r = 0;
    for (let k = 0; k < n; k++) {
      const i = (kept[k] * d.J + j) * 3;
      const e = Math.hypot(
        out[k * 3] / scale - d.t[i],
        out[k * 3 + 1] / scale - d.t[i + 1],
        out[k * 3 + 2] / scale - d.t[i + 2],
      );
      if (e > r) r = e;
    }
    return gain * r;
  };
  const table = new Float64Array(T_LEVELS + 1);
  for (let level = 0; level < T_LEVELS; level++) {
    encodeExpFilter(values, n, 3, EXP_FILTER_MIN_BITS + level, codes);
    decodeExpFilter(codes, out);
    table[level] = worst();
  }
  out.set(values); // float32, as a writer stores it without the filter
  table[T_LEVELS] = worst();
  return table;
}

/**
 * How far a translation error of joint `j` moves points in the scene per unit: 1 under a rotation (no
 * scale in the clip, or a root), else the largest Frobenius norm of the parent's world linear part over
 * the frames (a bound on its spectral norm).
 */
function parentGain(d: Prepared, j: number): number {
  const up = d.parents[j];
  if (up < 0 || !d.scaled) return 1;
  let g = 0;
  for (let f = 0; f < d.F; f++) {
    const m = (f * d.J + up) * 9;
    let sum = 0;
    for (let e = 0; e < 9; e++) sum += d.M[m + e] * d.M[m + e];
    g = Math.max(g, Math.sqrt(sum));
  }
  return g;
}

/** Joint `j` and its descendants, each moved rigidly by `j`'s translation error (reach: {@link parentGain}). */
function rigid(d: Prepared, j: number): { nodes: Int32Array; reach: Float64Array } {
  const inside = new Uint8Array(d.J);
  inside[j] = 1;
  const nodes: number[] = [j];
  // parents come before children in a clip's skeleton
  for (let k = j + 1; k < d.J; k++) {
    const up = d.parents[k];
    if (up >= 0 && inside[up]) {
      inside[k] = 1;
      nodes.push(k);
    }
  }
  return { nodes: Int32Array.from(nodes), reach: new Float64Array(nodes.length).fill(1) };
}

/**
 * The local translations with the tracks of `moved` as stored: at their mantissa width, decoded as a
 * player decodes the exponential filter (float32 `m·2^e`), or in float32 ({@link FLOAT_BITS}); divided by
 * `scale` back to the clip's units. Returns them (frame-major like `d.t`; other entries as `d.t`) with
 * the codes per filtered track.
 */
function encodeTranslations(
  d: Prepared,
  keys: KeySets,
  moved: number[],
  tBits: Uint8Array,
  scale: number,
): { t: Float64Array; translationCodes: TranslationCodes[] } {
  const t = Float64Array.from(d.t);
  const translationCodes: TranslationCodes[] = [];
  for (const j of moved) {
    const kept = keys[j][0] as Int32Array;
    const n = kept.length;
    const values = scaledKeys(d, kept, j, scale);
    const out = new Float32Array(n * 3);
    if (tBits[j] === FLOAT_BITS) out.set(values);
    else {
      const codes = new Uint32Array(n * 3);
      encodeExpFilter(values, n, 3, tBits[j], codes);
      decodeExpFilter(codes, out);
      translationCodes.push({ joint: j, bits: tBits[j], codes });
    }
    for (let k = 0; k < n; k++)
      for (let c = 0; c < 3; c++) t[(kept[k] * d.J + j) * 3 + c] = out[k * 3 + c] / scale;
  }
  return { t, translationCodes };
}

/**
 * Encodes every animated rotation key at its joint's width (with error feedback when every track has
 * every frame) and returns the decoded keys as normalised 16-bit values (`c / 32767`, frame-major like
 * `d.q`; other entries as `d.q`) with the codes per filtered track. A float track ({@link FLOAT_BITS})
 * keeps its keys in float32: with feedback the compensated local rotation (sign-continuous with the
 * sample), else the sample as it is; its children are encoded against that value.
 */
function encodePose(
  d: Prepared,
  keys: KeySets,
  animated: number[],
  bits: Uint8Array,
  feedback: boolean,
  held: Uint8Array,
): { from: Float64Array; codes: RotationCodes[] } {
  const { J, F, parents } = d;
  const from = Float64Array.from(d.q);
  const filtered = animated.filter((j) => bits[j] !== FLOAT_BITS);
  const codes: RotationCodes[] = filtered.map((j) => ({
    joint: j,
    bits: bits[j],
    codes: new Int16Array((keys[j][1] as Int32Array).length * 4),
  }));
  const slot = new Int32Array(J).fill(-1);
  filtered.forEach((j, i) => {
    slot[j] = i;
  });
  const W = new Float64Array(J * 4);
  const R = new Float64Array(J * 4);
  const qn = new Float64Array(4);
  const k = new Float64Array(4);
  const v = new Float64Array(4);
  const out = new Int16Array(4);
  const next = new Int32Array(J);
  for (const j of animated) {
    if (!held[j]) continue;
    // a constant track's one key, encoded as it is (no feedback: it holds every frame)
    const i = ((keys[j][1] as Int32Array)[0] * J + j) * 4;
    if (bits[j] === FLOAT_BITS) {
      for (let n = 0; n < 4; n++) from[i + n] = Math.fround(d.q[i + n]);
      continue;
    }
    const c = codes[slot[j]].codes;
    unit(d.q, i, k);
    encodeQuatFilter(k, 0, bits[j], c, 0);
    decodeQuatFilter(c, 0, out, 0);
    for (let n = 0; n < 4; n++) from[i + n] = out[n] / 32767;
  }
  const isAnimated = new Uint8Array(J);
  for (const j of animated) isAnimated[j] = 1;
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const i = (f * J + j) * 4;
      const up = parents[j];
      unit(d.q, i, qn);
      if (up < 0) W.set(qn, j * 4);
      else multiplyRaw(W, j * 4, W, up * 4, qn, 0);
      const kept = isAnimated[j] ? (keys[j][1] as Int32Array) : null;
      if (kept !== null && held[j]) {
        // a constant track's one key (encoded above) holds every frame: its decoded value
        unit(from, (kept[0] * J + j) * 4, v);
        if (up < 0) R.set(v, j * 4);
        else multiplyRaw(R, j * 4, R, up * 4, v, 0);
        continue;
      }
      if (kept === null || kept[next[j]] !== f) {
        if (up < 0) R.set(qn, j * 4);
        else multiplyRaw(R, j * 4, R, up * 4, qn, 0);
        continue;
      }
      const key = next[j]++;
      const compensate = feedback && up >= 0;
      if (compensate) {
        // conj(R̃_parent) ⊗ W: the local rotation that puts the joint's world rotation on the original's
        v[0] = -R[up * 4];
        v[1] = -R[up * 4 + 1];
        v[2] = -R[up * 4 + 2];
        v[3] = R[up * 4 + 3];
        multiplyRaw(k, 0, v, 0, W, j * 4);
      } else k.set(qn);
      if (bits[j] === FLOAT_BITS) {
        // float32: the compensated rotation on the sample's side of the double cover, or the sample as it is
        const flip = compensate && k[0] * qn[0] + k[1] * qn[1] + k[2] * qn[2] + k[3] * qn[3] < 0 ? -1 : 1;
        for (let n = 0; n < 4; n++) from[i + n] = Math.fround(compensate ? flip * k[n] : d.q[i + n]);
      } else {
        const c = codes[slot[j]].codes;
        encodeQuatFilter(k, 0, bits[j], c, key * 4);
        decodeQuatFilter(c, key * 4, out, 0);
        for (let n = 0; n < 4; n++) from[i + n] = out[n] / 32767;
      }
      unit(from, i, v);
      if (up < 0) R.set(v, j * 4);
      else multiplyRaw(R, j * 4, R, up * 4, v, 0);
    }
  }
  return { from, codes };
}

function unit(src: ArrayLike<number>, i: number, out: Float64Array): void {
  const n = Math.hypot(src[i], src[i + 1], src[i + 2], src[i + 3]);
  for (let c = 0; c < 4; c++) out[c] = src[i + c] / n;
}

/** Rotation angle between the unit quaternion `q` and the quaternion `c` (16-bit or float; normalised). */
function angleTo(q: Float64Array, c: Int16Array | Float64Array): number {
  const n = Math.hypot(c[0], c[1], c[2], c[3]);
  const dot = Math.abs(q[0] * c[0] + q[1] * c[1] + q[2] * c[2] + q[3] * c[3]) / n;
  return 2 * Math.acos(Math.min(1, dot));
}
