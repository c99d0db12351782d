// 16-bit rotation keys in the object metric: the search compares against the pose of every key rounded as
// it will be stored, and the rounding's own error is measured on that pose, not bounded a priori.
import { conjugateRaw, multiplyRaw } from '../../quat/raw.js';
import { ANIMATED_ROTATION, type Clip } from '../../series/clip.js';
import { isConstantTrack } from './reduce-constant.js';
import { interpolateComponent, normalise4, quantize16 } from './reduce-interpolate.js';
import type { Resolved } from './reduce-options.js';
import { type KeySets, type Prepared, prepare, trackKeys } from './reduce-prepare.js';
import { poseError } from './reduce-report.js';

/** The reference a 16-bit reduction searches against, and what the rounding alone costs. */
export interface QuantizedReference {
  /**
   * `d` with its world transforms (`M`, `p`, `Q`, `reach`) replaced by those of the pose with every
   * animated rotation key rounded to normalised 16-bit and normalised (what a player evaluates from
   * every key as stored), and its key values (`q`) those of {@link QuantizedReference.source}.
   */
  ref: Prepared;
  /** `d` (the original's world transforms, for the report) with the key values the rounding starts from. */
  source: Prepared;
  /**
   * Largest virtual-vertex error (the report's measure: six per joint at the shell, scene units) of
   * the rounded pose against the original, over every joint and frame: the rounding's cost when every
   * key is kept.
   */
  error: number;
}

/**
 * The reference of a 16-bit reduction (object metric, linear player). By the triangle inequality at
 * each virtual vertex, a reduction within `tolerance − error` of the all-keys rounded pose is within
 * `tolerance` of the original. Against that pose, keeping every key has no error at all, so every joint
 * stays feasible under the usual shares and the rounding is accounted by measurement: a deep hierarchy
 * whose worst-case rounding bound (`ρ·2/32767` per joint, summed along a chain) exceeds the tolerance
 * is refused only when the rounded keys themselves measure above it.
 *
 * Two roundings are measured and the one with the smaller error kept: each key rounded to the nearest
 * 16-bit value, and rounding with error feedback down the hierarchy, where a joint's key is rounded from
 * the local rotation that puts its world rotation where the original's is given its parent's rounded
 * world rotation (`P̃* ⊗ W`), so rotation errors do not add up along a chain (exact for uniform scales;
 * with others it is only a different choice of keys, measured the same way).
 */
export function quantizedReference(clip: Clip, d: Prepared, o: Resolved): QuantizedReference {
  const keys = trackKeys(clip, d);
  let best: { source: Prepared; rounded: Float64Array; error: number } | null = null;
  for (const feedback of [false, true]) {
    const { from, rounded } = roundedPose(clip, d, o, keys, feedback);
    const source: Prepared = { ...d, q: from };
    // the pose a clip of every key, rounded, evaluates to (what finish would build and measure)
    const error = poseError(source, o, d.t, rounded, d.s);
    if (best === null || error < best.error) best = { source, rounded, error };
  }
  const { source, rounded, error } = best!;
  // the world transforms of the chosen rounding only
  const pose: Clip = { ...clip, rotations: { ...clip.rotations, data: rounded } };
  const world = prepare(pose, false, d.reach.length > 0, o.shell, null, null, true);
  const ref: Prepared = { ...source, M: world.M, p: world.p, Q: world.Q, reach: world.reach };
  return { ref, source, error };
}

/**
 * The key values the rounding starts from (`from`: the original samples, or with error feedback the
 * compensated local rotations, sign-continuous with the samples) and the local rotations a player
 * evaluates from every key rounded (`rounded`; joints whose rotation is not animated keep the sample).
 * A keyed track is rounded at its own keys and interpolated between them as a player does, so the
 * rounded pose at another track's key time is the one the file gives there. Joints are walked parents
 * first, each over all frames, so a child's feedback sees its parent's rounded pose at every frame.
 */
function roundedPose(
  clip: Clip,
  d: Prepared,
  o: Resolved,
  keys: KeySets,
  feedback: boolean,
): { from: Float64Array; rounded: Float64Array } {
  const { J, F, parents } = d;
  const from = feedback ? Float64Array.from(d.q) : d.q;
  const rounded = Float64Array.from(d.q);
  const source: Prepared = { ...d, q: from };
  // world rotations of the original (error feedback only) and of the rounded pose, frame-major
  const W = new Float64Array(feedback ? F * J * 4 : 0);
  const R = new Float64Array(feedback ? F * J * 4 : 0);
  const qn = new Float64Array(4);
  const k = new Float64Array(4);
  const v = new Float64Array(4);
  for (let f = 0; f < (feedback ? F : 0); f++) {
    for (let j = 0; j < J; j++) {
      const i = (f * J + j) * 4;
      const up = parents[j];
      for (let c = 0; c < 4; c++) qn[c] = d.q[i + c];
      normalise4(qn);
      if (up < 0) W.set(qn, i);
      else multiplyRaw(W, i, W, (f * J + up) * 4, qn, 0);
    }
  }
  for (let j = 0; j < J; j++) {
    const up = parents[j];
    const own = clip.animated[j] & ANIMATED_ROTATION ? keys[j][1] : null;
    // a constant track is rounded as it is (no feedback), so its rounded keys stay equal: one key holds them
    const compensate = feedback && own !== null && !isConstantTrack(clip, d, j, 1);
    if (own) {
      for (let n = 0; n < own.length; n++) {
        const f = own[n];
        const i = (f * J + j) * 4;
        for (let c = 0; c < 4; c++) qn[c] = d.q[i + c];
        normalise4(qn);
        if (compensate && up >= 0) {
          // conj(P̃) ⊗ W: the local rotation that puts the joint's world rotation on the original's
          conjugateRaw(v, 0, R, (f * J + up) * 4);
          multiplyRaw(k, 0, v, 0, W, i);
          if (k[0] * qn[0] + k[1] * qn[1] + k[2] * qn[2] + k[3] * qn[3] < 0)
            for (let c = 0; c < 4; c++) k[c] = -k[c];
        } else for (let c = 0; c < 4; c++) k[c] = compensate ? qn[c] : d.q[i + c];
        if (feedback) for (let c = 0; c < 4; c++) from[i + c] = k[c];
        // the search's own operations (apply: quantise, then normalise4), so the poses agree bit for bit
        for (let c = 0; c < 4; c++) v[c] = quantize16(k[c]);
        normalise4(v);
        for (let c = 0; c < 4; c++) rounded[i + c] = v[c];
      }
      if (own.length < F) {
        // between a keyed track's own keys: what the player interpolates from the rounded keys
        let n = 0;
        for (let f = 0; f < F; f++) {
          while (n < own.length && own[n] < f) n++;
          if (n < own.length && own[n] === f) continue;
          const a = own[n > 0 ? n - 1 : 0];
          const b = own[n < own.length ? n : own.length - 1];
          interpolateComponent(v, source, o, j, 1, a, b, f);
          for (let c = 0; c < 4; c++) rounded[(f * J + j) * 4 + c] = v[c];
        }
      }
    }
    // the joint's rounded world rotation, for its children's feedback
    for (let f = 0; f < (feedback ? F : 0); f++) {
      const i = (f * J + j) * 4;
      if (!own) {
        for (let c = 0; c < 4; c++) qn[c] = d.q[i + c];
        normalise4(qn);
      } else for (let c = 0; c < 4; c++) qn[c] = rounded[i + c];
      if (up < 0) R.set(qn, i);
      else multiplyRaw(R, i, R, (f * J + up) * 4, qn, 0);
    }
  }
  return { from, rounded };
}
