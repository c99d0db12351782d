/**
 * Keyframe reduction with a guaranteed error bound.
 *
 * @module
 */
import { InvalidValueError, OptionError } from '../../errors.js';
import type { Clip, KeyedClip } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';
import { FLOAT_BITS, variableBits } from './reduce-bits.js';
import { isKeyed, keyedFrames } from './reduce-keyed.js';
import {
  type ReduceKeysOptions,
  type ReduceKeysResult,
  type Resolved,
  resolve,
  scaled,
} from './reduce-options.js';
import { maxTrackKeys, prepare, trackKeys } from './reduce-prepare.js';
import { quantizedReference } from './reduce-quantize.js';
import { finish } from './reduce-report.js';
import { reduceAll } from './reduce-search.js';

export {
  REDUCE_KEYS_DEFAULTS,
  type ReduceEffort,
  type ReduceKeysOptions,
  type ReduceKeysReport,
  type ReduceKeysResult,
  type ReduceMetric,
  type ReducePreset,
  type ReduceQuantization,
  type ReduceTrackTarget,
} from './reduce-options.js';

/**
 * Reduces a uniformly sampled clip, or a keyed clip (glTF), to keys that a glTF player evaluates within a
 * guaranteed error of the original at every original frame time (every key time of a keyed clip).
 *
 * Keyed clips. The kept keys are a subset of each track's own keys: their times and values are the
 * track's, bit for bit (CUBICSPLINE: with their in- and out-tangents; 16-bit rotations when
 * `quantization: 'int16'` is asked), whatever the spacing of the key times (jittered, non-uniform, each
 * track its own). Each track keeps its interpolation (LINEAR, STEP or CUBICSPLINE; `interpolation:
 * 'cubicspline'` is refused: it applies to uniform clips). The original is evaluated at every distinct key
 * time of its tracks (each as glTF defines it; joints without a track at their rest values), the bound is
 * checked and the error measured there, with the interpolation parameter from the key times
 * (`(t − t_a)/(t_b − t_a)`). `effort: 'best'` checks points but fits no values (values stay the track's).
 * Morph-weight tracks are kept as they are. No grid, no bake: nothing moves in time.
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
 *   end within `tolerance`. When every scale is 1, world transforms are kept as unit quaternions and
 *   origins, and LINEAR rotations are checked on quaternions: the world rotation error of a candidate
 *   `q` has spectral norm `2·√(1 − (q·(P*⊗W))²)`, with `P` the reduced parent's and `W` the original
 *   world rotation, so no matrix is built per candidate. Each rotation is normalised first, as the
 *   player's matrix formula does, so float32 keys (unit only to about 1e-7) are checked the same way.
 *   The report measures six vertices per joint (± each local axis at `shellDistance`), like ACL.
 *   Shell and tolerance are scene units: world positions compose every ancestor in the skeleton (up to
 *   the scene roots), and each joint's vertices sit at `shellDistance / |column k of its rest world
 *   linear part|` along local axis `k`, so `shellDistance` from the joint in the scene at rest, whatever
 *   scale the armature has (`ρ_j` starts from that local offset).
 * - `'local'`: each track on its own: rotation angle, translation distance, relative scale.
 *
 * `effort: 'best'` (`'object'` metric) adds two things. Where the radius bound fails at a frame, the
 * frame is checked on the points themselves: the joint's origin and every descendant's, posed as in the
 * original, each displaced by `|Δp + ΔM·y_k|`, plus `‖ΔM‖·shell`; this is never above the radius bound,
 * and a descendant keeping all its keys sees the same points displaced as much, so descendants stay
 * feasible. With scales, `y_k = M⁻¹·(p_k − p_j)` and the shell part is `‖ΔM‖_F` times the largest
 * descendant shell grown by the `max|s|` of the joints down to it (each descendant's own `‖ΔM_k‖_F` is at
 * most `‖ΔM‖_F` times that product, so the same argument holds). And (linear player, clips without
 * scale) rotation keys take fitted values: from the last key `K`,
 * a key at frame `e` is aimed, in the tangent space at `K`, at the intersection of the balls each frame
 * between allows (a few projections onto the most violated ball), then verified exactly like a sample;
 * the sample is tried when the fitted value fails, so every joint stays as feasible as with samples.
 * The bound and its proof are unchanged; only which candidates are tried differs.
 *
 * Constant tracks. A track whose keys are all equal in float32 (rotations up to sign; CUBICSPLINE with
 * zero tangents) keeps one key (`report.constantTracks`); when that key plays the joint's rest value
 * (translation and scale exactly, rotation normalised to float64 round-off) the track is dropped
 * (`report.droppedTracks`): the node holds its rest value without it, which is what the bound was
 * checked on. `keepAtRest` keeps such tracks (as one key); a clip keeps at least one track.
 *
 * Mesh shells. `shellDistance: 'mesh'` with `meshShells` (per joint, in its local units: `skinShells`
 * of a glTF clip, the farthest vertex with weight on the joint through its inverse bind matrix) puts
 * each joint's virtual vertices at its own distance on every local axis; the bound then covers every
 * skinned vertex (a weighted mean of its joints' transforms of it). Negative (or NaN) entries take the default shell.
 *
 * Interpolation: `'linear'` is slerp on the shorter arc (keys written sign-continuous) and lerp;
 * `'cubicspline'` is glTF's Hermite spline with tangents from the original samples' central differences
 * (rotations normalised after). With `quantization: 'int16'` rotation keys are rounded to normalised
 * 16-bit values first and players are assumed to normalise after interpolating (three.js, Babylon and
 * glTF-Transform do for quantised rotations); the bound includes the rounding. In the `'object'` metric
 * the rounding is measured, not bounded a priori: the search compares against the pose of every key
 * rounded (which keeping every key reproduces exactly), within `tolerance` minus that pose's measured
 * error against the original (the triangle inequality at each vertex), and refuses only when the
 * rounded keys alone measure at or above the tolerance.
 *
 * Variable bit rates. `quantization: 'variable'` keeps every key (a keyed clip's own, times as stored;
 * constant tracks one key, none at the rest value, as the other modes)
 * and stores each rotation track with `EXT_meshopt_compression`'s quaternion filter at its own bit width
 * (4 to 16 bits for the three smallest components, `result.rotationCodes`; `report.rotationBits`) and
 * each translation track with its exponential filter at its own mantissa width (1 to 24 bits, one
 * exponent per component shared by the track's keys, `result.translationCodes`;
 * `report.translationBits`), the widths of both chosen together under the bound and the decoded pose
 * measured as the player loads it (the decoders' float32 arithmetic reproduced bit for bit: quaternion
 * components as meshoptimizer computes them, translations `m·2^e`), like ACL's variable bit rates; scales
 * stay float. The bound is split between rotations and translations two ways (one greedy over both, and
 * rotations first with the translations given what the measurement leaves) and the choice with fewer
 * bits kept. Rotation keys are encoded with error feedback down the hierarchy when every rotation track
 * has every frame. A rotation track that no width holds within the bound is stored as float32 without
 * the filter (32 in `report.rotationBits`, counted in `report.floatTracks`; `result.rotationCodes` has
 * none for it), only that track: its children are encoded against its float value. A translation track
 * stays float32 (32 in `report.translationBits`, no codes) when no width holds, when it has one key, or
 * when it is CUBICSPLINE. Translation codes encode the values a writer stores at `translationScale`
 * (`rotsig reduce` writes BVH clips in metres: 0.01), and the clip's translations are the decoded values
 * divided by it. The measured error is the report's, never above `tolerance`.
 *
 * Sources: ACL's error metric (N. Frechette, "Animation Compression Library", virtual vertices 3 cm from
 * each bone) and ozz-animation's hierarchical tolerance (`animation_optimizer.cc`).
 *
 * @param options - Defaults in {@link REDUCE_KEYS_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on bad options (zero or negative tolerance, a tolerance below what the clip's
 * float64 numbers resolve, unknown names). @throws {ShapeError} on a malformed clip. @throws
 * {InvalidValueError} on non-finite data or a zero quaternion.
 * @example
 * const { clip: keyed, report } = reduceKeys(parseBvh(text), { preset: 'acl', unitsPerMeter: 100 });
 * report.maxError <= report.tolerance; // true, always
 */
