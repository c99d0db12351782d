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

/** The filter input of one rotation track: its joint, bit width and four codes per kept key. */
export interface RotationCodes {
  joint: number;
  bits: number;
  codes: Int16Array;
}

/**
 * Every key of every track kept; each animated rotation track's bit width chosen so that the measured
 * object-space error stays within `o.tolerance`. Returns the reduction's result (rotation keys as the
 * filter decodes them, normalised 16-bit values) and the codes the writer stores.
 *
 * Method. A linear model of the error picks the widths: with error feedback down the hierarchy (each
 * joint's key is encoded from the local rotation that puts its world rotation on the original's given
 * its parent's decoded one, as `quantizedReference` does for 16-bit keys), a joint's world rotation error
 * is its own decoding error θ, which moves its children's origins by θ·(bone length) and its own virtual
 * vertices by θ·shell; without feedback (tracks keyed at different times) θ moves every descendant by
 * θ·(its distance). Per joint and width, θ is the largest decoding angle over the track's keys. Starting
 * at 16 bits everywhere, the width whose lowering keeps the largest modelled error in the joint's subtree
 * smallest is lowered by one bit, while every modelled error stays within the budget. The pose is then
 * encoded and measured exactly (six virtual vertices per joint at every original frame), and the
 * model's budget scaled by the ratio of the tolerance to the measured error (the model bounds from
 * above, so it usually grows) and the widths chosen again, up to ten times; of the choices that measure
 * within the tolerance the one with the fewest bits is kept.
 *
 * @throws {OptionError} when 16 bits everywhere measure above the tolerance.
 */
