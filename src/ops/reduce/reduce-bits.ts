// Variable bit rates for rotation keys (quantization 'variable'): every key kept, each rotation track
// stored with EXT_meshopt_compression's quaternion filter at its own bit width (4 to 16), the widths chosen
// under the object-space bound and the result measured, as ACL chooses a bit rate per track.
import { OptionError } from '../../errors.js';
import { multiplyRaw } from '../../quat/raw.js';
import { ANIMATED_ROTATION, type Clip } from '../../series/clip.js';
import {
  decodeQuatFilter,
  encodeQuatFilter,
  QUAT_FILTER_MAX_BITS,
  QUAT_FILTER_MIN_BITS,
} from './quat-filter.js';
import { COLLAPSED, DROPPED, isConstantTrack, isRestValue, keptOne } from './reduce-constant.js';
import type { ReduceKeysResult, Resolved } from './reduce-options.js';
import { type KeySets, type Prepared, trackKeys } from './reduce-prepare.js';
import { finish } from './reduce-report.js';

const LEVELS = QUAT_FILTER_MAX_BITS - QUAT_FILTER_MIN_BITS + 1;
/** Measurements spent trying float tracks at 16 bits once widths are chosen. */
const FLOAT_TRIALS = 24;
/** The level above the widest: the track stored as float32, without the filter. */
const FLOAT_LEVEL = LEVELS;

/** The width {@link ReduceKeysReport.rotationBits} gives a rotation track stored as float32 (no filter). */
export const FLOAT_BITS = 32;

/** The filter input of one rotation track: its joint, bit width and four codes per kept key. */
export interface RotationCodes {
  joint: number;
  bits: number;
  codes: Int16Array;
}

/**
 * Every key of every track kept; each animated rotation track's bit width chosen so that the measured
 * object-space error stays within `o.tolerance`. Returns the reduction's result (rotation keys as the
 * filter decodes them, normalised 16-bit values; float32 for the tracks no width holds), the codes the
 * writer stores, and per joint the width chosen ({@link FLOAT_BITS} for a float track, 0 for none).
 *
 * Method. A linear model of the error picks the widths: with error feedback down the hierarchy (each
 * joint's key is encoded from the local rotation that puts its world rotation on the original's given
 * its parent's decoded one, as `quantizedReference` does for 16-bit keys), a joint's world rotation error
 * is its own decoding error θ, which moves its children's origins by θ·(bone length) and its own virtual
 * vertices by θ·shell; without feedback (tracks keyed at different times) θ moves every descendant by
 * θ·(its distance). Per joint and width, θ is the largest decoding angle over the track's keys; above
 * 16 bits is one more level, the track kept as float32 (θ its float32 rounding). Starting at float
 * everywhere, the width whose lowering keeps the largest modelled error in the joint's subtree smallest is
 * lowered by one level, while every modelled error stays within the budget, so a track whose 16 bits the
 * budget cannot take stays float (and only that track: its children are encoded against its float
 * value, as against any decoded parent). The pose is then encoded and measured exactly (six virtual
 * vertices per joint at every original frame), and the model's budget scaled by the ratio of the
 * tolerance to the measured error (the model bounds from above, so it usually grows) and the widths
 * chosen again, up to ten times; of the choices that measure within the tolerance the one with the
 * fewest bits (a float key counted as 32 bits a component) is kept.
 *
 * @throws {OptionError} when float32 rotations everywhere measure above the tolerance (the tolerance is
 * below what the translations or the clip's float32 values resolve).
 */
