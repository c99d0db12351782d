// What the command says of a file's size is true of the file: frames for a uniformly sampled clip, and for
// a keyed (glTF) clip, whose tracks keep times of their own, the keys of its longest track, as the test's
// own glTF reader (test/support/gltf-reference.ts, no rotsig code) counts them in the written file.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { animationsOf, loadGltf } from '../support/gltf-reference.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const FOX = join(ROOT, 'samples', 'Fox.glb');
const CMU = join(ROOT, 'samples', '01_01.bvh');

/** The most keys in one channel of the file's animations (its longest track). */
function longestTrack(file: string): number {
  let n = 0;
  for (const a of animationsOf(loadGltf(file))) for (const c of a.channels) n = Math.max(n, c.times.length);
  return n;
}

describe('sizes in the command messages', () => {
  it('reduce on a glTF: keys of the longest track, written and read, never "frames"', () => {
    const out = join(tempDir(), 'fox.glb');
    const r = rotsig(['reduce', FOX, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    // "(N keys in the longest track, J joints" when that track kept every key, else ", from M; J joints"
    const m = r.stderr.match(/wrote \S+ \((\d+) keys in the longest track(?:, from (\d+);|,) (\d+) joints, /);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBe(longestTrack(out));
    expect(Number(m![2] ?? m![1])).toBe(longestTrack(FOX));
    expect(Number(m![3])).toBe(25);
    expect(r.stderr).not.toMatch(/\d+ frames/);
  });

  it('reduce from a BVH capture to a GLB: frames in, keys of the longest track out', () => {
    const out = join(tempDir(), 'cmu.glb');
    const r = rotsig(['reduce', CMU, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const m = r.stderr.match(/wrote \S+ \((\d+) keys in the longest track, from 2752 frames; 31 joints, /);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBe(longestTrack(out));
  });

  it('--verbose and --json say the same, and the summary counts keys per second', () => {
    const dir = tempDir();
    const r = rotsig(['reduce', FOX, '-o', join(dir, 'fox.glb'), '--verbose', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(r.stdout).files[0];
    expect(file.counts).toEqual({ input: 'keys', output: 'keys' });
    expect(file.frames).toBe(longestTrack(FOX));
    expect(file.outputFrames).toBe(longestTrack(join(dir, 'fox.glb')));
    const change =
      file.outputFrames === file.frames ? '' : ` -> ${file.outputFrames} keys in the longest track`;
    expect(r.stderr).toContain(`${file.frames} keys in the longest track, ${file.joints} joints${change}, `);
    expect(r.stderr).toMatch(/\(\S+ keys\/s\)/);
  });

  it('a uniform clip keeps its frames wording', () => {
    const out = join(tempDir(), 'cmu.bvh');
    const r = rotsig(['resample', CMU, '--rate', '30', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/wrote \S+ \(688 frames from 2752 x 31 joints, /);
  });
});
