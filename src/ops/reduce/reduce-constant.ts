// Constant tracks of the reduction: a track whose keys are all equal (within float32, rotations up to
// sign) keeps one key, and none when that key is the joint's rest value (the node holds it anyway).
import type { Clip } from '../../series/clip.js';
import { CUBIC } from './reduce-keyed.js';
import type { KeySets, Prepared } from './reduce-prepare.js';

/** {@link constantState}: a constant track kept as one key. */
export const COLLAPSED = 1;
/** {@link constantState}: a constant track at the rest value, dropped from the written animation. */
export const DROPPED = 2;

const f32 = Math.fround;

/**
 * Whether joint `j`'s `component` (0 translation, 1 rotation, 2 scale) has every key equal to its first
 * after rounding to float32 (rotations: all with the same sign, or all negated); a keyed clip's track is
 * read as stored (a CUBICSPLINE one also needs every tangent zero), a uniform clip's samples as given.
 */
export function isConstantTrack(clip: Clip, d: Prepared, j: number, component: 0 | 1 | 2): boolean {
  const w = component === 1 ? 4 : 3;
  if (d.keyed !== null) {
    const track = d.keyed.tracks[j * 3 + component];
    if (track === null) return false;
    const cubic = d.keyed.interpolation[j * 3 + component] === CUBIC;
    const per = cubic ? 3 : 1;
    const n = track.times.length;
    const at = (k: number) => (k * per + (cubic ? 1 : 0)) * w;
    if (cubic)
      for (let k = 0; k < n; k++)
        for (let c = 0; c < w; c++)
          if (f32(track.values[k * 3 * w + c]) !== 0 || f32(track.values[(k * 3 + 2) * w + c]) !== 0)
            return false;
    for (let k = 1; k < n; k++) if (!sameValue(track.values, at(0), track.values, at(k), w)) return false;
    return true;
  }
  const data =
    component === 0 ? clip.translations.data : component === 1 ? clip.rotations.data : clip.scales?.data;
  if (data === undefined) return false;
  const J = d.J;
  for (let f = 1; f < d.F; f++) if (!sameValue(data, j * w, data, (f * J + j) * w, w)) return false;
  return true;
}

/** Whether `a[ao..]` and `b[bo..]` (`w` numbers) are equal in float32; quaternions (`w = 4`) also when negated. */
function sameValue(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, w: number): boolean {
  let same = true;
  for (let c = 0; c < w && same; c++) if (f32(a[ao + c]) !== f32(b[bo + c])) same = false;
  if (same || w !== 4) return same;
  for (let c = 0; c < w; c++) if (f32(a[ao + c]) !== -f32(b[bo + c])) return false;
  return true;
}

/** Per component, how far two unit quaternions may differ and still be read as one rotation: float64 round-off. */
const SAME_ROTATION = 4 * Number.EPSILON;

/**
 * Whether `v[at..]`, the value a one-key component of joint `j` plays (as the check evaluated it), is
 * the joint's rest value: translations and scales exactly; rotations (which readers and players
 * normalise, the rest value included) when both normalised agree, or agree negated, to float64
 * round-off, so a player showing the rest value without a track shows what the bound was checked on.
 */
export function isRestValue(
  clip: Clip,
  v: ArrayLike<number>,
  at: number,
  j: number,
  component: 0 | 1 | 2,
): boolean {
  const sk = clip.skeleton;
  if (component === 1) {
    const r = sk.restRotations;
    const nq = Math.hypot(v[at], v[at + 1], v[at + 2], v[at + 3]);
    const nr = Math.hypot(r[j * 4], r[j * 4 + 1], r[j * 4 + 2], r[j * 4 + 3]);
    if (!(nq > 0 && nr > 0)) return false;
    let same = true;
    let negated = true;
    for (let c = 0; c < 4; c++) {
      const a = v[at + c] / nq;
      const b = r[j * 4 + c] / nr;
      if (!(Math.abs(a - b) <= SAME_ROTATION)) same = false;
      if (!(Math.abs(a + b) <= SAME_ROTATION)) negated = false;
    }
    return same || negated;
  }
  const r = component === 0 ? sk.restTranslations : sk.restScales;
  for (let c = 0; c < 3; c++) if (v[at + c] !== r[j * 3 + c]) return false;
  return true;
}

/**
 * `constant` with the first dropped track kept (collapsed) when every track would go and the clip has no
 * morph-weight track: an animation needs a channel (its one key is the rest value, so nothing changes).
 */
export function keptOne(constant: Uint8Array, keys: KeySets, d: Prepared): Uint8Array {
  if (d.keyed !== null && d.keyed.weights.length > 0) return constant;
  let first = -1;
  for (let j = 0; j < keys.length; j++) {
    for (let component = 0; component < 3; component++) {
      if (!keys[j][component]) continue;
      if (constant[j * 3 + component] !== DROPPED) return constant;
      if (first < 0) first = j * 3 + component;
    }
  }
  if (first < 0) return constant;
  const out = Uint8Array.from(constant);
  out[first] = COLLAPSED;
  return out;
}
