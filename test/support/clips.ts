import type { Clip } from '../../src/series/clip.js';
import { makeClip as makeModelClip, makeSkeleton } from '../../src/series/clip-create.js';

/** What a synthetic clip is made of: a hierarchy and per-frame local transforms. */
export interface ClipParts {
  names: string[];
  parents: number[];
  /** Local rotations, frames x joints x 4 (x, y, z, w). */
  rotations: Float64Array;
  /** Local translations, frames x joints x 3 (every joint's translation counts as animated). */
  translations: Float64Array;
  rate: number;
}

/** A clip from raw parts, for tests of operations that read only the hierarchy and the sampled transforms. */
export function makeClip(p: ClipParts): Clip {
  const J = p.names.length;
  const frames = p.rotations.length / (J * 4);
  const rest = new Float64Array(J * 3);
  if (frames > 0) rest.set(p.translations.subarray(0, J * 3));
  return makeModelClip({
    skeleton: makeSkeleton({ names: p.names, parents: p.parents, restTranslations: rest }),
    frameTime: 1 / p.rate,
    rotations: { data: p.rotations, frames, joints: J },
    translations: { data: p.translations, frames, joints: J },
    animated: new Uint8Array(J).fill(3),
  });
}

/** A chain of `joints` joints named j0, j1, … (each the parent of the next) with the given frame-major data. */
export function chainClip(
  rotations: Float64Array,
  translations: Float64Array,
  joints: number,
  rate: number,
): Clip {
  return makeClip({
    names: Array.from({ length: joints }, (_, j) => `j${j}`),
    parents: Array.from({ length: joints }, (_, j) => j - 1),
    rotations,
    translations,
    rate,
  });
}
