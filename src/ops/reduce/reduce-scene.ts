// Scene units of the reduction: the virtual vertices sit at the shell distance in the scene (object space
// at each joint's rest world scale), whatever scale the armature or its ancestors have.
import type { Skeleton } from '../../series/clip.js';
import { compose, localMatrix } from './reduce-transforms.js';

/**
 * Per joint and local axis (`J·3`, x, y, z): the local offset of the joint's virtual vertices, so that
 * each sits `shell` scene units from the joint at the rest pose. The rest world linear part `R` of
 * joint `j` is composed from the skeleton's rest translations, rotations and scales through every
 * ancestor (the skeleton holds them up to the scene roots); the offset along local axis `k` is
 * `shell / |R·e_k|` (the length of column `k`). So under a Mixamo `Armature` scaled 0.01, with joints in
 * centimetres, a 0.03 shell is 3 cm in the scene (3 local units), not 0.3 mm.
 *
 * A column whose length is not a positive finite number at least 1e-12 (a node scaled to zero at rest)
 * falls back to `fallback`'s column (the first frame's world linear part, row-major, `J·9`), and to
 * `shell` itself (local units) when that is degenerate too.
 *
 * `mesh` (per joint, local units; NaN where none): a joint with a number there takes it as its offset on
 * every axis (a skinned mesh's farthest vertex weighted to the joint, already in the joint's own space).
 */
export function sceneShellOffsets(
  skeleton: Skeleton,
  shell: number,
  fallback: Float64Array,
  mesh: Float64Array | null = null,
): Float64Array {
  const J = skeleton.names.length;
  const M = new Float64Array(J * 9);
  const p = new Float64Array(J * 3);
  const L = new Float64Array(9);
  const out = new Float64Array(J * 3);
  for (let j = 0; j < J; j++) {
    localMatrix(L, 0, skeleton.restRotations, j * 4, skeleton.restScales, j * 3);
    compose(M, p, j * 9, j * 3, skeleton.parents[j], M, p, L, 0, skeleton.restTranslations, j * 3);
    if (mesh !== null && j < mesh.length && !Number.isNaN(mesh[j])) {
      out.fill(mesh[j], j * 3, j * 3 + 3);
      continue;
    }
    for (let k = 0; k < 3; k++) {
      let n = columnLength(M, j * 9, k);
      if (!(n >= 1e-12 && Number.isFinite(n))) n = columnLength(fallback, j * 9, k);
      out[j * 3 + k] = n >= 1e-12 && Number.isFinite(n) ? shell / n : shell;
    }
  }
  return out;
}

function columnLength(M: Float64Array, o: number, k: number): number {
  return Math.sqrt(M[o + k] * M[o + k] + M[o + 3 + k] * M[o + 3 + k] + M[o + 6 + k] * M[o + 6 + k]);
}

/** The largest of each joint's three offsets (`J`): the radius its own virtual vertices lie within. */
export function largestOffsets(offsets: Float64Array): Float64Array {
  const J = offsets.length / 3;
  const out = new Float64Array(J);
  for (let j = 0; j < J; j++) out[j] = Math.max(offsets[j * 3], offsets[j * 3 + 1], offsets[j * 3 + 2]);
  return out;
}
