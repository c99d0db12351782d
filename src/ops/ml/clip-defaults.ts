/**
 * Defaults the ML feature operations take from the clip itself: its world's up axis, its length unit and
 * the joint that carries its motion.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import type { Clip } from '../../series/clip.js';
import { checkClip } from '../skeleton/clip-check.js';
import type { UpAxis } from './root-motion.js';

/**
 * The world's up axis a clip's source implies: `'z'` for AMASS files (their `trans` is in a z-up world),
 * `'y'` otherwise (BVH, glTF).
 *
 * @throws {ShapeError} when `clip` is not a well-formed Clip.
 * @example
 * clipUpAxis(amassToClip(npz)); // 'z'
 */
export function clipUpAxis(clip: Clip): UpAxis {
  checkClip(clip, 'clipUpAxis');
  return clip.source?.format === 'amass' ? 'z' : 'y';
}

/**
 * The length units motion-capture skeletons come in, with their units per metre, in the order
 * {@link clipUnitsPerMeter} tries them: metres, centimetres, millimetres, inches, and the CMU database's
 * ASF unit (1/0.45 inch, kept by its common BVH conversions).
 */
export const LENGTH_UNITS: readonly { name: string; unitsPerMeter: number }[] = [
  { name: 'm', unitsPerMeter: 1 },
  { name: 'cm', unitsPerMeter: 100 },
  { name: 'mm', unitsPerMeter: 1000 },
  { name: 'in', unitsPerMeter: 1 / 0.0254 },
  { name: 'cmu', unitsPerMeter: 0.45 / 0.0254 },
];

/** Rest-pose extents of a person, metres: a child's height to a tall adult's arm span. */
const PERSON_EXTENT: [number, number] = [0.9, 2.4];

/**
 * Length units per metre of a clip, from its skeleton's size: the largest extent of its rest pose (every
 * joint at its rest translation, no rotation), which for a person is their height or arm span, 0.9 to
 * 2.4 m. The first of {@link LENGTH_UNITS} (m, cm, mm, in, CMU) in which the extent is a person's size is
 * taken, else the one nearest to 1.6 m (by ratio). AMASS clips are metres, and a skeleton without bone
 * offsets (an AMASS clip without its model's joint template) gives 1. The shared captures: CMU 01_01
 * (extent 25) is the CMU unit, the PyMO walk (61) inches, the others (133 to 213) centimetres.
 *
 * @throws {ShapeError} when `clip` is not a well-formed Clip.
 * @example
 * clipUnitsPerMeter(parseBvh(fs.readFileSync('boxing.bvh', 'utf8'))); // 100: its rest pose spans 156 units
 */
export function clipUnitsPerMeter(clip: Clip): number {
  checkClip(clip, 'clipUnitsPerMeter');
  if (clip.source?.format === 'amass') return 1;
  const extent = restExtent(clip);
  if (!(extent > 0)) return 1;
  for (const u of LENGTH_UNITS) {
    const metres = extent / u.unitsPerMeter;
    if (metres >= PERSON_EXTENT[0] && metres <= PERSON_EXTENT[1]) return u.unitsPerMeter;
  }
  let best = LENGTH_UNITS[0];
  for (const u of LENGTH_UNITS)
    if (
      Math.abs(Math.log(extent / u.unitsPerMeter / 1.6)) <
      Math.abs(Math.log(extent / best.unitsPerMeter / 1.6))
    )
      best = u;
  return best.unitsPerMeter;
}

/** The name of a length unit from its units per metre (`'cm'` for 100), or `'1/<n> m'`. */
export function lengthUnitName(unitsPerMeter: number): string {
  if (typeof unitsPerMeter !== 'number' || !(unitsPerMeter > 0) || !Number.isFinite(unitsPerMeter))
    throw new OptionError(
      `lengthUnitName: unitsPerMeter must be a positive number, got ${String(unitsPerMeter)}`,
    );
  const u = LENGTH_UNITS.find((l) => Math.abs(l.unitsPerMeter - unitsPerMeter) <= 1e-9 * unitsPerMeter);
  return u?.name ?? `1/${unitsPerMeter} m`;
}

/**
 * Largest extent along x, y or z of the rest pose (rest translations composed without rotations; a root's
 * own offset left out), in the clip's units.
 *
 * @throws {ShapeError} when `clip` is not a well-formed Clip.
 */
export function restExtent(clip: Clip): number {
  checkClip(clip, 'restExtent');
  const { parents, restTranslations: rest } = clip.skeleton;
  const J = parents.length;
  const at = new Float64Array(J * 3);
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    for (let k = 0; k < 3; k++) {
      // a joint's parent comes before it; a root's own offset places the whole body, so it is left out
      at[j * 3 + k] = p < 0 ? 0 : at[p * 3 + k] + rest[j * 3 + k];
      lo[k] = Math.min(lo[k], at[j * 3 + k]);
      hi[k] = Math.max(hi[k], at[j * 3 + k]);
    }
  }
  return J === 0 ? 0 : Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/**
 * The joint that carries a clip's motion: the one whose local translation travels furthest over the clip
 * (the sum of its frame-to-frame steps), so a static placeholder root (Bandai Namco's `joint_Root`, an
 * exporter's scene node) gives way to the hips under it. When no translation moves, the first root.
 *
 * @throws {ShapeError} when `clip` is not a well-formed Clip.
 * @example
 * clipMotionRoot(parseBvh(fs.readFileSync('dataset-1_dance_normal_1.bvh', 'utf8'))); // the index of 'Hips', not of the static 'joint_Root'
 */
export function clipMotionRoot(clip: Clip): number {
  checkClip(clip, 'clipMotionRoot');
  const { data, frames, joints } = clip.translations;
  const travel = new Float64Array(joints);
  for (let f = 1; f < frames; f++) {
    const a = (f - 1) * joints * 3;
    const b = f * joints * 3;
    for (let j = 0; j < joints; j++) {
      const dx = data[b + j * 3] - data[a + j * 3];
      const dy = data[b + j * 3 + 1] - data[a + j * 3 + 1];
      const dz = data[b + j * 3 + 2] - data[a + j * 3 + 2];
      travel[j] += Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  let best = Math.max(0, clip.skeleton.parents.indexOf(-1));
  for (let j = 0; j < joints; j++) if (travel[j] > travel[best]) best = j;
  return best;
}

/**
 * True when every non-root joint rests at its parent (all bone offsets zero): an AMASS clip read without
 * the body model's joint template, whose joint positions would all be the root's.
 *
 * @throws {ShapeError} when `clip` is not a well-formed Clip.
 * @example
 * hasNoBoneOffsets(amassToClip(npz)); // true without { template }
 */
export function hasNoBoneOffsets(clip: Clip): boolean {
  checkClip(clip, 'hasNoBoneOffsets');
  const { parents, restTranslations: rest } = clip.skeleton;
  let bones = 0;
  for (let j = 0; j < parents.length; j++) {
    if (parents[j] < 0) continue;
    bones++;
    if (rest[j * 3] !== 0 || rest[j * 3 + 1] !== 0 || rest[j * 3 + 2] !== 0) return false;
  }
  return bones > 0;
}
