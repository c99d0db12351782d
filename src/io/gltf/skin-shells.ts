// Shells from the skinned mesh: for each joint, how far the vertices it moves lie from it, so the
// reduction's bound is on the rendered vertices' lever arms (`reduceKeys` with `shellDistance: 'mesh'`).
import type { Accessor } from '@gltf-transform/core';
import { ShapeError } from '../../errors.js';
import type { KeyedClip } from '../../series/clip.js';
import { gltfSourceOf } from './source.js';

/**
 * Per joint of `keyed`'s skeleton: the distance of the farthest skinned vertex with a weight above zero
 * on that joint, in the joint's own (local) units: `|IBM · v|` with `v` the vertex position as stored
 * (mesh space) and `IBM` the joint's inverse bind matrix in the skin (identity when the skin has none),
 * which is where glTF skinning puts the vertex in the joint's space before the joint's world transform
 * moves it. Every mesh primitive of every node with a skin, every `JOINTS_n`/`WEIGHTS_n` set; a joint
 * listed by several skins takes the largest. -1 for joints no vertex weighs on (and for every joint
 * when the clip has no glTF source): `reduceKeys` gives those the default shell.
 *
 * Any weight above zero counts, however small: a skinned vertex is a weighted mean of its joints'
 * transforms of it, so its error is at most the largest error among the joints it has weight on at its
 * offset from each, and every such offset must be inside that joint's shell. Morph-target displacements
 * are not included (the base positions only).
 *
 * @example
 * const read = await readGltf(bytes); // a skinned .glb
 * const shells = skinShells(read.clips[0]);
 * reduceKeys(read.clips[0], { shellDistance: 'mesh', meshShells: shells });
 */
export function skinShells(keyed: KeyedClip): Float64Array {
  const names = (keyed as Partial<KeyedClip> | null)?.skeleton?.names;
  if (keyed === null || typeof keyed !== 'object' || !Array.isArray(names))
    throw new ShapeError('skinShells: keyed must be a keyed clip (a skeleton with joint names)');
  const J = names.length;
  const out = new Float64Array(J).fill(-1);
  const source = gltfSourceOf(keyed);
  if (source === undefined) return out;
  const root = source.document.getRoot();
  const nodes = root.listNodes();
  const nodeIndex = new Map(nodes.map((n, i) => [n, i] as const));
  const jointOfNode = new Map<number, number>();
  for (let j = 0; j < J; j++) jointOfNode.set(source.nodes[j], j);
  const ibm = new Float64Array(16);
  const p = [0, 0, 0];
  const jw = [0, 0, 0, 0];
  const ww = [0, 0, 0, 0];
  for (const node of nodes) {
    const skin = node.getSkin();
    const mesh = node.getMesh();
    if (skin === null || mesh === null) continue;
    const skinJoints = skin.listJoints().map((n) => jointOfNode.get(nodeIndex.get(n) as number) ?? -1);
    const inverse = skin.getInverseBindMatrices();
    // per skin joint: its inverse bind matrix (column-major) and the farthest weighted vertex so far
    const far = new Float64Array(skinJoints.length).fill(-1);
    for (const prim of mesh.listPrimitives()) {
      const position = prim.getAttribute('POSITION');
      if (position === null) continue;
      for (let set = 0; ; set++) {
        const joints = prim.getAttribute(`JOINTS_${set}`);
        const weights = prim.getAttribute(`WEIGHTS_${set}`);
        if (joints === null || weights === null) break;
        const n = Math.min(position.getCount(), joints.getCount(), weights.getCount());
        for (let v = 0; v < n; v++) {
          joints.getElement(v, jw);
          weights.getElement(v, ww);
          let read = false;
          for (let c = 0; c < 4; c++) {
            const s = jw[c];
            if (!(ww[c] > 0) || !(s >= 0 && s < skinJoints.length)) continue;
            if (!read) {
              position.getElement(v, p);
              read = true;
            }
            matrixOf(inverse, s, ibm);
            const x = ibm[0] * p[0] + ibm[4] * p[1] + ibm[8] * p[2] + ibm[12];
            const y = ibm[1] * p[0] + ibm[5] * p[1] + ibm[9] * p[2] + ibm[13];
            const z = ibm[2] * p[0] + ibm[6] * p[1] + ibm[10] * p[2] + ibm[14];
            const r = Math.sqrt(x * x + y * y + z * z);
            if (r > far[s]) far[s] = r;
          }
        }
      }
    }
    for (let s = 0; s < skinJoints.length; s++) {
      const j = skinJoints[s];
      if (j < 0 || far[s] < 0) continue;
      if (far[s] > out[j]) out[j] = far[s];
    }
  }
  return out;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The `s`-th inverse bind matrix (column-major) into `out`; identity without an accessor or beyond its end. */
function matrixOf(inverse: Accessor | null, s: number, out: Float64Array): void {
  if (inverse === null || s >= inverse.getCount()) out.set(IDENTITY);
  else inverse.getElement(s, out as unknown as number[]);
}
