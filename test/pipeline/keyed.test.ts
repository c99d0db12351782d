import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGltf } from '../../src/io/index.js';
import { bakeKeyed, runKeyedSteps, runSteps } from '../../src/pipeline/index.js';
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

  it('smooth on hand-keyed CUBICSPLINE, STEP and gapped LINEAR tracks: own times, own interpolation, the curve on the smoothed motion', () => {
    // a turn about y and a sway, keyed by hand (no grid) as cubic splines with their exact tangents
    const times = [0, 0.37, 1.1, 1.5, 2.3];
    const a = (t: number) => 1.2 * Math.sin(2 * Math.PI * 0.8 * t) + 0.3 * t;
    const da = (t: number) => 1.2 * 2 * Math.PI * 0.8 * Math.cos(2 * Math.PI * 0.8 * t) + 0.3;
    const rot = times.flatMap((t) => {
      const d = [0, 0.5 * Math.cos(a(t) / 2) * da(t), 0, -0.5 * Math.sin(a(t) / 2) * da(t)];
      return [...d, 0, Math.sin(a(t) / 2), 0, Math.cos(a(t) / 2), ...d];
    });
    const pos = times.flatMap((t) => {
      const d = [3 * Math.cos(3 * t), 0, 0];
      return [...d, Math.sin(3 * t), 1, 0, ...d];
    });
    const gap = [0, 0.1, 0.2, 0.9, 1.0, 1.1];
    const lin = gap.flatMap((t) => [Math.sin(0.4 * Math.sin(5 * t)), 0, 0, Math.cos(0.4 * Math.sin(5 * t))]);
    const steps = [0.25, 0.8, 1.3];
    const stp = steps.flatMap((_t, k) => [0, 0.3 + 0.2 * k, 0]);
    const keyed: KeyedClip = {
      name: 'hand',
      skeleton: chainSkeleton(),
      tracks: [
        track(0, 'rotation', 'cubicspline', times, rot, true),
        track(0, 'translation', 'cubicspline', times, pos, true),
        track(1, 'rotation', 'linear', gap, lin, true),
        track(2, 'translation', 'step', steps, stp, true),
      ],
      orders: ['XYZ', 'XYZ', 'XYZ'],
    };
    const smooth = { op: 'smooth', kernel: { name: 'gaussian', sigma: 0.05, unit: 'seconds' } } as const;
    const out = runKeyedSteps(keyed, [smooth]);
    expect(out.tracks).toHaveLength(4);
    for (let i = 0; i < 4; i++) {
      expect(Array.from(out.tracks[i].times), `track ${i}`).toEqual(Array.from(keyed.tracks[i].times));
      expect(out.tracks[i].interpolation).toBe(keyed.tracks[i].interpolation);
    }
    // the written cubic curves (the glTF Hermite, evaluated here) against the smoothed uniform clip at its frames
    const processed = runSteps(bakeKeyed(keyed), [smooth]);
    const hermite = (tr: (typeof out.tracks)[number], t: number) => {
      const w = tr.width;
      let k = 0;
      while (k + 2 < tr.times.length && tr.times[k + 1] <= t) k++;
      const td = tr.times[k + 1] - tr.times[k];
      const s = (t - tr.times[k]) / td;
      const v = (i: number) => tr.values[i];
      const r = Array.from({ length: w }, (_, c) => {
        const p0 = v(3 * k * w + w + c);
        const m0 = v(3 * k * w + 2 * w + c);
        const p1 = v(3 * (k + 1) * w + w + c);
        const m1 = v(3 * (k + 1) * w + c);
        return (
          (2 * s ** 3 - 3 * s ** 2 + 1) * p0 +
          td * (s ** 3 - 2 * s ** 2 + s) * m0 +
          (-2 * s ** 3 + 3 * s ** 2) * p1 +
          td * (s ** 3 - s ** 2) * m1
        );
      });
      if (w === 4) {
        const l = Math.hypot(...r);
        return r.map((x) => x / l);
      }
      return r;
    };
    let rotError = 0;
    let posError = 0;
    let moved = 0;
    let turned = 0;
    const t0 = processed.startTime ?? 0;
    for (let f = 0; f < processed.frames; f++) {
      const t = t0 + f / processed.rate;
      if (t > 2.3) break;
      // the segments at the clip's ends hold the smoothing's boundary transient, which a cubic segment cannot follow
      if (t < 0.37 || t > 1.5) continue;
      const q = hermite(out.tracks[0], t);
      const p = processed.rotations.data.subarray(f * 3 * 4, f * 3 * 4 + 4);
      const dot = Math.abs(q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3]);
      rotError = Math.max(rotError, 2 * Math.acos(Math.min(1, dot)));
      const x = hermite(out.tracks[1], t);
      posError = Math.max(posError, Math.abs(x[0] - processed.translations.data[f * 3 * 3]));
      moved = Math.max(
        moved,
        Math.abs(hermite(keyed.tracks[1], t)[0] - processed.translations.data[f * 3 * 3]),
      );
      const qi = hermite(keyed.tracks[0], t);
      const di = Math.abs(qi[0] * p[0] + qi[1] * p[1] + qi[2] * p[2] + qi[3] * p[3]);
      turned = Math.max(turned, 2 * Math.acos(Math.min(1, di)));
    }
    // inside (the first and last segments hold the boundary transient), the smoothing moved the sway by
    // 0.012 and turned the joint by 0.04 rad; the written curves follow it to 9 % and 17 % of that, the
    // rest being what one cubic segment per key interval cannot show (the blur of the spline's knots)
    expect(moved).toBeGreaterThan(0.01);
    expect(turned).toBeGreaterThan(0.03);
    expect(posError).toBeLessThan(0.15 * moved);
    expect(rotError).toBeLessThan(0.25 * turned);
  });
});
