// A Mixamo-style rig made for tests: an `Armature` node scaled 0.01 (and turned, as Mixamo exports are)
// above joints whose translations are in centimetres, animated at 30 Hz with smooth motion plus a little
// deterministic jitter, written as GLB by glTF-Transform (not rotsig's writer).
import { Document, NodeIO } from '@gltf-transform/core';

/** Joints: name, parent (index in this list, -1 under the Armature), rest translation in cm. */
const JOINTS: [string, number, [number, number, number]][] = [
  ['Hips', -1, [0, 100, 0]],
  ['Spine', 0, [0, 10, 0]],
  ['Spine1', 1, [0, 12, 0]],
  ['Neck', 2, [0, 15, 0]],
  ['Head', 3, [0, 10, 0]],
  ['HeadTop_End', 4, [0, 18, 0]],
  ['LeftShoulder', 2, [6, 12, 0]],
  ['LeftArm', 6, [12, 0, 0]],
  ['LeftForeArm', 7, [28, 0, 0]],
  ['LeftHand', 8, [26, 0, 0]],
  ['LeftUpLeg', 0, [9, -6, 0]],
  ['LeftLeg', 10, [0, -42, 0]],
  ['LeftFoot', 11, [0, -40, 0]],
];

export interface RigOptions {
  frames?: number;
  /** A node with a mesh hung under this joint at this offset (cm), not animated, not a skin joint. */
  attachment?: { joint: string; offset: [number, number, number] };
}

/** Deterministic pseudo-random in [-1, 1). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

function axisAngle(x: number, y: number, z: number): [number, number, number, number] {
  const a = Math.hypot(x, y, z);
  if (a === 0) return [0, 0, 0, 1];
  const s = Math.sin(a / 2) / a;
  return [x * s, y * s, z * s, Math.cos(a / 2)];
}

/** The rig as GLB bytes. */
export async function mixamoRig(options: RigOptions = {}): Promise<Uint8Array> {
  const frames = options.frames ?? 90;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  const armature = doc
    .createNode('Armature')
    .setScale([0.01, 0.01, 0.01])
    .setRotation([Math.SQRT1_2, 0, 0, Math.SQRT1_2]);
  scene.addChild(armature);
  const nodes = JOINTS.map(([name, , t]) => doc.createNode(name).setTranslation(t));
  JOINTS.forEach(([, up], i) => {
    (up < 0 ? armature : nodes[up]).addChild(nodes[i]);
  });
  if (options.attachment) {
    const mesh = doc.createMesh('Face').addPrimitive(
      doc.createPrimitive().setAttribute(
        'POSITION',
        doc
          .createAccessor()
          .setType('VEC3')
          .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
          .setBuffer(buffer),
      ),
    );
    const at = nodes[JOINTS.findIndex(([n]) => n === options.attachment?.joint)];
    at.addChild(doc.createNode('Attachment').setTranslation(options.attachment.offset).setMesh(mesh));
  }
  const rand = noise(7);
  const times = Float32Array.from({ length: frames }, (_, f) => f / 30);
  const animation = doc.createAnimation('Take');
  const channel = (node: (typeof nodes)[number], path: 'rotation' | 'translation', values: Float32Array) => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer))
      .setOutput(
        doc
          .createAccessor()
          .setType(path === 'rotation' ? 'VEC4' : 'VEC3')
          .setArray(values)
          .setBuffer(buffer),
      )
      .setInterpolation('LINEAR');
    animation
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
  };
  JOINTS.forEach(([, , t], j) => {
    const q = new Float32Array(frames * 4);
    const amp = 0.3 + 0.05 * j;
    for (let f = 0; f < frames; f++) {
      const s = (f / 30) * (1 + 0.1 * j);
      q.set(
        axisAngle(
          amp * Math.sin(2 * s + j) + 0.002 * rand(),
          0.5 * amp * Math.sin(3.1 * s) + 0.002 * rand(),
          0.7 * amp * Math.cos(1.7 * s + 0.5 * j) + 0.002 * rand(),
        ),
        f * 4,
      );
    }
    channel(nodes[j], 'rotation', q);
    if (j === 0) {
      const p = new Float32Array(frames * 3);
      for (let f = 0; f < frames; f++) {
        const s = f / 30;
        p.set(
          [
            t[0] + 40 * s + 0.05 * rand(),
            t[1] + 3 * Math.sin(6 * s) + 0.05 * rand(),
            t[2] + 5 * Math.sin(2 * s),
          ],
          f * 3,
        );
      }
      channel(nodes[0], 'translation', p);
    }
  });
  return new NodeIO().writeBinary(doc);
}
