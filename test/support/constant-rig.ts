// Small glTF rigs made for tests of constant tracks and mesh shells, written by glTF-Transform (not
// rotsig's writer): a chain Root > A > B > C animated at 30 Hz, with constant channels (some at the node's
// rest value, some not, one of them also animated by a second animation), and a skinned mesh on the chain.
import { Document, NodeIO } from '@gltf-transform/core';
import { trs } from './gltf-reference.js';

const f32 = (a: number[]) => Array.from(Float32Array.from(a));

/** A float32 unit quaternion about a tilted axis. */
function turn(angle: number, axis: [number, number, number] = [0.3, 1, 0.2]): number[] {
  const n = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / n;
  return f32([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)]);
}

export interface ConstantRigOptions {
  /** A second animation that animates C's translation (constant at rest in the first). */
  second?: boolean;
  /** A skinned mesh whose vertices reach this far (metres) from the joints they weigh on. */
  skin?: { reach: number };
  frames?: number;
}

/** Rest TRS of the chain (float32 values, so the JSON holds exactly what float32 keys can). */
export const REST = {
  Root: { t: [0, 1, 0], r: turn(0.2) },
  A: { t: [0, 0.5, 0], r: turn(0.4, [1, 0.2, 0]) },
  B: { t: [0, 0.375, 0], r: turn(-0.3, [0, 0.4, 1]) },
  C: { t: [0.25, 0.25, 0], r: [0, 0, 0, 1] },
} as const;

/** The rig as GLB bytes. */
export async function constantRig(options: ConstantRigOptions = {}): Promise<Uint8Array> {
  const frames = options.frames ?? 60;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  const names = ['Root', 'A', 'B', 'C'] as const;
  const nodes = names.map((name) =>
    doc
      .createNode(name)
      .setTranslation(REST[name].t as [number, number, number])
      .setRotation(REST[name].r as [number, number, number, number]),
  );
  scene.addChild(nodes[0]);
  nodes[0].addChild(nodes[1]);
  nodes[1].addChild(nodes[2]);
  nodes[2].addChild(nodes[3]);
  const times = Float32Array.from({ length: frames }, (_, f) => f / 30);
  const input = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
  const channel = (
    anim: ReturnType<Document['createAnimation']>,
    node: number,
    path: 'rotation' | 'translation' | 'scale',
    value: (f: number) => number[],
  ) => {
    const width = path === 'rotation' ? 4 : 3;
    const values = new Float32Array(frames * width);
    for (let f = 0; f < frames; f++) values.set(value(f), f * width);
    const sampler = doc
      .createAnimationSampler()
      .setInput(input)
      .setOutput(
        doc
          .createAccessor()
          .setType(width === 4 ? 'VEC4' : 'VEC3')
          .setArray(values)
          .setBuffer(buffer),
      )
      .setInterpolation('LINEAR');
    anim
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(nodes[node]).setTargetPath(path).setSampler(sampler),
      );
  };
  const move = doc.createAnimation('Move');
  // moving: Root's rotation and translation, B's translation, C's rotation
  channel(move, 0, 'rotation', (f) => turn(0.2 + 0.6 * Math.sin(f / 9)));
  channel(move, 0, 'translation', (f) => [0.4 * Math.sin(f / 11), 1, 0.01 * f]);
  channel(move, 2, 'translation', (f) => [0.05 * Math.sin(f / 7), 0.375, 0]);
  channel(move, 3, 'rotation', (f) => turn(0.5 * Math.sin(f / 8), [1, 0, 0.3]));
  // constant at rest: A's rotation (stored negated: the same rotation), A's translation, B's scale, C's translation
  channel(move, 1, 'rotation', () => REST.A.r.map((x) => -x));
  channel(move, 1, 'translation', () => [...REST.A.t]);
  channel(move, 2, 'scale', () => [1, 1, 1]);
  channel(move, 3, 'translation', () => [...REST.C.t]);
  // constant, not at rest: B's rotation
  channel(move, 2, 'rotation', () => turn(0.1, [0, 1, 0]));
  if (options.second) {
    const other = doc.createAnimation('Other');
    channel(other, 3, 'translation', (f) => [0.25 + 0.1 * Math.sin(f / 5), 0.25, 0]);
  }
  if (options.skin) addSkin(doc, buffer, scene, nodes, options.skin.reach);
  return new NodeIO().writeBinary(doc);
}

function multiply(a: number[], b: number[]): number[] {
  const m = new Array(16).fill(0);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) m[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return m;
}

/** Inverse of a rigid column-major 4x4: Rᵀ and −Rᵀ·t. */
function inverseRigid(m: number[]): number[] {
  const out = new Array(16).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[c * 4 + r] = m[r * 4 + c];
  for (let r = 0; r < 3; r++) out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
  out[15] = 1;
  return out;
}

/**
 * A mesh skinned to Root, A, B and C, bound at the rest pose: vertices around each joint at up to
 * `reach`, each with weight on its joint and on the joint's parent (one vertex with a tiny weight, one
 * joint (Root) with weight only through shared vertices); the inverse bind matrices invert the rest world
 * transforms.
 */
function addSkin(
  doc: Document,
  buffer: ReturnType<Document['createBuffer']>,
  scene: ReturnType<Document['createScene']>,
  nodes: ReturnType<Document['createNode']>[],
  reach: number,
): void {
  const names = ['Root', 'A', 'B', 'C'] as const;
  const world: number[][] = [];
  names.forEach((n, j) => {
    const local = Array.from(trs([...REST[n].t], [...REST[n].r], [1, 1, 1]));
    world.push(j === 0 ? local : multiply(world[j - 1], local));
  });
  const positions: number[] = [];
  const joints: number[] = [];
  const weights: number[] = [];
  // around joints A, B, C: six vertices each at reach·(0.5, 0.75, 1, …) along tilted directions (world space)
  for (let j = 1; j < 4; j++) {
    for (let k = 0; k < 6; k++) {
      const d = [Math.cos(k + j), Math.sin(2 * k + j), 0.5 * Math.cos(3 * k)];
      const n = Math.hypot(...d);
      const r = reach * (0.5 + 0.1 * k);
      const p = [0, 1, 2].map((c) => world[j][12 + c] + (d[c] / n) * r);
      positions.push(...p);
      joints.push(j, j - 1, 0, 0);
      const w = k === 5 ? 1e-3 : 0.25 + 0.1 * k;
      weights.push(1 - w, w, 0, 0);
    }
  }
  const mesh = doc.createMesh('Skin').addPrimitive(
    doc
      .createPrimitive()
      .setAttribute(
        'POSITION',
        doc.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer),
      )
      .setAttribute(
        'JOINTS_0',
        doc.createAccessor().setType('VEC4').setArray(new Uint16Array(joints)).setBuffer(buffer),
      )
      .setAttribute(
        'WEIGHTS_0',
        doc.createAccessor().setType('VEC4').setArray(new Float32Array(weights)).setBuffer(buffer),
      ),
  );
  const ibm = new Float32Array(64);
  world.forEach((m, j) => {
    ibm.set(inverseRigid(m), j * 16);
  });
  const skin = doc
    .createSkin('Skin')
    .setInverseBindMatrices(doc.createAccessor().setType('MAT4').setArray(ibm).setBuffer(buffer));
  for (const n of nodes) skin.addJoint(n);
  scene.addChild(doc.createNode('Body').setMesh(mesh).setSkin(skin));
}