export function variableBits(
  clip: Clip,
  d: Prepared,
  o: Resolved,
): { result: ReduceKeysResult; codes: RotationCodes[] } {
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
  const influence = influences(d, animated, feedback);
  const bits = new Uint8Array(J);
  const cost = (b: Uint8Array) => animated.reduce((n, j) => n + b[j] * (keys[j][1] as Int32Array).length, 0);
  // the model bounds the error from above: its budget is scaled towards the tolerance by what the
  // measurement finds, and the feasible choice with the fewest bits kept
  let budget = o.tolerance;
  let best: { result: ReduceKeysResult; codes: RotationCodes[]; cost: number } | null = null;
  let lastError = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 10; attempt++) {
    chooseBits(bits, animated, theta, influence, J, budget);
    const { from, codes } = encodePose(d, keys, animated, bits, feedback, held);
    const result = finish(clip, { ...d, q: from }, { ...o, quantization: 'int16' }, keys, undefined, states);
    const error = result.report.maxError;
    lastError = error;
    if (error <= o.tolerance) {
      const c = cost(bits);
      if (best === null || c < best.cost) best = { result, codes, cost: c };
    } else if (animated.every((j) => bits[j] === QUAT_FILTER_MAX_BITS)) break;
    const ratio = (0.995 * o.tolerance) / error;
    if (error <= o.tolerance && ratio < 1.02) break; // within 2.5% of the tolerance: close enough
    budget *= Math.min(2, Math.max(0.5, error > o.tolerance ? Math.min(0.95, ratio) : ratio));
  }
  if (best !== null) return { result: best.result, codes: best.codes };
  throw new OptionError(
    `reduceKeys: tolerance ${o.tolerance.toPrecision(3)} cannot hold with variable bit rates: ${QUAT_FILTER_MAX_BITS}-bit rotations measure ${lastError.toPrecision(3)}; raise the tolerance or store float rotations`,
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

/** Per animated joint and width (4..16), the largest decoding angle of its rotation keys (radians). */
function angleTables(d: Prepared, keys: KeySets, animated: number[]): Float64Array[] {
  const codes = new Int16Array(4);
  const out = new Int16Array(4);
  const q = new Float64Array(4);
  return animated.map((j) => {
    const table = new Float64Array(LEVELS);
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
    return table;
  });
}

/**
 * Per animated joint `a`, the joints its rotation error moves and how far per radian: its own virtual
 * vertices (the shell in scene units) and, with feedback, each child's subtree by that child's bone length
 * (largest over frames), else each descendant by its largest distance from `a` plus its shell.
 */
function influences(
  d: Prepared,
  animated: number[],
  feedback: boolean,
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
  const distance = (a: number, k: number): number => {
    let r = 0;
    for (let f = 0; f < F; f++) {
      const ia = (f * J + a) * 3;
      const ik = (f * J + k) * 3;
      r = Math.max(r, Math.hypot(p[ik] - p[ia], p[ik + 1] - p[ia + 1], p[ik + 2] - p[ia + 2]));
    }
    return r;
  };
  return animated.map((a) => {
    const nodes: number[] = [a];
    const reach: number[] = [shell[a]];
    // descendants in order (parents come before children in a clip's skeleton)
    const childOf = new Int32Array(J).fill(-1);
    const bone = new Map<number, number>();
    for (let k = a + 1; k < J; k++) {
      const up = parents[k];
      if (up === a) childOf[k] = k;
      else if (up > a && childOf[up] >= 0) childOf[k] = childOf[up];
      else continue;
      const c = childOf[k];
      let length = bone.get(c);
      if (length === undefined) bone.set(c, (length = distance(a, c)));
      nodes.push(k);
      reach.push(feedback ? length : distance(a, k) + shell[k]);
    }
    return { nodes: Int32Array.from(nodes), reach: Float64Array.from(reach) };
  });
}

/** Greedy widths under the linear model: lower the width that keeps its subtree's largest error smallest. */
function chooseBits(
  bits: Uint8Array,
  animated: number[],
  theta: Float64Array[],
  influence: { nodes: Int32Array; reach: Float64Array }[],
  J: number,
  budget: number,
): void {
  const load = new Float64Array(J);
  const level = new Int32Array(animated.length).fill(LEVELS - 1);
  for (let i = 0; i < animated.length; i++) {
    bits[animated[i]] = QUAT_FILTER_MAX_BITS;
    const { nodes, reach } = influence[i];
    for (let n = 0; n < nodes.length; n++) load[nodes[n]] += theta[i][LEVELS - 1] * reach[n];
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
 * `d.q`; other entries as `d.q`) with the codes per track.
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
  const codes: RotationCodes[] = animated.map((j) => ({
    joint: j,
    bits: bits[j],
    codes: new Int16Array((keys[j][1] as Int32Array).length * 4),
  }));
  const slot = new Int32Array(J).fill(-1);
  animated.forEach((j, i) => {
    slot[j] = i;
  });
  const W = new Float64Array(J * 4);
  const R = new Float64Array(J * 4);
  const qn = new Float64Array(4);
  const k = new Float64Array(4);
  const v = new Float64Array(4);
  const out = new Int16Array(4);
  const next = new Int32Array(animated.length);
  for (const j of animated) {
    if (!held[j]) continue;
    // a constant track's one key, encoded as it is (no feedback: it holds every frame)
    const i = ((keys[j][1] as Int32Array)[0] * J + j) * 4;
    const c = codes[slot[j]].codes;
    unit(d.q, i, k);
    encodeQuatFilter(k, 0, bits[j], c, 0);
    decodeQuatFilter(c, 0, out, 0);
    for (let n = 0; n < 4; n++) from[i + n] = out[n] / 32767;
  }
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const i = (f * J + j) * 4;
      const up = parents[j];
      unit(d.q, i, qn);
      if (up < 0) W.set(qn, j * 4);
      else multiplyRaw(W, j * 4, W, up * 4, qn, 0);
      const s = slot[j];
      const kept = s >= 0 ? (keys[j][1] as Int32Array) : null;
      if (kept !== null && held[j]) {
        // a constant track's one key (encoded above) holds every frame: its decoded value
        unit(from, (kept[0] * J + j) * 4, v);
        if (up < 0) R.set(v, j * 4);
        else multiplyRaw(R, j * 4, R, up * 4, v, 0);
        continue;
      }
      if (kept === null || kept[next[s]] !== f) {
        if (up < 0) R.set(qn, j * 4);
        else multiplyRaw(R, j * 4, R, up * 4, qn, 0);
        continue;
      }
      if (feedback && up >= 0) {
        // conj(R̃_parent) ⊗ W: the local rotation that puts the joint's world rotation on the original's
        v[0] = -R[up * 4];
        v[1] = -R[up * 4 + 1];
        v[2] = -R[up * 4 + 2];
        v[3] = R[up * 4 + 3];
        multiplyRaw(k, 0, v, 0, W, j * 4);
      } else k.set(qn);
      const c = codes[s].codes;
      const o = next[s]++ * 4;
      encodeQuatFilter(k, 0, bits[j], c, o);
      decodeQuatFilter(c, o, out, 0);
      for (let n = 0; n < 4; n++) from[i + n] = out[n] / 32767;
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

/** Rotation angle between the unit quaternion `q` and the 16-bit quaternion `c` (normalised). */
function angleTo(q: Float64Array, c: Int16Array): number {
  const n = Math.hypot(c[0], c[1], c[2], c[3]);
  const dot = Math.abs(q[0] * c[0] + q[1] * c[1] + q[2] * c[2] + q[3] * c[3]) / n;
  return 2 * Math.acos(Math.min(1, dot));
}
