import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { type GLTF, GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { parseBvh, readGltf } from '../../src/io/index.js';
import { evaluateTrack } from '../../src/ops/keys/evaluate-track.js';
import { forwardKinematicsFrame } from '../../src/ops/skeleton/forward-kinematics.js';
import { slerpFlat } from '../../src/quat/core.js';
import type { Clip, KeyedClip } from '../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../src/series/clip-create.js';
import {
  bindingNames,
  createSkeleton,
  fromAnimationClip,
  gltfTargets,
  toAnimationClip,
} from '../../src/three/index.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../support/shared-data.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLES = ['01_01.bvh', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'];

/** A group holding every root bone, for the mixer to search. */
function scene(skeleton: THREE.Skeleton): THREE.Group {
  const group = new THREE.Group();
  for (const bone of skeleton.bones) if (bone.parent === null) group.add(bone);
  return group;
}

/** Largest distance between any two joints at frame 0: the skeleton's size for relative tolerances. */
function skeletonSize(clip: Clip): number {
  const J = clip.skeleton.names.length;
  const rot = new Float64Array(J * 4);
  const pos = new Float64Array(J * 3);
  forwardKinematicsFrame(clip, 0, rot, pos);
  let size = 0;
  for (let a = 0; a < J; a++)
    for (let b = a + 1; b < J; b++)
      size = Math.max(
        size,
        Math.hypot(pos[a * 3] - pos[b * 3], pos[a * 3 + 1] - pos[b * 3 + 1], pos[a * 3 + 2] - pos[b * 3 + 2]),
      );
  return size;
}

/**
 * rotsig's pose at time `t` between frames: local rotations slerped and translations lerped between the
 * two frames around `t` (what a linear player does), then forward kinematics.
 */
function rotsigPositionsAt(clip: Clip, t: number): Float64Array {
  const J = clip.skeleton.names.length;
  const x = Math.min(Math.max(t / clip.frameTime, 0), clip.frames - 1);
  const f0 = Math.min(Math.floor(x), clip.frames - 2);
  const a = x - f0;
  const rot = new Float64Array(J * 4);
  const tra = new Float64Array(J * 3);
  for (let j = 0; j < J; j++) {
    slerpFlat(
      rot,
      j * 4,
      clip.rotations.data,
      (f0 * J + j) * 4,
      clip.rotations.data,
      ((f0 + 1) * J + j) * 4,
      a,
    );
    for (let c = 0; c < 3; c++) {
      const p = clip.translations.data[(f0 * J + j) * 3 + c];
      const q = clip.translations.data[((f0 + 1) * J + j) * 3 + c];
      tra[j * 3 + c] = p + (q - p) * a;
    }
  }
  const one = makeClip({
    skeleton: clip.skeleton,
    frameTime: 1,
    rotations: { data: rot, frames: 1, joints: J },
    translations: { data: tra, frames: 1, joints: J },
  });
  const outR = new Float64Array(J * 4);
  const outP = new Float64Array(J * 3);
  forwardKinematicsFrame(one, 0, outR, outP);
  return outP;
}

/** Largest distance between the mixer's bone world positions and rotsig's at each time. */
function mixerError(clip: Clip, precision: 'float32' | 'float64', times: number[]): number {
  const skeleton = createSkeleton(clip);
  const group = scene(skeleton);
  const mixer = new THREE.AnimationMixer(group);
  const action = mixer.clipAction(toAnimationClip(clip, { precision }));
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  let worst = 0;
  const v = new THREE.Vector3();
  for (const t of times) {
    mixer.setTime(t);
    group.updateMatrixWorld(true);
    const expected = rotsigPositionsAt(clip, t);
    skeleton.bones.forEach((bone, j) => {
      v.setFromMatrixPosition(bone.matrixWorld);
      worst = Math.max(
        worst,
        Math.hypot(v.x - expected[j * 3], v.y - expected[j * 3 + 1], v.z - expected[j * 3 + 2]),
      );
    });
  }
  return worst;
}

