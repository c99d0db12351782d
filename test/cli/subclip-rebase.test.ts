import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGltf } from '../../src/io/index.js';
import { FIXTURE_GLTF_DIR } from '../support/gltf-data.js';
import { ensureBuilt, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

describe('rotsig subclip --rebase', () => {
  it('rotsig subclip Fox.glb --animation 1 --start 3 --end 10 --rebase: the cut runs from 0 to 6/24 s', async () => {
    const dir = tempDir();
    const fox = join(FIXTURE_GLTF_DIR, 'Fox.glb');
    const times = async (path: string) => {
      const read = await readGltf(new Uint8Array(readFileSync(path)), { animation: 1 });
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const t of read.clips[0].tracks) {
        lo = Math.min(lo, t.times[0]);
        hi = Math.max(hi, t.times[t.times.length - 1]);
      }
      return { lo, hi };
    };
    const rebased = join(dir, 'rebased.glb');
    const kept = join(dir, 'kept.glb');
    const args = ['subclip', fox, '--animation', '1', '--start', '3', '--end', '10'];
    expect(rotsig([...args, '--rebase', '-o', rebased]).code).toBe(0);
    expect(rotsig([...args, '-o', kept]).code).toBe(0);
    // the Walk is keyed at 24 Hz from 0 s ('uniform 24 Hz' in info): frames 3 to 9 are 3/24 to 9/24 s
    const r = await times(rebased);
    expect(r.lo).toBe(0);
    expect(r.hi).toBeCloseTo(6 / 24, 6);
    const k = await times(kept);
    expect(k.lo).toBeCloseTo(3 / 24, 6);
    expect(k.hi).toBeCloseTo(9 / 24, 6);
  });
});
