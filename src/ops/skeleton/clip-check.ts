/**
 * Entry checks shared by the operations that take a whole {@link Clip}, so a value that is not a clip is a
 * typed error at the entry instead of a TypeError or a NaN deep inside.
 *
 * @internal
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import type { Clip } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';

/**
 * Throws unless `parents` is a valid hierarchy of `joints` joints: each entry `-1` (a root) or an integer
 * index of an earlier joint (`0 <= parents[j] < j`).
 *
 * @throws {ShapeError} naming the first joint whose parent is out of range.
 * @internal
 */
export function assertParents(parents: ArrayLike<number>, joints: number, where: string): void {
  if (parents === null || typeof parents !== 'object' || typeof parents.length !== 'number') {
    throw new ShapeError(`${where}: parents must be an array of joint indices`);
  }
  if (parents.length !== joints) {
    throw new ShapeError(`${where}: parents has ${parents.length} entries for ${joints} joints`);
  }
  for (let j = 0; j < joints; j++) {
    const p = parents[j];
    if (!(p === -1 || (Number.isInteger(p) && p >= 0 && p < j))) {
      throw new ShapeError(
        `${where}: joint ${j} has parent ${String(p)}; a parent must be -1 (a root) or an earlier joint`,
      );
    }
  }
}

/** What {@link checkClip} checks beyond the shape. */
export interface ClipCheck {
  /** Also reject non-finite rotations and translations, naming frame and joint. Default false. */
  finite?: boolean;
}

/**
 * `assertClip` (skeleton, frame time and rate, every series `frames x joints`) with `where` in the message,
 * and with `finite`, a scan that rejects non-finite rotations and translations.
 *
 * @throws {ShapeError} or {@link InvalidValueError} naming the field, frame and joint.
 * @internal
 */
export function checkClip(clip: Clip, where: string, check: ClipCheck = {}): void {
  assertClip(clip, `${where}: clip`);
  // the model checks frameTime; rate is a second copy of it that operations read, and the duration must exist
  if (!(Math.abs(clip.rate * clip.frameTime - 1) < 1e-9) || !Number.isFinite(clip.frames * clip.frameTime)) {
    throw new InvalidValueError(
      `${where}: clip.rate ${clip.rate} is not 1 / frameTime (${clip.frameTime}) or the duration is not finite`,
    );
  }
  const s = clip.skeleton;
  for (const [name, values] of [
    ['restTranslations', s.restTranslations],
    ['restRotations', s.restRotations],
    ['restScales', s.restScales],
  ] as const) {
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) {
        throw new InvalidValueError(`${where}: clip.skeleton.${name}[${i}] is ${values[i]}`, {
          index: i,
        });
      }
    }
  }
  if (check.finite) {
    const J = clip.skeleton.names.length;
    assertFiniteSeries(clip.rotations.data, J, 4, `${where}: clip.rotations`);
    assertFiniteSeries(clip.translations.data, J, 3, `${where}: clip.translations`);
  }
}