/** Times on frames and between them, spread over the clip (and its last frame). */
function sampleTimes(clip: Clip, count: number): number[] {
  const times: number[] = [];
  const duration = (clip.frames - 1) * clip.frameTime;
  for (let k = 0; k < count; k++) {
    const f = Math.floor(((clip.frames - 1) * k) / count);
    times.push(f * clip.frameTime, (f + 0.37) * clip.frameTime);
  }
  times.push(duration);
  return times;
}

const clips: [string, Clip][] = SAMPLES.map((name) => [
  `samples/${name}`,
  parseBvh(readFileSync(join(root, 'samples', name), 'utf8')),
]);
if (HAS_SHARED_BVH) {
  for (const file of SHARED_BVH_FILES) clips.push([file, parseBvh(readSharedBvh(file))]);
} else {
  console.log(
    'rotsig/three tests: ../shared/data/bvh not found; mixer checks run on the bundled samples only',
  );
}

describe('toAnimationClip(clip) played by THREE.AnimationMixer matches rotsig forward kinematics', () => {
  for (const [name, clip] of clips) {
    it(`${name}: Float32 tracks within 1e-5 and Float64 tracks within 1e-9 of the skeleton size, on and between frames`, () => {
      const size = skeletonSize(clip);
      const times = sampleTimes(clip, 40);
      expect(mixerError(clip, 'float32', times)).toBeLessThan(1e-5 * size);
      expect(mixerError(clip, 'float64', times)).toBeLessThan(1e-9 * size);
    });
  }
});

describe("toAnimationClip(clip, { interpolant: 'three' })", () => {
  it("plays three.js's own interpolant, which lerps close keys: off rotsig's slerp between frames, exact on them", () => {
    const clip = clips[0][1];
    const size = skeletonSize(clip);
    const onFrames = Array.from(
      { length: 20 },
      (_, k) => Math.floor((k * (clip.frames - 1)) / 20) * clip.frameTime,
    );
    // a quarter of the way: at the midpoint a normalised lerp equals slerp by symmetry
    const between = onFrames.map((t) => t + 0.25 * clip.frameTime);
    const error = (times: number[]) => {
      const skeleton = createSkeleton(clip);
      const group = scene(skeleton);
      const mixer = new THREE.AnimationMixer(group);
      const action = mixer.clipAction(toAnimationClip(clip, { precision: 'float64', interpolant: 'three' }));
      action.play();
      let worst = 0;
      const v = new THREE.Vector3();
      for (const t of times) {
        mixer.setTime(t);
        group.updateMatrixWorld(true);
        const expected = rotsigPositionsAt(clip, t);
        skeleton.bones.forEach((bone, j) => {
          v.setFromMatrixPosition(bone.matrixWorld);
          worst = Math.max(
            worst,
            Math.hypot(v.x - expected[j * 3], v.y - expected[j * 3 + 1], v.z - expected[j * 3 + 2]),
          );
        });
      }
      return worst;
    };
    expect(error(onFrames)).toBeLessThan(1e-9 * size);
    expect(error(between)).toBeGreaterThan(1e-9 * size);
  });
});

