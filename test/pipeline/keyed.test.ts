import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGltf } from '../../src/io/index.js';
import { runKeyedSteps } from '../../src/pipeline/index.js';
import type { KeyedClip } from '../../src/series/clip.js';
import { chainSkeleton, track } from '../ops/keys/helpers.js';
import { FIXTURE_GLTF_DIR } from '../support/gltf-data.js';

/** COLLADA2GLTF-style key times of a 37.5 Hz animation: printed with 4 decimals, stored as float32 (intervals 0.0266 to 0.0267 s). */
function colladaTimes(keys: number): number[] {
  return Array.from({ length: keys }, (_, k) => Math.fround(Math.round((k / 37.5) * 1e4) / 1e4));
}

function jittered(): KeyedClip {
  const times = colladaTimes(40);
  const rot = times.flatMap((t) => {
    const a = Math.sin(2 * Math.PI * t) + 0.05 * Math.sin(40 * t);
    return [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  });
  const pos = times.flatMap((t) => [t, 1 + 0.1 * Math.sin(9 * t), 0]);
  return {
    name: 'jitter',
    skeleton: chainSkeleton(),
    tracks: [
      track(0, 'translation', 'linear', times, pos, true),
      track(1, 'rotation', 'linear', times, rot, true),
    ],
    orders: ['XYZ', 'XYZ', 'XYZ'],
  };
}

describe('runKeyedSteps(keyed, steps) keeps the key times of steps that keep the timing', () => {
  it('smooth on a jittered 37.5 Hz grid: every output key time is the input key time, bit for bit', () => {
    const keyed = jittered();
    const out = runKeyedSteps(keyed, [
      { op: 'unroll' },
      { op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } },
    ]);
    expect(out.tracks).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(Array.from(out.tracks[i].times)).toEqual(Array.from(keyed.tracks[i].times));
      expect(out.tracks[i].interpolation).toBe('linear');
    }
    // smoothing did change the values (the 40 rad/s wobble is gone), and rotations stay unit
    const a = keyed.tracks[1].values;
    const b = out.tracks[1].values;
    let moved = 0;
    for (let k = 0; k < a.length; k++) moved = Math.max(moved, Math.abs(a[k] - b[k]));
    expect(moved).toBeGreaterThan(1e-3);
    for (let k = 0; k < b.length; k += 4)
      expect(Math.hypot(b[k], b[k + 1], b[k + 2], b[k + 3])).toBeCloseTo(1, 12);
  });

  it('smooth on Fox.glb Walk (24 Hz keys): every track keeps its key times bit for bit', async () => {
    const read = await readGltf(new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'Fox.glb'))), {
      animation: 1,
    });
    const keyed = read.clips[0];
    const out = runKeyedSteps(keyed, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } }]);
    expect(out.tracks).toHaveLength(keyed.tracks.length);
    for (let i = 0; i < keyed.tracks.length; i++)
      expect(Array.from(out.tracks[i].times), `track ${i}`).toEqual(Array.from(keyed.tracks[i].times));
  });
});
