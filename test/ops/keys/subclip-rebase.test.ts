// subclip(clip, { rebase: true }): the cut starts at 0 s, so three.js's AnimationMixer plays it for its
// true length and from its first pose (issue: a 0.2-0.5 s cut played as a 0.5 s clip frozen for 0.2 s).
import { AnimationClip, AnimationMixer, Object3D, VectorKeyframeTrack } from 'three';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { subclip } from '../../../src/ops/keys/subclip.js';
import type { Clip, KeyedClip } from '../../../src/series/clip.js';
import { chainSkeleton, track } from './helpers.js';

/** A translation moving x = t (metres per second) from 0 to 1 s, keyed at 10 Hz in float32. */
function ramp(): KeyedClip {
  const times = Array.from({ length: 11 }, (_, k) => k / 10);
  const values = times.flatMap((t) => [t, 0, 0]);
  return {
    name: 'ramp',
    skeleton: chainSkeleton(),
    tracks: [track(0, 'translation', 'linear', times, values, true)],
    orders: ['XYZ', 'XYZ', 'XYZ'],
  };
}

/** Plays a keyed clip's translation track with three.js and returns the duration and the x at `at` seconds. */
function play(keyed: KeyedClip, at: number): { duration: number; x: number } {
  const t = keyed.tracks[0];
  const clip = new AnimationClip('cut', -1, [
    new VectorKeyframeTrack('node.position', Array.from(t.times), Array.from(t.values)),
  ]);
  const node = new Object3D();
  node.name = 'node';
  const mixer = new AnimationMixer(node);
  const action = mixer.clipAction(clip);
  action.play();
  mixer.setTime(at);
  return { duration: clip.duration, x: node.position.x };
}

describe('subclip(keyed, { start, end, rebase })', () => {
  it('subclip(keyed, { start: 0.2, end: 0.5, rebase: true }) plays in three.js for 0.3 s from the pose at 0.2 s', () => {
    const cut = subclip(ramp(), { start: 0.2, end: 0.5, rebase: true });
    expect(cut.tracks[0].times[0]).toBe(0);
    const start = play(cut, 0);
    // three's duration is the last key time; the ramp's x is its own time, so x(0.2 s) = 0.2 (float32 keys)
    expect(start.duration).toBeCloseTo(0.3, 6);
    expect(start.x).toBeCloseTo(0.2, 6);
    expect(play(cut, 0.15).x).toBeCloseTo(0.35, 6);
    // without rebase three.js plays it as a 0.5 s clip that holds the 0.2 s pose for its first 0.2 s
    const kept = subclip(ramp(), { start: 0.2, end: 0.5 });
    expect(play(kept, 0).duration).toBeCloseTo(0.5, 6);
    expect(play(kept, 0.1).x).toBeCloseTo(0.2, 6);
  });

  it('subclip(clip, { rebase: true }) starts a uniform clip at 0 s; rebase must be a boolean', () => {
    const frames = 10;
    const clip: Clip = {
      skeleton: chainSkeleton(),
      frames,
      rate: 10,
      frameTime: 0.1,
      rotations: {
        data: new Float64Array(frames * 3 * 4).map((_, i) => (i % 4 === 3 ? 1 : 0)),
        frames,
        joints: 3,
      },
      translations: { data: new Float64Array(frames * 3 * 3), frames, joints: 3 },
      orders: ['ZYX', 'ZYX', 'ZYX'],
      animated: new Uint8Array(3),
    } as unknown as Clip;
    expect(subclip(clip, { start: 0.3, end: 0.6 }).startTime).toBeCloseTo(0.3, 12);
    expect(subclip(clip, { start: 0.3, end: 0.6, rebase: true }).startTime).toBe(0);
    expect(() => subclip(clip, { start: 0.3, end: 0.6, rebase: 'yes' as unknown as boolean })).toThrow(
      OptionError,
    );
  });
});