describe('fromAnimationClip(toAnimationClip(clip), skeleton)', () => {
  const clip = clips[0][1];
  const J = clip.skeleton.names.length;
  it('returns every rotation of every frame, Float32 to 1e-7 per component, Float64 exactly', () => {
    for (const precision of ['float32', 'float64'] as const) {
      const skeleton = createSkeleton(clip);
      const keyed = fromAnimationClip(toAnimationClip(clip, { precision }), skeleton);
      expect(keyed.skeleton.names).toEqual(bindingNames(clip.skeleton.names));
      expect(Array.from(keyed.skeleton.parents)).toEqual(Array.from(clip.skeleton.parents));
      let worst = 0;
      let rotationTracks = 0;
      for (const track of keyed.tracks) {
        if (track.path !== 'rotation') continue;
        rotationTracks++;
        expect(track.times.length).toBe(clip.frames);
        for (let f = 0; f < clip.frames; f++) {
          for (let c = 0; c < 4; c++) {
            const want = clip.rotations.data[(f * J + track.joint) * 4 + c];
            worst = Math.max(worst, Math.abs(track.values[f * 4 + c] - want));
          }
        }
      }
      expect(rotationTracks).toBe(clip.animated.filter((a) => a & 2).length);
      expect(worst).toBeLessThanOrEqual(precision === 'float32' ? 1e-7 : 0);
    }
  });

  it('keeps the rest pose of the bones it reads', () => {
    const keyed = fromAnimationClip(toAnimationClip(clip), createSkeleton(clip));
    expect(Array.from(keyed.skeleton.restTranslations)).toEqual(Array.from(clip.skeleton.restTranslations));
    expect(Array.from(keyed.skeleton.restRotations)).toEqual(Array.from(clip.skeleton.restRotations));
  });
});

describe('binding names', () => {
  it('bindingNames sanitises like PropertyBinding and keeps names unique', () => {
    expect(bindingNames(['mixamorig:Hips', 'Left Arm', 'Left.Arm', 'a/b', 'LeftArm', ''])).toEqual([
      'mixamorigHips',
      'Left_Arm',
      'LeftArm',
      'ab',
      'LeftArm_1',
      '_1',
    ]);
  });

  it('joints named with : . / and spaces bind and pose the bones (a Mixamo-style rig)', () => {
    const names = ['mixamorig:Hips', 'mixamorig:Spine.001', 'Left Arm/upper', 'Left Arm/upper '];
    const skeletonData = makeSkeleton({
      names,
      parents: [-1, 0, 1, 1],
      restTranslations: [0, 100, 0, 0, 10, 0, 5, 0, 0, -5, 0, 0],
    });
    const frames = 3;
    const rot = new Float64Array(frames * 4 * 4);
    for (let f = 0; f < frames; f++) {
      for (let j = 0; j < 4; j++) {
        const half = (0.3 * (f + 1) * (j + 1)) / 2;
        rot.set([Math.sin(half), 0, 0, Math.cos(half)], (f * 4 + j) * 4);
      }
    }
    const clip = makeClip({
      skeleton: skeletonData,
      frameTime: 0.5,
      rotations: { data: rot, frames, joints: 4 },
    });
    const error = mixerError(clip, 'float64', [0, 0.25, 0.5, 0.9, 1]);
    expect(error).toBeLessThan(1e-9 * 100);
    // and the rule is what matters: the skeleton's bones carry exactly the track's node names
    const skeleton = createSkeleton(clip);
    const trackNodes = toAnimationClip(clip).tracks.map(
      (t) => THREE.PropertyBinding.parseTrackName(t.name).nodeName,
    );
    for (const node of trackNodes) expect(skeleton.getBoneByName(node)).toBeDefined();
  });
});

