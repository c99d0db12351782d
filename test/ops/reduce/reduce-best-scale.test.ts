// effort 'best' on clips with scale channels: the descendants' points check runs there too (with the
// points in each joint's own frame through M⁻¹ and the vertices' lever arms grown by the scales below),
// so it keeps fewer keys than 'fast', and the bound holds when three.js plays the keys.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import * as THREE from 'three';
import { describe, expect, it } from 'vitest';
import { parseBvh } from '../../../src/io/index.js';
import { type ReduceKeysOptions, reduceKeys } from '../../../src/ops/reduce/reduce-keys.js';
import { ANIMATED_SCALE, type Clip, type KeyedClip } from '../../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';
import { createSkeleton, toAnimationClip } from '../../../src/three/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** `clip` with every joint's scale animated: `1 + a·sin` per axis, different per joint and axis (non-uniform). */
function withScales(clip: Clip, amplitude: number): Clip {
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  const data = new Float64Array(F * J * 3);
  for (let f = 0; f < F; f++)
    for (let j = 0; j < J; j++)
      for (let c = 0; c < 3; c++)
        data[(f * J + j) * 3 + c] = 1 + amplitude * Math.sin(f / (20 + 3 * c + j) + j + 2 * c);
  const animated = Uint8Array.from(clip.animated, (a) => a | ANIMATED_SCALE);
  return makeClip({ ...clip, scales: { data, frames: F, joints: J }, animated });
}

function sample(name: string, frames: number): Clip {
  const clip = parseBvh(readFileSync(join(root, 'samples', name), 'utf8'));
  const J = clip.skeleton.names.length;
  const F = Math.min(frames, clip.frames);
  return {
    ...clip,
    frames: F,
    rotations: { data: clip.rotations.data.slice(0, F * J * 4), frames: F, joints: J },
    translations: { data: clip.translations.data.slice(0, F * J * 3), frames: F, joints: J },
  };
}

/**
 * The largest displacement of six points (± each local axis at `shell`) of every joint, at every original
 * frame, between the keys played by three.js's AnimationMixer and the original clip played the same way.
 */
function objectError(original: Clip, keyed: KeyedClip, shell: number): number {
  const play = (clipLike: Clip | KeyedClip) => {
    const skeleton = createSkeleton(original);
    const group = new THREE.Group();
    for (const bone of skeleton.bones) if (bone.parent === null) group.add(bone);
    const mixer = new THREE.AnimationMixer(group);
    const action = mixer.clipAction(toAnimationClip(clipLike, { precision: 'float64' }));
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    return { skeleton, group, mixer };
  };
  const a = play(original);
  const b = play(keyed);
  const va = new THREE.Vector3();
  const vb = new THREE.Vector3();
  let worst = 0;
  for (let f = 0; f < original.frames; f++) {
    a.mixer.setTime(f * original.frameTime);
    b.mixer.setTime(f * original.frameTime);
    a.group.updateMatrixWorld(true);
    b.group.updateMatrixWorld(true);
    for (let j = 0; j < a.skeleton.bones.length; j++)
      for (let k = 0; k < 6; k++) {
        const offset = [0, 0, 0];
        offset[k >> 1] = k & 1 ? -shell : shell;
        va.fromArray(offset).applyMatrix4(a.skeleton.bones[j].matrixWorld);
        vb.fromArray(offset).applyMatrix4(b.skeleton.bones[j].matrixWorld);
        worst = Math.max(worst, va.distanceTo(vb));
      }
  }
  return worst;
}

describe("reduceKeys(clip, { effort: 'best' }) with scale channels", () => {
  it('keeps fewer keys than effort fast on a capture with animated non-uniform scales, both within the bound', () => {
    const clip = withScales(sample('01_01.bvh', 300), 0.05);
    for (const tolerance of [0.01, 0.1]) {
      const options: ReduceKeysOptions = { preset: 'acl', unitsPerMeter: 100, tolerance };
      const fast = reduceKeys(clip, options);
      const best = reduceKeys(clip, { ...options, effort: 'best' });
      expect(best.report.keysAfter, `at ${tolerance}`).toBeLessThan(fast.report.keysAfter);
      expect(best.report.maxError).toBeLessThanOrEqual(tolerance);
      expect(objectError(clip, best.clip, 3)).toBeLessThanOrEqual(tolerance * (1 + 1e-9));
      expect(objectError(clip, fast.clip, 3)).toBeLessThanOrEqual(tolerance * (1 + 1e-9));
    }
  });

  it('never exceeds the tolerance and never keeps more keys than fast on random chains with random scales (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 2, max: 50 }),
        fc.double({ min: 1e-4, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.6, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        (J, F, tolerance, scale, seed) => {
          const clip = withScales(randomChain(J, F, seed), scale);
          const { clip: keyed, report } = reduceKeys(clip, { tolerance, shellDistance: 1, effort: 'best' });
          expect(report.maxError).toBeLessThanOrEqual(tolerance);
          expect(objectError(clip, keyed, 1)).toBeLessThanOrEqual(tolerance * (1 + 1e-9));
          // 'best' is never worse than 'fast' (it keeps the better of both searches)
          const fast = reduceKeys(clip, { tolerance, shellDistance: 1 });
          expect(report.keysAfter).toBeLessThanOrEqual(fast.report.keysAfter);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** A chain of `J` joints 2 units apart with smooth random swings (a seeded generator) and a moving root. */
function randomChain(J: number, F: number, seed: number): Clip {
  let state = seed * 2654435761 + 1;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const rest = new Float64Array(J * 3);
  for (let j = 1; j < J; j++) rest.set([random() - 0.5, 2, random() - 0.5], j * 3);
  const skeleton = makeSkeleton({
    names: Array.from({ length: J }, (_, j) => `j${j}`),
    parents: Array.from({ length: J }, (_, j) => j - 1),
    restTranslations: rest,
  });
  const rot = new Float64Array(F * J * 4);
  const tr = new Float64Array(F * J * 3);
  for (let f = 0; f < F; f++)
    for (let j = 0; j < J; j++) {
      const angle = Math.sin(f / (3 + j) + j) + 0.01 * (random() - 0.5);
      const axis = [Math.cos(j), Math.sin(j), 0.5];
      const n = Math.hypot(...axis);
      const s = Math.sin(angle / 2) / n;
      rot.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)], (f * J + j) * 4);
      tr.set(j === 0 ? [Math.sin(f / 9), 0.1 * f, 0] : rest.subarray(j * 3, j * 3 + 3), (f * J + j) * 3);
    }
  const animated = new Uint8Array(J).fill(2);
  animated[0] = 3;
  return makeClip({
    skeleton,
    frameTime: 1 / 30,
    rotations: { data: rot, frames: F, joints: J },
    translations: { data: tr, frames: F, joints: J },
    animated,
  });
}