export function reduceKeys(input: Clip | KeyedClip, options: ReduceKeysOptions = {}): ReduceKeysResult {
  const o = resolve(options);
  const keyed = isKeyed(input) ? keyedFrames(input, o, options.interpolation === 'cubicspline') : null;
  const clip = keyed ? keyed.clip : (input as Clip);
  assertClip(clip, 'reduceKeys: clip');
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  assertFiniteSeries(clip.rotations.data, J, 4, 'reduceKeys: clip.rotations');
  const zero = firstZero(clip.rotations.data);
  if (zero >= 0) {
    const frame = Math.floor(zero / J);
    const joint = zero % J;
    throw new InvalidValueError(
      `reduceKeys: clip.rotations: zero quaternion at frame ${frame}, joint ${joint}; it is not a rotation`,
      { frame, joint },
    );
  }
  assertFiniteSeries(clip.translations.data, J, 3, 'reduceKeys: clip.translations');
  if (clip.scales) assertFiniteSeries(clip.scales.data, J, 3, 'reduceKeys: clip.scales');
  if (o.meshShells !== null && o.meshShells.length > J)
    throw new OptionError(
      `reduceKeys: meshShells has ${o.meshShells.length} entries for a clip of ${J} joints`,
    );
  const data = prepare(
    clip,
    o.interpolation === 'cubicspline',
    o.effort === 'best' && o.metric === 'object',
    o.shell,
    keyed ? keyed.frames : null,
    o.meshShells,
    // a keyed clip's samples are keyedFrames' own
    keyed !== null,
  );
  // below this, float64 round-off in the clip's own numbers decides, not the keys
  const floor = 1e-12 * Math.max(1, data.extent);
  if (o.metric === 'object' && o.tolerance < floor) {
    throw new OptionError(
      `reduceKeys: tolerance ${o.tolerance} is below what the clip's numbers resolve (${floor.toExponential(1)} in its units)`,
    );
  }
  if (o.quantization === 'variable') {
    // every key, each rotation and translation track at its own width under the bound (measured)
    const { result, codes, translationCodes, bits, translationBits } = variableBits(clip, data, o);
    result.report.quantization = 'variable';
    result.report.rotationBits = Array.from(bits);
    result.report.floatTracks = bits.reduce((n, b) => n + (b === FLOAT_BITS ? 1 : 0), 0);
    result.report.translationBits = Array.from(translationBits);
    result.rotationCodes = codes;
    result.translationCodes = translationCodes;
    return result;
  }
  if (F < 2) {
    // one frame: one key per animated component, exact (16-bit: rounded, and measured)
    const one = finish(clip, data, o, trackKeys(clip, data));
    if (o.metric === 'object' && one.report.maxError > o.tolerance)
      throw roundingExceeds(o.tolerance, one.report.maxError);
    return one;
  }
  // 16-bit keys: searched against the rounded pose, within what its measured rounding error leaves
  const rounded =
    o.metric === 'object' && o.quantization === 'int16' ? quantizedReference(clip, data, o) : null;
  const search = (options: Resolved) => {
    if (rounded === null) return reduceAll(clip, data, options);
    const room = options.tolerance - rounded.error;
    if (!(room > floor)) throw roundingExceeds(options.tolerance, rounded.error);
    return reduceAll(clip, rounded.ref, { ...options, tolerance: room });
  };
  if (o.maxKeys === Number.POSITIVE_INFINITY) {
    const attempt = (options: Resolved) => {
      const reduction = search(options);
      return finish(clip, rounded?.source ?? data, o, reduction.keys, reduction);
    };
    const result = attempt(o);
    if (o.effort !== 'best' || o.metric !== 'object') return result;
    // the points check and fitted values usually keep fewer keys, not always (a fitted key moves the
    // targets of the joints below): 'best' keeps the better of both searches, then widens the budget
    const fast = attempt({ ...o, effort: 'fast' });
    const better = fast.report.keysAfter < result.report.keysAfter ? fast : result;
    const effort = better === fast ? 'fast' : 'best';
    return widerBudgets(better, o, (budget) => attempt({ ...o, effort, tolerance: budget }));
  }
  // key budget: bisection on the tolerance between the rounding's error (or 0) and the given one
  let hi = o.metric === 'object' ? o.tolerance : 1;
  let best = search({ ...o, ...scaled(o, hi) });
  if (maxTrackKeys(best.keys) > o.maxKeys) {
    throw new OptionError(
      `reduceKeys: even tolerance ${hi} needs ${maxTrackKeys(best.keys)} keys in a track; raise tolerance`,
    );
  }
  let lo = rounded === null ? 0 : rounded.error;
  let bestScale = hi;
  for (let it = 0; it < 40 && hi - lo > 1e-3 * hi; it++) {
    const mid = (lo + hi) / 2;
    if (!(mid - (rounded === null ? 0 : rounded.error) > floor)) break;
    const reduction = search({ ...o, ...scaled(o, mid) });
    if (maxTrackKeys(reduction.keys) <= o.maxKeys) {
      hi = mid;
      best = reduction;
      bestScale = mid;
    } else lo = mid;
  }
  return finish(clip, rounded?.source ?? data, { ...o, ...scaled(o, bestScale) }, best.keys, best);
}

