import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';
import { type GLTF, GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { parseBvh, readGltf } from '../../src/io/index.js';
import { readGltfFile } from '../../src/node/gltf.js';
import { evaluateTrack } from '../../src/ops/keys/evaluate-track.js';
import { forwardKinematics, forwardKinematicsFrame } from '../../src/ops/skeleton/forward-kinematics.js';
import { slerpFlat } from '../../src/quat/core.js';
import type { Clip, KeyedClip, Track } from '../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../src/series/clip-create.js';
import {
  bindingNames,
  createSkeleton,
  fromAnimationClip,
  gltfTargets,
  toAnimationClip,
} from '../../src/three/index.js';
import {
  FIXTURE_GLTF_DIR,
  HAS_SHARED_GLTF,
  SHARED_GLTF_FILES,
  sharedGltfPath,
} from '../support/gltf-data.js';
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

/** rotsig's pose of a keyed clip at time `t`: every track evaluated (glTF Appendix C), the rest elsewhere. */
function keyedPose(clip: KeyedClip, t: number): Clip {
  const { skeleton } = clip;
  const J = skeleton.names.length;
  const rot = Float64Array.from(skeleton.restRotations);
  const tra = Float64Array.from(skeleton.restTranslations);
  const scl = Float64Array.from(skeleton.restScales);
  for (const track of clip.tracks) {
    if (track.path === 'weights') continue;
    const v = evaluateTrack(track, [t]);
    const dst = track.path === 'rotation' ? rot : track.path === 'translation' ? tra : scl;
    dst.set(v, track.joint * track.width);
  }
  return makeClip({
    skeleton,
    frameTime: 1,
    rotations: { data: rot, frames: 1, joints: J },
    translations: { data: tra, frames: 1, joints: J },
    scales: { data: scl, frames: 1, joints: J },
  });
}

/** Joint world positions of a one-frame clip (scales included). */
function worldPositions(clip: Clip): Float64Array {
  return forwardKinematics(clip).positions.data as Float64Array;
}

/** A rotation track with every key scaled to unit length. */
function unitKeys(track: Track): Track {
  const values = Float64Array.from(track.values);
  for (let k = 0; k < values.length; k += 4) {
    const n = Math.hypot(values[k]!, values[k + 1]!, values[k + 2]!, values[k + 3]!);
    for (let c = 0; c < 4; c++) values[k + c]! /= n;
  }
  return { ...track, values };
}

/** glTF clips of the fixtures and (when present) of the shared folder, by file and animation. */
async function gltfClips(): Promise<[string, KeyedClip][]> {
  const files: [string, string][] = [
    ['fixtures/BoxAnimated.glb', join(FIXTURE_GLTF_DIR, 'BoxAnimated.glb')],
    ['fixtures/Fox.glb', join(FIXTURE_GLTF_DIR, 'Fox.glb')],
    ['fixtures/interpolation_test.gltf', join(FIXTURE_GLTF_DIR, 'interpolation_test.gltf')],
  ];
  if (HAS_SHARED_GLTF) for (const f of SHARED_GLTF_FILES) files.push([f, sharedGltfPath(f)]);
  else
    console.log(
      'rotsig/three tests: ../shared/data/gltf not found; glTF mixer checks run on the fixtures only',
    );
  const out: [string, KeyedClip][] = [];
  for (const [name, path] of files) {
    const read = await readGltfFile(path, { animation: 'all' });
    read.clips.forEach((c, i) => {
      // unit rotation keys: float32 keys are unit to about 1e-7, and players differ in whether they
      // normalise them; the check is of playback, on the same unit keys for both
      const tracks = c.tracks
        .filter((t) => t.path !== 'weights')
        .map((t) => (t.path === 'rotation' && t.interpolation !== 'cubicspline' ? unitKeys(t) : t));
      if (tracks.length > 0) out.push([`${name} animation ${i}`, { ...c, tracks }]);
    });
  }
  return out;
}

describe('glTF clips through toAnimationClip and THREE.AnimationMixer match rotsig forward kinematics', () => {
  it('every animation of the glTF fixtures and shared files: Float32 within 1e-5 and Float64 within 1e-9 of the skeleton size, on and between keys', async () => {
    const clips = await gltfClips();
    expect(clips.length).toBeGreaterThan(3);
    let checked = 0;
    for (const [name, clip] of clips) {
      const end = Math.max(...clip.tracks.map((t) => t.times[t.times.length - 1]!));
      const times = [0, end];
      for (let k = 1; k < 24; k++) times.push((end * k) / 24, (end * k) / 24 + 0.0037 * end);
      for (const t of clip.tracks[0]!.times.slice(0, 8)) times.push(t);
      times.sort((a, b) => a - b);
      const expected = times.map((t) => worldPositions(keyedPose(clip, Math.min(t, end))));
      let size = 1e-9;
      for (const p of expected)
        for (let a = 0; a < p.length; a += 3) {
          size = Math.max(size, Math.hypot(p[a]!, p[a + 1]!, p[a + 2]!));
          for (let b = a + 3; b < p.length; b += 3)
            size = Math.max(size, Math.hypot(p[a]! - p[b]!, p[a + 1]! - p[b + 1]!, p[a + 2]! - p[b + 2]!));
        }
      for (const [precision, tolerance] of [
        ['float32', 1e-5],
        ['float64', 1e-9],
      ] as const) {
        const skeleton = createSkeleton(clip);
        const group = scene(skeleton);
        const mixer = new THREE.AnimationMixer(group);
        const action = mixer.clipAction(toAnimationClip(clip, { precision }));
        action.setLoop(THREE.LoopOnce, 1);
        action.clampWhenFinished = true;
        action.play();
        const v = new THREE.Vector3();
        let worst = 0;
        times.forEach((t, i) => {
          // a LoopOnce action that reached its end pauses there (and plays from 0 if set again)
          action.paused = false;
          mixer.setTime(Math.min(t, end));
          group.updateMatrixWorld(true);
          skeleton.bones.forEach((bone, j) => {
            v.setFromMatrixPosition(bone.matrixWorld);
            const e = expected[i]!;
            worst = Math.max(worst, Math.hypot(v.x - e[j * 3]!, v.y - e[j * 3 + 1]!, v.z - e[j * 3 + 2]!));
          });
        });
        expect(worst / size, `${name} ${precision}`).toBeLessThan(tolerance);
      }
      checked++;
    }
    expect(checked).toBe(clips.length);
  });
});

describe('fromAnimationClip on clips made by three.js loaders', () => {
  it("BVHLoader: the rotations of every frame equal rotsig's parseBvh of the same file (float32 keys: 1e-6)", () => {
    const files: [string, string][] = SAMPLES.map((n) => [n, readFileSync(join(root, 'samples', n), 'utf8')]);
    if (HAS_SHARED_BVH) files.push(['cmu/01_01.bvh', readSharedBvh('cmu/01_01.bvh')]);
    for (const [name, text] of files) {
      const loaded = new BVHLoader().parse(text);
      const keyed = fromAnimationClip(loaded.clip, loaded.skeleton);
      const bvh = parseBvh(text);
      const J = bvh.skeleton.names.length;
      // BVHLoader makes a bone per joint and per End Site; rotsig's joints are the same joints in order
      const bones = loaded.skeleton.bones.map((b) => b.name);
      const joint = bvh.skeleton.names.map((n) => bones.indexOf(n));
      expect(
        joint.every((j) => j >= 0),
        name,
      ).toBe(true);
      let worst = 0;
      let tracks = 0;
      for (const track of keyed.tracks) {
        if (track.path !== 'rotation') continue;
        const j = joint.indexOf(track.joint);
        if (j < 0) continue;
        tracks++;
        expect(track.times.length, name).toBe(bvh.frames);
        for (let f = 0; f < bvh.frames; f++) {
          const o = (f * J + j) * 4;
          let dot = 0;
          for (let c = 0; c < 4; c++) dot += track.values[f * 4 + c]! * bvh.rotations.data[o + c]!;
          const s = dot < 0 ? -1 : 1;
          for (let c = 0; c < 4; c++)
            worst = Math.max(worst, Math.abs(s * track.values[f * 4 + c]! - bvh.rotations.data[o + c]!));
        }
      }
      expect(tracks, name).toBe(J);
      expect(worst, name).toBeLessThan(1e-6);
    }
  });

  it("GLTFLoader: each clip's tracks equal rotsig's readGltf of the same file, key for key", async () => {
    // GLB files without textures (GLTFLoader decodes images with browser APIs)
    const files = [
      join(FIXTURE_GLTF_DIR, 'BoxAnimated.glb'),
      join(FIXTURE_GLTF_DIR, 'AnimatedMorphCube.glb'),
      join(root, 'web', 'public', 'samples', 'RobotExpressive.glb'),
    ];
    if (HAS_SHARED_GLTF) files.push(sharedGltfPath('khronos-samples/rigged_figure.glb'));
    for (const file of files) {
      const bytes = new Uint8Array(readFileSync(file));
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      const gltf = await new GLTFLoader().parseAsync(buffer, '');
      const { clips } = await readGltf(bytes, { animation: 'all' });
      expect(gltf.animations).toHaveLength(clips.length);
      gltf.animations.forEach((animation, a) => {
        const back = fromAnimationClip(animation, gltf.scene);
        const ours = clips[a] as KeyedClip;
        const targets = gltfTargets(gltf, ours);
        // match tracks by the object they drive and their path
        const key = (object: THREE.Object3D | undefined | null, path: string) => `${object?.uuid}:${path}`;
        // back's tracks are animation's, in order: each drives the node its three.js track name binds to
        expect(back.tracks).toHaveLength(animation.tracks.length);
        const theirs = new Map<string, Track>();
        back.tracks.forEach((t, i) => {
          if (t.path === 'weights') return;
          const { nodeName } = THREE.PropertyBinding.parseTrackName(animation.tracks[i]!.name);
          const object = THREE.PropertyBinding.findNode(gltf.scene, nodeName) as THREE.Object3D;
          theirs.set(key(object, t.path), t);
        });
        let compared = 0;
        for (const t of ours.tracks) {
          if (t.path === 'weights') continue;
          const other = theirs.get(key(targets[t.joint], t.path));
          expect(other, `${file} animation ${a} joint ${t.joint} ${t.path}`).toBeDefined();
          expect(other!.interpolation).toBe(t.interpolation);
          expect(Array.from(other!.times)).toEqual(Array.from(t.times));
          expect(Array.from(other!.values)).toEqual(Array.from(t.values));
          compared++;
        }
        expect(compared).toBe(ours.tracks.filter((t) => t.path !== 'weights').length);
      });
    }
  });
});

describe('fromAnimationClip on an FBXLoader clip (test/fixtures/fbx/two-bones.fbx, written by hand)', () => {
  function loadFbx(): THREE.Group {
    const b = readFileSync(join(root, 'test', 'fixtures', 'fbx', 'two-bones.fbx'));
    return new FBXLoader().parse(
      b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer,
      '',
    );
  }

  it('reads the hierarchy, rest pose and keys: Spine turns 45° about x at 1 s, Hips moves 1 unit in x by 0.5 s', () => {
    const group = loadFbx();
    const keyed = fromAnimationClip(group.animations[0]!, group);
    expect(keyed.skeleton.names).toEqual(['Hips', 'Spine']);
    expect(Array.from(keyed.skeleton.parents)).toEqual([-1, 0]);
    expect(Array.from(keyed.skeleton.restTranslations)).toEqual([0, 10, 0, 0, 5, 0]);
    const spine = keyed.tracks.find((t) => t.joint === 1 && t.path === 'rotation')!;
    const hips = keyed.tracks.find((t) => t.joint === 0 && t.path === 'translation')!;
    expect(Array.from(spine.times)).toEqual([0, 1, 2]);
    const h = Math.PI / 8; // half of 45°
    const q = evaluateTrack(spine, [1]);
    [Math.sin(h), 0, 0, Math.cos(h)].forEach((v, c) => {
      expect(q[c]).toBeCloseTo(v, 6);
    });
    const p = evaluateTrack(hips, [0.5]);
    expect(Array.from(p)).toEqual([1, 10, 0]);
  });

  it('played back through toAnimationClip, the bones turn as the FBX clip turns them (1e-6)', () => {
    const group = loadFbx();
    const fbxClip = group.animations[0]!;
    const keyed = fromAnimationClip(fbxClip, group);
    const skeleton = createSkeleton(keyed);
    const ours = scene(skeleton);
    const mixers = [new THREE.AnimationMixer(group), new THREE.AnimationMixer(ours)];
    mixers[0]!.clipAction(fbxClip).play();
    mixers[1]!.clipAction(toAnimationClip(keyed)).play();
    const a = new THREE.Quaternion();
    const b = new THREE.Quaternion();
    const pa = new THREE.Vector3();
    const pb = new THREE.Vector3();
    let worst = 0;
    for (const t of [0, 0.3, 0.75, 1, 1.6, 1.99]) {
      for (const m of mixers) m.setTime(t);
      group.updateMatrixWorld(true);
      ours.updateMatrixWorld(true);
      for (const name of ['Hips', 'Spine']) {
        const theirs = group.getObjectByName(name)!;
        const mine = skeleton.getBoneByName(name)!;
        theirs.getWorldQuaternion(a);
        mine.getWorldQuaternion(b);
        theirs.getWorldPosition(pa);
        mine.getWorldPosition(pb);
        worst = Math.max(worst, 1 - Math.abs(a.dot(b)), pa.distanceTo(pb));
      }
    }
    expect(worst).toBeLessThan(1e-6);
  });
});
