import { beforeAll, describe, expect, it } from 'vitest';
import { HAS_SHARED_BVH, sharedBvhPath } from '../support/shared-data.js';
import { ensureBuilt, rotsig } from './helpers.js';

beforeAll(ensureBuilt);

describe('rotsig info on the bundled sample', () => {
  it('rotsig info samples/01_01.bvh prints skeleton, rate guess, frames and speeds on stdout', () => {
    const r = rotsig(['info', 'samples/01_01.bvh']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /skeleton +31 joints, 96 channels; root Hips: Xposition Yposition Zposition Zrotation Yrotation Xrotation/,
    );
    expect(r.stdout).toMatch(/rate +120 Hz \(Frame Time \.0083333 s; as written 120\.0005 Hz\)/);
    expect(r.stdout).toMatch(/frames +2752 \(22\.925 s\)/);
    expect(r.stdout).toMatch(/orders +ZYX x31/);
  });

  it('rotsig info --json gives the same facts as JSON', () => {
    const r = rotsig(['info', 'samples/01_01.bvh', '--json']);
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(a.file).toBe('samples/01_01.bvh');
    expect(a.joints).toBe(31);
    expect(a.frames).toBe(2752);
    expect(a.rate.frameTimeText).toBe('.0083333');
    expect(a.rate.numerator).toBe(120);
    expect(a.rate.denominator).toBe(1);
    expect(a.rate.hz).toBeCloseTo(1 / 0.0083333, 9);
    expect(a.perJoint).toHaveLength(31);
    expect(a.perJoint[0].name).toBe('Hips');
    expect(a.perJoint[0].order).toBe('ZYX');
    // The first frame is a T-pose: the step to frame 1 is a jump far above any plausible speed.
    const jumpFrames = a.perJoint.flatMap((j: { worst: { frame: number; kind: string }[] }) =>
      j.worst.filter((w) => w.kind === 'jump').map((w) => w.frame),
    );
    expect(jumpFrames).toContain(1);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('rotsig info on the shared captures', () => {
  it('rotsig info --json on several files returns one entry per file with the README facts', () => {
    const files = [
      'cmu-iclone/005_11.bvh',
      'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh',
      'bandai-namco/dataset-1_dance-short_normal_001.bvh',
      'assimp/Boxing_Toes.bvh',
      'axis-neuron/test.bvh',
    ];
    const r = rotsig(['info', '--json', ...files.map(sharedBvhPath)]);
    expect(r.code).toBe(0);
    const [iclone, pymo, dance, boxing, axis] = JSON.parse(r.stdout);
    // 0.016667 s -> 59.999 Hz as written, 60 meant; 0.008333 -> 120.005, 120 meant.
    expect(iclone.rate.hz).toBeCloseTo(59.9988, 3);
    expect(iclone.rate.guessHz).toBe(60);
    expect(pymo.rate.hz).toBeCloseTo(120.0048, 3);
    expect(pymo.rate.guessHz).toBe(120);
    expect(axis.rate.guessHz).toBe(125);
    expect(boxing.rate.guessHz).toBe(100);
    // Boxing declares 3069 frames and has 3070 rows: the rows win, with a warning.
    expect(boxing.frames).toBe(3070);
    expect(boxing.warnings.some((w: { message: string }) => /3069/.test(w.message))).toBe(true);
    // Position semantics: iClone adds channels to a large root OFFSET; the others restate it.
    expect(iclone.positions.guess).toBe('add');
    expect(pymo.positions.guess).toBe('replace');
    expect(axis.positions.guess).toBe('replace');
    // The Bandai dance is wrapped at +-180 degrees: hundreds of wraps, seen as quaternion sign flips.
    expect(dance.discontinuities.signFlips).toBeGreaterThan(200);
    expect(dance.frames).toBe(1901);
    // iClone pirouette: the root turns at about 700 deg/s at its peak (README), far below a jump.
    const hip = iclone.perJoint[0];
    expect((hip.peakSpeed * 180) / Math.PI).toBeGreaterThan(500);
    expect((hip.peakSpeed * 180) / Math.PI).toBeLessThan(1500);
  });

  it('--position-mode add reads the iClone file the way its data suggests; positions move up by the OFFSET', () => {
    const file = sharedBvhPath('cmu-iclone/005_11.bvh');
    const r = rotsig(['info', file, '--json', '--position-mode', 'add']);
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(a.positions.readAs).toBe('add');
    expect(a.positions.guess).toBe('add');
    const rootY = (mode: string) => {
      const out = rotsig([
        'export',
        file,
        '-o',
        '-',
        '--as',
        'positions',
        '--format',
        'json',
        '-q',
        '--position-mode',
        mode,
      ]);
      expect(out.code).toBe(0);
      return JSON.parse(out.stdout).data[0][0][1] as number;
    };
    // Root OFFSET Y is 105.214226 (README of the shared data).
    expect(rootY('add') - rootY('replace')).toBeCloseTo(105.214226, 6);
  });
});