/** The item of the first zero quaternion of `r` (x, y, z, w each), or -1 (a function of its own: one hot loop). */
function firstZero(r: ArrayLike<number>): number {
  for (let i = 0; i < r.length; i += 4)
    if (r[i] === 0 && r[i + 1] === 0 && r[i + 2] === 0 && r[i + 3] === 0) return i / 4;
  return -1;
}

/**
 * Budgets `--effort best` tries beyond the tolerance, as multiples of it. The search's shares and radius
 * bound are conservative, so its measured error is often well inside the tolerance; a search under a
 * wider budget can measure within it and keep fewer keys. The error is not monotone in the budget (a
 * wider one may keep other keys that happen to measure better), hence a ladder, not a bisection.
 */
const BUDGET_LADDER = [1.25, 1.5, 1.75, 2, 2.5, 3, 4];
const LADDER_ROOM = 0.95;
const LADDER_STOP = 1.25;

/**
 * `--effort best`: the reduction with the fewest keys among the given one and those searched under
 * {@link BUDGET_LADDER} budgets whose measured error (the report's, every original frame) is within the
 * tolerance. Skipped when the first measures within 5% of the tolerance (no room: on dense captures
 * the search uses nearly all of it); the ladder stops once a budget measures above 1.25x the tolerance.
 */
function widerBudgets(
  result: ReduceKeysResult,
  o: Resolved,
  run: (budget: number) => ReduceKeysResult,
): ReduceKeysResult {
  let best = result;
  // no room left: a wider budget measures above the tolerance (one that keeps fewer keys would have to
  // measure better than the search under the tolerance itself)
  if (!(result.report.maxError < LADDER_ROOM * o.tolerance)) return best;
  for (const s of BUDGET_LADDER) {
    const wider = run(o.tolerance * s);
    if (wider.report.maxError > LADDER_STOP * o.tolerance) break;
    if (wider.report.maxError <= o.tolerance && wider.report.keysAfter < best.report.keysAfter) best = wider;
  }
  return best;
}

function roundingExceeds(tolerance: number, error: number): OptionError {
  return new OptionError(
    `reduceKeys: tolerance ${tolerance.toPrecision(3)} cannot hold: the 16-bit rounding alone exceeds it (every key rounded measures ${error.toPrecision(3)}); raise the tolerance or store float rotations`,
  );
}