describe('keyed clips', () => {
  const skeletonData = makeSkeleton({
    names: ['root', 'arm'],
    parents: [-1, 0],
    restTranslations: [0, 0, 0, 1, 0, 0],
  });
  const half = Math.PI / 4;
  const keyed: KeyedClip = {
    skeleton: skeletonData,
    orders: ['XYZ', 'XYZ'],
    tracks: [
      // a quarter turn about z on non-uniform keys, step-interpolated translation, cubic spline scale
      {
        joint: 0,
        path: 'rotation',
        interpolation: 'linear',
        times: Float64Array.of(0, 0.1, 1),
        values: Float64Array.of(
          0,
          0,
          0,
          1,
          0,
          0,
          Math.sin(half / 4),
          Math.cos(half / 4),
          0,
          0,
          Math.sin(half),
          Math.cos(half),
        ),
        width: 4,
      },
      {
        joint: 1,
        path: 'translation',
        interpolation: 'step',
        times: Float64Array.of(0, 0.5),
        values: Float64Array.of(1, 0, 0, 2, 0, 0),
        width: 3,
      },
      {
        joint: 1,
        path: 'scale',
        interpolation: 'cubicspline',
        times: Float64Array.of(0, 1),
        // in-tangent, value, out-tangent per key
        values: Float64Array.of(0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0),
        width: 3,
      },
    ],
  };

  it('keeps each track its own key times and plays step, slerp and glTF cubic spline', () => {
    const skeleton = createSkeleton(keyed);
    const group = scene(skeleton);
    const mixer = new THREE.AnimationMixer(group);
    const animation = toAnimationClip(keyed, { precision: 'float64' });
    expect(animation.tracks.map((t) => Array.from(t.times))).toEqual([
      [0, 0.1, 1],
      [0, 0.5],
      [0, 1],
    ]);
    const action = mixer.clipAction(animation);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    mixer.setTime(0.55);
    const [rootBone, arm] = skeleton.bones;
    // slerp between key 1 (π/8 about z) and key 2 (π/2) at (0.55 - 0.1) / 0.9 = 0.5: 5π/16
    expect(2 * Math.atan2(rootBone.quaternion.z, rootBone.quaternion.w)).toBeCloseTo((5 * Math.PI) / 16, 12);
    expect(arm.position.x).toBe(2); // step: the key at 0.5 holds
    // Hermite with zero tangents from 1 to 2 at p = 0.55: 1 + (3p² - 2p³)
    const p = 0.55;
    expect(arm.scale.x).toBeCloseTo(1 + 3 * p * p - 2 * p * p * p, 12);
  });

  it('fromAnimationClip reads the interpolation of each track back', () => {
    const back = fromAnimationClip(toAnimationClip(keyed, { precision: 'float64' }), createSkeleton(keyed));
    expect(back.tracks.map((t) => t.interpolation)).toEqual(['linear', 'step', 'cubicspline']);
    expect(Array.from(back.tracks[2].values)).toEqual(Array.from(keyed.tracks[2].values));
  });

  it('fromAnimationClip on an Object3D root finds animated nodes and their ancestors', () => {
    const rootNode = new THREE.Group();
    const a = new THREE.Object3D();
    a.name = 'a';
    const b = new THREE.Object3D();
    b.name = 'b';
    b.position.set(0, 2, 0);
    const unrelated = new THREE.Object3D();
    unrelated.name = 'c';
    rootNode.add(a, unrelated);
    a.add(b);
    const track = new THREE.QuaternionKeyframeTrack('b.quaternion', [0, 1], [0, 0, 0, 1, 0, 0, 1, 0]);
    const keyed2 = fromAnimationClip(new THREE.AnimationClip('x', -1, [track]), rootNode);
    expect(keyed2.skeleton.names).toEqual(['a', 'b']);
    expect(Array.from(keyed2.skeleton.parents)).toEqual([-1, 0]);
    expect(Array.from(keyed2.skeleton.restTranslations)).toEqual([0, 0, 0, 0, 2, 0]);
    expect(keyed2.tracks[0].joint).toBe(1);
  });

  it('fromAnimationClip rejects a track that does not bind, unless told to skip it', () => {
    const track = new THREE.VectorKeyframeTrack('nobody.position', [0], [0, 0, 0]);
    const clip = new THREE.AnimationClip('x', -1, [track]);
    expect(() => fromAnimationClip(clip, createSkeleton(keyed))).toThrow(OptionError);
    expect(fromAnimationClip(clip, createSkeleton(keyed), { unbound: 'skip' }).tracks).toEqual([]);
    expect(() => fromAnimationClip(clip, createSkeleton(keyed), { unbund: 'skip' } as never)).toThrow(
      OptionError,
    );
  });
});

