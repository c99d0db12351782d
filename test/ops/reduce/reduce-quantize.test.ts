/**
 * The rounding cost a 16-bit reduction starts from: measured on the pose of every key rounded, without
 * building that clip, it must equal what the report measures on the clip itself (every key kept, rounded).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseBvh } from '../../../src/io/index.js';
import { keyedFrames } from '../../../src/ops/reduce/reduce-keyed.js';
import { resolve } from '../../../src/ops/reduce/reduce-options.js';
import { prepare, trackKeys } from '../../../src/ops/reduce/reduce-prepare.js';
import { quantizedReference } from '../../../src/ops/reduce/reduce-quantize.js';
import { finish } from '../../../src/ops/reduce/reduce-report.js';
import type { Clip, KeyedClip } from '../../../src/series/clip.js';

const root = resolvePath(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function capture(name: string, frames: number): Clip {
  const clip = parseBvh(readFileSync(join(root, 'samples', name), 'utf8'));
  const J = clip.skeleton.names.length;
  return {
    ...clip,
    frames,
    rotations: { data: clip.rotations.data.slice(0, frames * J * 4), frames, joints: J },
    translations: { data: clip.translations.data.slice(0, frames * J * 3), frames, joints: J },
  };
}

/** The capture as keyed tracks whose key times differ per joint (every 1st, 2nd or 3rd frame). */
function keyedFrom(clip: Clip): KeyedClip {
  const J = clip.skeleton.names.length;
  const tracks: KeyedClip['tracks'] = [];
  for (let j = 0; j < J; j++) {
    const step = 1 + (j % 3);
    const frames: number[] = [];
    for (let f = 0; f < clip.frames; f += step) frames.push(f);
    if (frames[frames.length - 1] !== clip.frames - 1) frames.push(clip.frames - 1);
    const times = Float64Array.from(frames, (f) => f * clip.frameTime);
    const values = new Float64Array(frames.length * 4);
    frames.forEach((f, k) => {
      for (let c = 0; c < 4; c++) values[k * 4 + c] = clip.rotations.data[(f * J + j) * 4 + c];
    });
    tracks.push({ joint: j, path: 'rotation', interpolation: 'linear', times, values, width: 4 });
  }
  return { skeleton: clip.skeleton, tracks, orders: clip.orders };
}

describe('the measured 16-bit rounding cost', () => {
  const cases: [string, () => { clip: Clip; keyed: ReturnType<typeof keyedFrames> | null }][] = [
    ['a uniform capture (01_01)', () => ({ clip: capture('01_01.bvh', 300), keyed: null })],
    [
      'a keyed clip with other key times per track',
      () => {
        const k = keyedFrames(
          keyedFrom(capture('01_01.bvh', 200)),
          resolve({ quantization: 'int16' }),
          false,
        );
        return { clip: k.clip, keyed: k };
      },
    ],
  ];
  for (const [label, make] of cases) {
    it(`${label}: equals the report's maxError of the clip with every key rounded`, () => {
      const { clip, keyed } = make();
      const o = resolve({ preset: 'acl', unitsPerMeter: 100, tolerance: 0.05, quantization: 'int16' });
      const d = prepare(clip, false, false, o.shell, keyed ? keyed.frames : null, null);
      const { error, source } = quantizedReference(clip, d, o);
      const report = finish(clip, source, o, trackKeys(clip, source)).report;
      expect(error).toBeGreaterThan(0);
      expect(error).toBe(report.maxError);
    });
  }
});
