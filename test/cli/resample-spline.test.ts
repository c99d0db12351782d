// `rotsig resample --spline` on a hand-keyed glTF (blender-io 07_nla-anim: CUBICSPLINE tracks of 3 keys),
// read back with the test's own glTF evaluator (test/support/gltf-reference.ts), not rotsig's.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_GLTF_DIR } from '../support/gltf-data.js';
import { animationsOf, loadGltf, rotationAngle, sampleChannel } from '../support/gltf-reference.js';
import { ensureBuilt, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 600_000);

const INPUT = join(FIXTURE_GLTF_DIR, 'blender-io', '07_nla-anim.gltf');

describe('rotsig resample --spline', () => {
  it('writes a 60 Hz grid through the keys: every input key on the grid is a key, the end kept', () => {
    const out = join(tempDir(), 'smooth60.glb');
    const r = rotsig(['resample', INPUT, '-o', out, '--rate', '60', '--spline', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const a = animationsOf(loadGltf(INPUT));
    const b = animationsOf(loadGltf(out));
    expect(b.length).toBe(a.length);
    let checked = 0;
    a.forEach((anim, i) => {
      for (const ch of anim.channels) {
        if (ch.path === 'weights') continue;
        const o = b[i].channels.find((c) => c.node === ch.node && c.path === ch.path)!;
        expect(o.interpolation).toBe('LINEAR');
        const first = ch.times[0];
        const last = ch.times[ch.times.length - 1];
        // the grid k / 60 from the first key, and the last key at the input's end
        const n = o.times.length;
        for (let k = 0; k < n - 1; k++) expect(Math.abs(o.times[k] - (first + k / 60))).toBeLessThan(2e-6);
        expect(o.times[n - 1]).toBe(last);
        // every input key's value is played by the output at the key's time
        const per = ch.interpolation === 'CUBICSPLINE' ? 3 : 1;
        for (let k = 0; k < ch.times.length; k++) {
          const at = (k * per + (per === 3 ? 1 : 0)) * ch.width;
          const key = Array.from(ch.values.subarray(at, at + ch.width));
          const played = sampleChannel(o, ch.times[k]);
          const gap =
            ch.path === 'rotation'
              ? rotationAngle(key, played)
              : Math.max(...key.map((x, c) => Math.abs(x - played[c])));
          // a key on the grid (or the end) is a written key; one between grid keys is played on the chord
          // of the spline samples around it, within h²/8 of the curve's bend (1e-3 here)
          const frame = (ch.times[k] - first) * 60;
          const onGrid = Math.abs(frame - Math.round(frame)) < 1e-4 || ch.times[k] === last;
          expect(gap).toBeLessThan(onGrid ? 1e-6 : 1e-3);
          checked++;
        }
      }
    });
    expect(checked).toBeGreaterThan(0);
  });

  it('refuses --spline with a kernel and below the keys’ own rate, with a usage exit', () => {
    const dir = tempDir();
    const withKernel = rotsig([
      'resample',
      INPUT,
      '-o',
      join(dir, 'a.glb'),
      '--rate',
      '60',
      '--spline',
      '--kernel',
      'linear',
    ]);
    expect(withKernel.code).toBe(2);
    expect(withKernel.stderr).toMatch(/--spline/);
    const below = rotsig(['resample', INPUT, '-o', join(dir, 'b.glb'), '--rate', '0.1', '--spline']);
    expect(below.code).not.toBe(0);
    expect(below.stderr).toMatch(/spline .*only up-samples/);
  });
});
