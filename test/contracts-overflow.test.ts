/**
 * Hostile but well-typed input found by the export fuzz at larger budgets (`npm run fuzz`): values near the
 * float64 limits, inconsistent clip fields, null options. Each must be a typed error, not a TypeError, NaN
 * or Infinity in the output.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  dampClip,
  forwardKinematicsFrame,
  InvalidValueError,
  kernels,
  keysFromClip,
  motionFeatures,
  OptionError,
  randomQuatSeries,
  reduceKeys,
  resampleRotations,
  ShapeError,
} from '../src/index.js';
import { parseBvh } from '../src/io/index.js';
import type { Clip } from '../src/series/clip.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sample = (): Clip =>
  parseBvh(readFileSync(join(root, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'), 'utf8'));

describe('typed errors on hostile but well-typed input', () => {
  it('a clip whose rate disagrees with its frame time is malformed', () => {
    const c = sample();
    expect(() => keysFromClip({ ...c, rate: 1e-320 })).toThrow(InvalidValueError);
    expect(() => dampClip({ ...c, rate: Number.NaN })).toThrow(InvalidValueError);
  });

  it('key times that overflow (frame time near 1e308) are refused, not written as Infinity', () => {
    const c = sample();
    const huge = { ...c, frameTime: 1e308, rate: 1e-308 };
    expect(() => keysFromClip(huge)).toThrow(InvalidValueError);
    expect(() => reduceKeys(huge, { preset: 'acl', unitsPerMeter: 100 })).toThrow(InvalidValueError);
  });

  it('translations near 1e308 that overflow a filter or a difference are refused', () => {
    const c = sample();
    const t = Float64Array.from(c.translations.data);
    t[t.length - 3] = -1e308;
    t[t.length - 6] = 1e308;
    const big = { ...c, translations: { ...c.translations, data: t } };
    expect(() => motionFeatures(big)).toThrow(InvalidValueError);
    const d = (() => {
      try {
        return dampClip(big, { halfLife: 0.01 });
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        return null;
      }
    })();
    if (d !== null) expect(Array.from(d.translations.data).every(Number.isFinite)).toBe(true);
  });

  it('null options, non-array buffers and oversized series are typed errors', () => {
    expect(() => randomQuatSeries(2, 2, null as never)).toThrow(OptionError);
    expect(() => randomQuatSeries(1e20, 12)).toThrow(ShapeError);
    const c = sample();
    expect(() => forwardKinematicsFrame(c, 0, 'rotations' as never, new Float64Array(1000))).toThrow(
      ShapeError,
    );
    const s = { data: new Float64Array(12), frames: 1, joints: 3 };
    expect(() =>
      resampleRotations(s, { sourceRate: 30, targetRate: 10, sourceTimes: null as never }),
    ).toThrow(OptionError);
    expect(() => kernels.unsharp(kernels.gaussian(1), 1.79e308)).toThrow(OptionError);
  });
});
