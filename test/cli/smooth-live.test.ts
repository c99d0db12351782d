import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh } from '../../src/io/index.js';
import { dampClip } from '../../src/ops/live/damp-clip.js';
import { oneEuroClip } from '../../src/ops/live/one-euro-clip.js';
import { angle } from '../../src/quat/index.js';
import type { Clip } from '../../src/series/clip.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const WALK = join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
const read = (path: string): Clip => parseBvh(readFileSync(path, 'utf8'));
const DEG = 180 / Math.PI;

/** Largest and mean geodesic angle between the rotations of two clips of one shape (radians). */
function distance(a: Clip, b: Clip) {
  let max = 0;
  let sum = 0;
  const n = a.rotations.frames * a.rotations.joints;
  for (let i = 0; i < n; i++) {
    const d = angle(a.rotations.data.subarray(i * 4, i * 4 + 4), b.rotations.data.subarray(i * 4, i * 4 + 4));
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: sum / n };
}

/** Largest difference between the translations of two clips (file units). */
function translationDistance(a: Clip, b: Clip): number {
  let max = 0;
  for (let i = 0; i < a.translations.data.length; i++)
    max = Math.max(max, Math.abs(a.translations.data[i] - b.translations.data[i]));
  return max;
}

describe('rotsig smooth --filter one-euro | damper, outputs re-parsed', () => {
  it('rotsig smooth --filter one-euro --min-cutoff 1 --beta 0.01 writes what oneEuroClip computes', () => {
    const out = join(tempDir(), 'walk.oe.bvh');
    const r = rotsig([
      'smooth',
      WALK,
      '-o',
      out,
      '--filter',
      'one-euro',
      '--min-cutoff',
      '1',
      '--beta',
      '0.01',
      '--quiet',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const src = read(WALK);
    const got = read(out);
    expect(got.frames).toBe(src.frames);
    // the file holds the library's result to the writer's 6 decimals (degrees)
    const want = oneEuroClip(src, { minCutoff: 1, beta: 0.01 });
    expect(distance(got, want).max * DEG).toBeLessThan(1e-4);
    expect(translationDistance(got, want)).toBeLessThan(1e-5);
    // and it did filter: the clip moved from the input, but by less than a few degrees on average
    const moved = distance(got, src);
    expect(moved.mean * DEG).toBeGreaterThan(0.2);
    expect(moved.mean * DEG).toBeLessThan(10);
  });

  it('rotsig smooth --filter damper --half-life 0.05 writes what dampClip computes; --direction forward-backward too', () => {
    const dir = tempDir();
    const src = read(WALK);
    for (const direction of ['forward', 'forward-backward'] as const) {
      const out = join(dir, `walk.${direction}.bvh`);
      const r = rotsig([
        'smooth',
        WALK,
        '-o',
        out,
        '--filter',
        'damper',
        '--half-life',
        '0.05',
        '--direction',
        direction,
        '--quiet',
      ]);
      expect(r.code).toBe(0);
      const got = read(out);
      const want = dampClip(src, { halfLife: 0.05, direction });
      expect(distance(got, want).max * DEG).toBeLessThan(1e-4);
      expect(translationDistance(got, want)).toBeLessThan(1e-5);
    }
  });

  it('rotsig smooth --filter with options of another filter, or bad numbers, is a one-line usage error (exit 2)', () => {
    for (const [args, message] of [
      [['--filter', 'one-euro', '--half-life', '0.1'], /--half-life applies to --filter damper only/],
      [['--filter', 'damper', '--beta', '1'], /--beta applies to --filter one-euro only/],
      [['--filter', 'one-euro', '--sigma', '2'], /--sigma applies to --filter kernel only/],
      // the streaming filters run over the whole clip: a split policy would be dropped, so it is refused
      [['--filter', 'one-euro', '--segments', 'jumps'], /--segments applies to --filter kernel only/],
      [['--filter', 'damper', '--segments', 'none'], /--segments applies to --filter kernel only/],
      [['--beta', '1'], /--beta applies to --filter one-euro or damper only/],
      [['--filter', 'one-euro', '--min-cutoff', '0'], /--min-cutoff must be a positive number/],
      [['--filter', 'damper', '--half-life', 'x'], /--half-life must be a positive number/],
      // positive but outside the damper's range: a usage error before any file is read, not exit 1 per file
      [
        ['--filter', 'damper', '--half-life', '1e-300'],
        /--half-life must be from 1e-9 to 1000000000 seconds, got 1e-300/,
      ],
      [
        ['--filter', 'damper', '--half-life', '1e300'],
        /--half-life must be from 1e-9 to 1000000000 seconds, got 1e300/,
      ],
      [['--filter', 'spring'], /filter/],
    ] as const) {
      const r = rotsig(['smooth', 'samples/01_01.bvh', '-o', 'x.bvh', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n').length).toBe(1);
    }
  });
});
