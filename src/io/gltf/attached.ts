// Nodes an animation moves without animating them: meshes, cameras, lights and empties parented under an
// animated joint (a face mesh under the head bone, a staff in a hand). The reduction measures them too.
import type { Node } from '@gltf-transform/core';
import type { KeyedClip } from '../../series/clip.js';
import { makeSkeleton } from '../../series/clip-create.js';
import { gltfSourceOf } from './source.js';

/**
 * `keyed` with every node that moves with its animation appended to the skeleton as a joint without
 * tracks: each node of the source document below a moving joint (one a rotation, translation or scale
 * track targets, or any joint below one) that is not a joint of the skeleton, at every depth, with its
 * rest translation, rotation and scale from the file. Appended joints come after the clip's own, parents
 * before children (depth first in the file's child order), so the clip's joint indices, tracks and
 * `source` are unchanged, and a reduction of the extended clip measures the attachments with their real
 * offsets (their translation from the joint adds lever arm). `source` keeps describing the first
 * `count` joints only: write the reduced tracks with the original skeleton.
 *
 * Returns `keyed` itself (count = its joint count) when it has no glTF source or nothing hangs below a
 * moving joint.
 *
 * @example
 * const read = await readGltf(bytes);
 * const { clip, count } = withAttachedNodes(read.clips[0]);
 * const reduced = reduceKeys(bakeKeyed(clip), { preset: 'acl' });
 * const tracks = reduced.clip.tracks; // joints below `count` only: the attachments have none
 */
export function withAttachedNodes(keyed: KeyedClip): { clip: KeyedClip; count: number } {
  const J = keyed.skeleton.names.length;
  const source = gltfSourceOf(keyed);
  if (source === undefined) return { clip: keyed, count: J };
  const nodes = source.document.getRoot().listNodes();
  const index = new Map<Node, number>();
  for (let i = 0; i < nodes.length; i++) index.set(nodes[i], i);
  const jointOf = new Map<number, number>();
  for (let j = 0; j < J; j++) jointOf.set(source.nodes[j], j);
  const moving = new Uint8Array(J);
  for (const t of keyed.tracks) if (t.path !== 'weights') moving[t.joint] = 1;
  const parents = keyed.skeleton.parents;
  for (let j = 0; j < J; j++) if (parents[j] >= 0 && moving[parents[j]]) moving[j] = 1;
  const names: string[] = [];
  const up: number[] = [];
  const picked: Node[] = [];
  const taken = new Set(keyed.skeleton.names);
  for (let j = 0; j < J; j++) {
    if (!moving[j]) continue;
    // explicit stack of (node, parent joint): any depth, the file's child order
    const stack: [Node, number][] = [];
    const children = nodes[source.nodes[j]].listChildren();
    for (let k = children.length - 1; k >= 0; k--) stack.push([children[k], j]);
    while (stack.length > 0) {
      const [node, parent] = stack.pop() as [Node, number];
      const i = index.get(node) as number;
      if (jointOf.has(i)) continue;
      const me = J + names.length;
      jointOf.set(i, me);
      let name = node.getName() || `node${i}`;
      if (taken.has(name)) name = `${name}_${i}`;
      taken.add(name);
      names.push(name);
      up.push(parent);
      picked.push(node);
      const below = node.listChildren();
      for (let k = below.length - 1; k >= 0; k--) stack.push([below[k], me]);
    }
  }
  if (picked.length === 0) return { clip: keyed, count: J };
  const A = picked.length;
  const s = keyed.skeleton;
  const restT = new Float64Array((J + A) * 3);
  const restR = new Float64Array((J + A) * 4);
  const restS = new Float64Array((J + A) * 3);
  restT.set(s.restTranslations);
  restR.set(s.restRotations);
  restS.set(s.restScales);
  picked.forEach((node, a) => {
    restT.set(node.getTranslation(), (J + a) * 3);
    const r = node.getRotation();
    const len = Math.hypot(r[0], r[1], r[2], r[3]) || 1;
    for (let c = 0; c < 4; c++) restR[(J + a) * 4 + c] = r[c] / len;
    restS.set(node.getScale(), (J + a) * 3);
  });
  const skeleton = makeSkeleton({
    names: [...s.names, ...names],
    parents: [...s.parents, ...up],
    restTranslations: restT,
    restRotations: restR,
    restScales: restS,
  });
  const { source: _source, ...rest } = keyed;
  return {
    clip: { ...rest, skeleton, orders: [...keyed.orders, ...new Array(A).fill('XYZ')] },
    count: J,
  };
}
