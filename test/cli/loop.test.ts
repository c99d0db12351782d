// Looping clips through the command line, measured on the written files with the test's own glTF
// evaluator (test/support/gltf-seam.ts: the specification's slerp/lerp and node transforms, not rotsig's).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_GLTF_DIR, HAS_SHARED_GLTF, sharedGltfPath } from '../support/gltf-data.js';
import {
  animationIndex,
  animationRange,
  channelTimes,
  type Glb,
  readGlb,
  seam,
  worldPositions,
} from '../support/gltf-seam.js';
import { ensureBuilt, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');
const ROBOT = sharedGltfPath('robot-expressive/RobotExpressive.glb');

/** Largest joint distance between two animations' poses at the input's key times of animation `a`. */
function stepError(input: Glb, a: number, output: Glb, b: number, times: ArrayLike<number>): number {
  let worst = 0;
  for (const t of Array.from(times)) {
    const p = worldPositions(input, a, t);
    const q = worldPositions(output, b, t);
    for (const [j, x] of p) {
      const y = q.get(j);
      if (y !== undefined) worst = Math.max(worst, Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
    }
  }
  return worst;
}

/** Key times of every channel of an animation, merged. */
function keyTimes(glb: Glb, animation: number): number[] {
  const { start, end } = animationRange(glb, animation);
  // the Fox's and the robot's animations are keyed at 24 Hz from 0 s
  const out: number[] = [];
  for (let i = 0; start + i / 24 <= end + 1e-6; i++) out.push(start + i / 24);
  return out;
}

describe('loops in the command line (Fox.glb: Walk and Run repeat their first pose at the end)', () => {
  it('the input loops: Walk and Run end on their first pose (seam 0 by the independent evaluator)', () => {
    const fox = readGlb(FOX);
    expect(seam(fox, animationIndex(fox, 'Walk'))).toBeLessThan(1e-9);
    expect(seam(fox, animationIndex(fox, 'Run'))).toBeLessThan(1e-9);
  });

  it('smooth (defaults, --loop auto) keeps the seam closed: 0 where it was 14.4 (Walk) and 20 (Run) units', () => {
    const out = join(tempDir(), 'smooth.glb');
    expect(rotsig(['smooth', FOX, '-o', out]).code).toBe(0);
    const fox = readGlb(FOX);
    const glb = readGlb(out);
    for (const name of ['Walk', 'Run']) {
      const a = animationIndex(fox, name);
      const b = animationIndex(glb, name);
      const error = stepError(fox, a, glb, b, keyTimes(fox, a));
      // the smoothing moves the poses (its own error, several units on this 24 Hz fox), the seam stays shut
      expect(error).toBeGreaterThan(0.1);
      expect(seam(glb, b)).toBeLessThanOrEqual(1e-4);
    }
  });

  it('--loop off leaves the seam open (the old behaviour, now asked for)', () => {
    const out = join(tempDir(), 'open.glb');
    // 2 frames of smoothing (the default at 24 Hz is 0.4 frames, which hardly opens a seam)
    expect(rotsig(['smooth', FOX, '--sigma', '2f', '--loop', 'off', '-o', out]).code).toBe(0);
    const glb = readGlb(out);
    expect(seam(glb, animationIndex(glb, 'Walk'))).toBeGreaterThan(1);
  });

  it('resample --rate 30 keeps 30 Hz and ends at the input end time, seam 0 (it ended at 0.7000 s of 0.7083 s, seam 0.84)', () => {
    const out = join(tempDir(), 'r30.glb');
    const run = rotsig(['resample', FOX, '--rate', '30', '-o', out]);
    expect(run.code).toBe(0);
    const fox = readGlb(FOX);
    const glb = readGlb(out);
    // the requested rate holds: keys 1/30 s apart, then the closing key at the end time (0.7083 s)
    expect(run.stderr).not.toMatch(/rate-adjusted|resampled at/);
    const times = channelTimes(glb, animationIndex(glb, 'Walk'));
    const n = times.length;
    for (let k = 1; k < n - 1; k++) expect(times[k] - times[k - 1]).toBeCloseTo(1 / 30, 6);
    expect(times[n - 2]).toBeCloseTo(21 / 30, 6);
    expect(times[n - 1]).toBeCloseTo(17 / 24, 6);
    for (const name of ['Walk', 'Run']) {
      const a = animationIndex(fox, name);
      const b = animationIndex(glb, name);
      const error = stepError(fox, a, glb, b, keyTimes(fox, a));
      // (Run's keys are not evenly spaced, one gap of 0.2 s: its bake runs 1/120 s past its last key)
      if (name === 'Walk') expect(animationRange(glb, b).end).toBeCloseTo(animationRange(fox, a).end, 6);
      expect(seam(glb, b)).toBeLessThanOrEqual(Math.max(error, 1e-4));
      expect(seam(glb, b)).toBeLessThanOrEqual(1e-4);
    }
  });

  it('--boundary wrap is not undone by --segments: the seam stays closed and the step keeps its error', () => {
    const out = join(tempDir(), 'wrap.glb');
    expect(rotsig(['smooth', FOX, '--boundary', 'wrap', '-o', out]).code).toBe(0);
    const glb = readGlb(out);
    expect(seam(glb, animationIndex(glb, 'Run'))).toBeLessThanOrEqual(1e-4);
  });

  it('reduce keeps the seam within its reported error (object-space bound 1e-4 units)', () => {
    const out = join(tempDir(), 'reduced.glb');
    expect(rotsig(['reduce', FOX, '-o', out]).code).toBe(0);
    const glb = readGlb(out);
    for (const name of ['Walk', 'Run'])
      expect(seam(glb, animationIndex(glb, name))).toBeLessThanOrEqual(1e-4);
  });
});

describe.skipIf(!HAS_SHARED_GLTF)('loops and ends on RobotExpressive (shared data)', () => {
  it('resample --rate 30 keeps a non-looping clip (Death, 0.9583 s) ending on its end pose at its end time', () => {
    const out = join(tempDir(), 'robot30.glb');
    expect(rotsig(['resample', ROBOT, '--rate', '30', '-o', out]).code).toBe(0);
    const input = readGlb(ROBOT);
    const glb = readGlb(out);
    const a = animationIndex(input, 'Death');
    const b = animationIndex(glb, 'Death');
    const end = animationRange(input, a).end;
    expect(animationRange(glb, b).end).toBe(end);
    // the end pose itself, not the filtered grid's last frame 1/30 s before it
    expect(stepError(input, a, glb, b, [end])).toBeLessThan(1e-4);
  });

  it('a looping robot clip (Running) smoothed and resampled keeps its seam at 0', () => {
    const dir = tempDir();
    const input = readGlb(ROBOT);
    for (const args of [['smooth'], ['resample', '--rate', '30']]) {
      const out = join(dir, `${args[0]}.glb`);
      expect(rotsig([args[0], ROBOT, ...args.slice(1), '-o', out]).code).toBe(0);
      const glb = readGlb(out);
      const b = animationIndex(glb, 'Running');
      expect(seam(glb, b)).toBeLessThanOrEqual(1e-4);
      expect(animationRange(glb, b).end).toBeCloseTo(
        animationRange(input, animationIndex(input, 'Running')).end,
        6,
      );
    }
  });
});
