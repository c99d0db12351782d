import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/numeric/random.js';
import { smoothingFromSpectrum } from '../../../src/ops/clean/smoothing-from-spectrum.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';

describe('smoothingFromSpectrum', () => {
  it('reads the noise floor of white rotation noise at its mean power per bin, not at the lower median', () => {
    // one joint: exp(v / 2) about the identity, v a rotation vector of independent normal components of
    // standard deviation s; the quaternion's x, y, z are v / 2 to first order (variance s² / 4 each), w is
    // 1 to second order
    const frames = 16384;
    const s = 0.01;
    const rand = seededRandom(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const data = new Float64Array(frames * 4);
    for (let f = 0; f < frames; f++) {
      const v = [normal() * s, normal() * s, normal() * s];
      const a = Math.hypot(...v);
      const k = Math.sin(a / 2) / a;
      data.set([v[0] * k, v[1] * k, v[2] * k, Math.cos(a / 2)], f * 4);
    }
    const clip = makeClip({
      skeleton: makeSkeleton({ names: ['a'], parents: [-1], restTranslations: [0, 0, 0] }),
      frameTime: 1 / 100,
      rotations: { data, frames, joints: 1 },
    });
    // a white channel of variance σ² under a periodic Hann window w of N samples, scaled as `spectrum`
    // does (power = (2|X_k| / Σw)² / 2), has the mean power 2σ²·Σw² / (Σw)² = 2σ²·(3N/8) / (N/2)² = 3σ² / N
    // per bin; three channels of variance s² / 4
    const expected = 3 * ((3 * (s * s)) / 4 / frames);
    const { noiseFloor } = smoothingFromSpectrum(clip, { perJoint: false });
    expect(Math.abs(noiseFloor / expected - 1)).toBeLessThan(0.05);
  });
});