export function variableBits(
  clip: Clip,
  d: Prepared,
  o: Resolved,
): { result: ReduceKeysResult; codes: RotationCodes[]; bits: Uint8Array } {
  const { J, F } = d;
  const keys = trackKeys(clip, d);
  const states = constantTracks(clip, d, o, keys);
  const animated: number[] = [];
  for (let j = 0; j < J; j++)
    if (clip.animated[j] & ANIMATED_ROTATION && keys[j][1] && states[j * 3 + 1] !== DROPPED) animated.push(j);
  // one key of a constant track holds every frame: it is encoded as it is, the others with feedback
  const held = new Uint8Array(J);
  for (const j of animated) if (states[j * 3 + 1] === COLLAPSED) held[j] = 1;
  const feedback = animated.every((j) => held[j] || (keys[j][1] as Int32Array).length === F);
  const theta = angleTables(d, keys, animated);
  const influence = influences(d, animated, feedback, held);
  const bits = new Uint8Array(J);
  const cost = (b: Uint8Array) => animated.reduce((n, j) => n + b[j] * (keys[j][1] as Int32Array).length, 0);
  // the model bounds the error from above: its budget is scaled towards the tolerance by what the
  // measurement finds, and the feasible choice with the fewest bits kept
  let budget = o.tolerance;
  let best: { result: ReduceKeysResult; codes: RotationCodes[]; bits: Uint8Array; cost: number } | null =
    null;
  let lastError = Number.POSITIVE_INFINITY;
  // the pose at the widths in `bits`, measured: float tracks as they are, the others as the filter decodes them
  const measured = () => {
    const { from, codes } = encodePose(d, keys, animated, bits, feedback, held);
    const storedAsIs = new Uint8Array(J * 3);
    for (const j of animated) if (bits[j] === FLOAT_BITS) storedAsIs[j * 3 + 1] = 1;
    const q = { ...d, q: from };
    const result = finish(clip, q, { ...o, quantization: 'int16', storedAsIs }, keys, undefined, states);
    return { result, codes };
  };
  for (let attempt = 0; attempt < 10; attempt++) {
    chooseBits(bits, animated, theta, influence, J, budget);
    const { result, codes } = measured();
    const error = result.report.maxError;
    lastError = error;
    if (error <= o.tolerance) {
      const c = cost(bits);
      if (best === null || c < best.cost) best = { result, codes, bits: bits.slice(), cost: c };
    } else if (animated.every((j) => bits[j] === FLOAT_BITS)) break;
    const ratio = (0.995 * o.tolerance) / error;
    if (error <= o.tolerance && ratio < 1.02) break; // within 2.5% of the tolerance: close enough
    budget *= Math.min(2, Math.max(0.5, error > o.tolerance ? Math.min(0.95, ratio) : ratio));
  }
  if (best !== null) {
    // the model is conservative: a float track may hold at 16 bits. Each is tried (the smallest modelled
    // harm first, at most FLOAT_TRIALS measurements) and kept at 16 bits when the pose measures within
    bits.set(best.bits);
    const floats = animated
      .map((j, i) => ({ j, harm: theta[i][LEVELS - 1] * Math.max(...influence[i].reach) }))
      .filter((t) => bits[t.j] === FLOAT_BITS)
      .sort((x, y) => x.harm - y.harm);
    for (const { j } of floats.slice(0, FLOAT_TRIALS)) {
      bits[j] = QUAT_FILTER_MAX_BITS;
      const { result, codes } = measured();
      if (result.report.maxError <= o.tolerance)
        best = { result, codes, bits: bits.slice(), cost: cost(bits) };
      else bits[j] = FLOAT_BITS;
    }
  }
  if (best === null) {
    // the model was too far off to converge: float32 everywhere, measured
    bits.fill(0);
    for (const j of animated) bits[j] = FLOAT_BITS;
    const { result, codes } = measured();
    lastError = result.report.maxError;
    if (lastError <= o.tolerance) best = { result, codes, bits: bits.slice(), cost: cost(bits) };
  }
  if (best !== null) return { result: best.result, codes: best.codes, bits: best.bits };
  throw new OptionError(
    `reduceKeys: tolerance ${o.tolerance.toPrecision(3)} cannot hold with variable bit rates: float32 rotations measure ${lastError.toPrecision(3)}; raise the tolerance`,
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
      const col = Math.hypot(M[m + axis], M[m + 3 + axis], M[m + 6 + axis]);
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
 * Greedy widths under the linear model, from float32 everywhere: lower the width that keeps its subtree's
 * largest error smallest, while it stays within the budget.
 */
function chooseBits(
  bits: Uint8Array,
  animated: number[],
  theta: Float64Array[],
  influence: { nodes: Int32Array; reach: Float64Array }[],
  J: number,
  budget: number,
): void {
  const load = new Float64Array(J);
  const level = new Int32Array(animated.length).fill(FLOAT_LEVEL);
  for (let i = 0; i < animated.length; i++) {
    bits[animated[i]] = FLOAT_BITS;
    const { nodes, reach } = influence[i];
    for (let n = 0; n < nodes.length; n++) load[nodes[n]] += theta[i][FLOAT_LEVEL] * reach[n];
  }
  for (;;) {
    let best = -1;
    let bestWorst = Number.POSITIVE_INFINITY;
    for (let i = 0; i < animated.length; i++) {
      if (level[i] === 0) continue;
      const delta = theta[i][level[i] - 1] - theta[i][level[i]];
      const { nodes, reach } = influence[i];
      let worst = 0;
      for (let n = 0; n < nodes.length; n++) worst = Math.max(worst, load[nodes[n]] + delta * reach[n]);
      if (worst <= budget && worst < bestWorst) {
        best = i;
        bestWorst = worst;
      }
    }
    if (best < 0) break;
    const delta = theta[best][level[best] - 1] - theta[best][level[best]];
    const { nodes, reach } = influence[best];
    for (let n = 0; n < nodes.length; n++) load[nodes[n]] += delta * reach[n];
    level[best]--;
    bits[animated[best]] = QUAT_FILTER_MIN_BITS + level[best];
  }
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