describe('gltfTargets: binding by glTF node where names repeat (RobotExpressive.glb)', () => {
  // The file has a mesh and a bone both called "Torso" and repeated "Head" names, which GLTFLoader numbers
  // by its own load order: name binding cannot find those bones, node binding can.
  const file = join(root, 'web', 'public', 'samples', 'RobotExpressive.glb');
  const bytes = new Uint8Array(readFileSync(file));

  async function load(): Promise<{ gltf: GLTF; clip: KeyedClip }> {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const gltf = await new GLTFLoader().parseAsync(buffer as ArrayBuffer, '');
    const { clips } = await readGltf(bytes, { animation: 'Dance' });
    return { gltf, clip: edited(clips[0] as KeyedClip) };
  }

  /**
   * The file's animations leave the two renumbered nodes still (the torso bone has no track, the head's
   * morph weights stay 0), so name binding fails there without a visible sign. An edit a user might make
   * shows it: turn the torso bone (joint 7) a quarter turn about y and open the face's morph targets.
   */
  function edited(clip: KeyedClip): KeyedClip {
    expect(clip.skeleton.names[7]).toBe('Torso');
    const end = Math.max(...clip.tracks.map((t) => t.times[t.times.length - 1]!));
    const s = Math.SQRT1_2;
    const tracks = clip.tracks.map((t) => {
      if (t.path !== 'weights') return t;
      const values = new Float64Array(t.values.length);
      const keys = t.times.length;
      for (let k = 0; k < keys; k++)
        for (let c = 0; c < t.width; c++) values[k * t.width + c] = (k / (keys - 1)) * (0.2 + 0.1 * c);
      return { ...t, values };
    });
    tracks.push({
      joint: 7,
      path: 'rotation',
      interpolation: 'linear',
      width: 4,
      times: Float64Array.of(0, end),
      values: Float64Array.of(0, 0, 0, 1, 0, s, 0, s),
    });
    return { ...clip, tracks };
  }

  /**
   * Plays `animation` on the loaded scene and returns, over every track of `clip` and many times, the
   * largest difference between the driven object's local value and rotsig's evaluation of the track.
   */
  function playedError(
    gltf: GLTF,
    clip: KeyedClip,
    targets: (THREE.Object3D | null)[],
    animation: THREE.AnimationClip,
  ): number {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(animation);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    const end = Math.max(...clip.tracks.map((t) => t.times[t.times.length - 1]));
    const times = Array.from({ length: 41 }, (_, k) => (end * k) / 40 + (k % 2 ? 0.013 : 0));
    let worst = 0;
    for (const t of times) {
      mixer.setTime(Math.min(t, end));
      for (const track of clip.tracks) {
        const want = evaluateTrack(track, [Math.min(t, end)]);
        if (track.path === 'weights') {
          // GLTFLoader drives the morph targets of every mesh under the node
          targets[track.joint]!.traverse((object) => {
            const got = (object as THREE.Mesh).morphTargetInfluences;
            if (got === undefined) return;
            for (let c = 0; c < track.width; c++) worst = Math.max(worst, Math.abs(got[c] - want[c]));
          });
          continue;
        }
        const object = targets[track.joint]!;
        const got =
          track.path === 'rotation'
            ? object.quaternion.toArray()
            : (track.path === 'translation' ? object.position : object.scale).toArray();
        // q and -q are the same rotation
        let dot = 0;
        for (let c = 0; c < track.width; c++) dot += got[c]! * want[c]!;
        const sign = track.path === 'rotation' && dot < 0 ? -1 : 1;
        // the file's keys are float32, unit to about 1e-7, and the two slerps differ in whether they
        // normalise such keys: compare directions
        const n = track.path === 'rotation' ? Math.hypot(...want) / Math.hypot(...got) : 1;
        for (let c = 0; c < track.width; c++)
          worst = Math.max(worst, Math.abs(sign * n * got[c]! - want[c]!));
      }
    }
    mixer.stopAllAction();
    return worst;
  }

  it('finds the object GLTFLoader made of every joint, and the names alone miss two of them', async () => {
    const { gltf, clip } = await load();
    const targets = gltfTargets(gltf, clip);
    expect(targets).toHaveLength(clip.skeleton.names.length);
    expect(targets.every((t) => t !== null)).toBe(true);
    // each target is the object the loader associated with the joint's node
    const nodes = (clip.source as unknown as { nodes: Int32Array }).nodes;
    targets.forEach((t, j) => {
      expect(gltf.parser.associations.get(t!)?.nodes).toBe(nodes[j]);
    });
    const names = bindingNames(clip.skeleton.names);
    const missed = names.filter((n, j) => gltf.scene.getObjectByName(n) !== targets[j]).length;
    expect(missed).toBe(2);
  });

  it('a clip bound by targets plays every track on its own node (Float64: 1e-9); bound by name it does not', async () => {
    const { gltf, clip } = await load();
    const targets = gltfTargets(gltf, clip);
    const exact = toAnimationClip(clip, { targets, precision: 'float64' });
    expect(playedError(gltf, clip, targets, exact)).toBeLessThan(1e-9);
    // every track made it into the clip, named by its node's uuid
    // one track per rotation/translation/scale track, named by its node's uuid; the weights track once per
    // mesh with morph targets under its node (three under the head)
    const weights = clip.tracks.filter((t) => t.path === 'weights');
    expect(weights).toHaveLength(1);
    expect(exact.tracks).toHaveLength(clip.tracks.length - 1 + 3);
    expect(weights[0]!.joint).toBe(10);
    const byUuid = new Map<string, THREE.Object3D>();
    gltf.scene.traverse((object) => byUuid.set(object.uuid, object));
    for (const track of exact.tracks) expect(byUuid.has(track.name.split('.')[0])).toBe(true);
    // a fresh scene, then the name-bound clip: "Torso" is the loader's name of a mesh (the bone is
    // "Torso_1") and the head node's name is numbered differently by the reader and the loader, so the
    // torso bone stays at rest (the quarter turn goes to the mesh) and the face does not move
    const fresh = await load();
    const freshTargets = gltfTargets(fresh.gltf, fresh.clip);
    const byName = toAnimationClip(fresh.clip, { precision: 'float64' });
    expect(playedError(fresh.gltf, fresh.clip, freshTargets, byName)).toBeGreaterThan(0.2);
  });

  it('rejects clips without glTF nodes, wrong target counts and non-objects', async () => {
    const { gltf, clip } = await load();
    const bvh = parseBvh(readFileSync(join(root, 'samples', SAMPLES[0]), 'utf8'));
    expect(() => gltfTargets(gltf, bvh)).toThrow(OptionError);
    expect(() => gltfTargets({} as GLTF, clip)).toThrow(OptionError);
    expect(() => toAnimationClip(clip, { targets: [] })).toThrow(OptionError);
    const bad = clip.skeleton.names.map(() => ({ uuid: 'x' }) as unknown as THREE.Object3D);
    expect(() => toAnimationClip(clip, { targets: bad })).toThrow(OptionError);
    expect(() => toAnimationClip(clip, { targets: 3 as never })).toThrow(OptionError);
  });

  it('joints without a target get no tracks', async () => {
    const { gltf, clip } = await load();
    const targets = gltfTargets(gltf, clip);
    const driven = new Set(clip.tracks.map((t) => t.joint));
    const dropped = [...driven][0];
    targets[dropped] = null;
    const made = toAnimationClip(clip, { targets });
    const expected = clip.tracks.filter((t) => t.joint !== dropped).length;
    expect(made.tracks).toHaveLength(expected);
  });
});
