import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { parseBvh } from '../../src/io/index.js';
import { forwardKinematicsFrame } from '../../src/ops/skeleton/forward-kinematics.js';
import { slerpFlat } from '../../src/quat/core.js';
import type { Clip, KeyedClip } from '../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../src/series/clip-create.js';
import { bindingNames, createSkeleton, fromAnimationClip, toAnimationClip } from '../../src/three/index.js';
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
