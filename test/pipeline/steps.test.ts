import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, RotsigError } from '../../src/errors.js';
import { parseBvh } from '../../src/io/index.js';
import { type Emit, emitClip, runSteps } from '../../src/pipeline/steps.js';

/** A root and one joint spinning about Y, its stored quaternion negated on every other frame (q ≡ −q). */
function clipWithFlips() {
  const rows: string[] = [];
  for (let f = 0; f < 12; f++) rows.push(`0 0 0 0 0 0 0 ${150 + f * 5} 0`);
  const text = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '\tOFFSET 0 0 0',
    '\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '\tJOINT Spine',
    '\t{',
    '\t\tOFFSET 0 1 0',
    '\t\tCHANNELS 3 Zrotation Xrotation Yrotation',
    '\t\tEnd Site',
    '\t\t{',
    '\t\t\tOFFSET 0 1 0',
    '\t\t}',
    '\t}',
    '}',
    'MOTION',
    'Frames: 12',
    'Frame Time: 0.0333333',
    ...rows,
  ].join('\n');
  const clip = parseBvh(text);
  const q = clip.rotations.data;
  for (let f = 1; f < 12; f += 2) for (let k = 0; k < 4; k++) q[(f * 2 + 1) * 4 + k] *= -1;
  return clip;
}

function hasSignFlip(data: Float64Array | Float32Array, joints: number): boolean {
  for (let i = joints * 4; i < data.length; i += 4) {
    const p = i - joints * 4;
    if (
      data[i] * data[p] + data[i + 1] * data[p + 1] + data[i + 2] * data[p + 2] + data[i + 3] * data[p + 3] <
      0
    )
      return true;
  }
  return false;
}

describe('runSteps(clip, steps, options)', () => {
  it("runSteps(clip, [unroll]) keeps the input clip as it was (input: 'keep', the default)", () => {
    const clip = clipWithFlips();
    expect(hasSignFlip(clip.rotations.data, 2)).toBe(true);
    const before = Float64Array.from(clip.rotations.data);
    const out = runSteps(clip, [{ op: 'unroll' }]);
    expect(hasSignFlip(out.rotations.data, 2)).toBe(false);
    expect(out.rotations.data).not.toBe(clip.rotations.data);
    expect(Array.from(clip.rotations.data)).toEqual(Array.from(before));
  });

  it("runSteps(clip, [unroll], { input: 'reuse' }) unrolls the input's own array, with the same result", () => {
    const kept = runSteps(clipWithFlips(), [{ op: 'unroll' }]);
    const clip = clipWithFlips();
    const out = runSteps(clip, [{ op: 'unroll' }], { input: 'reuse' });
    expect(out.rotations.data).toBe(clip.rotations.data);
    expect(Array.from(out.rotations.data)).toEqual(Array.from(kept.rotations.data));
  });

  it('runSteps(clip, [smooth, unroll]) leaves the input alone but unrolls the intermediate clip in place', () => {
    const clip = clipWithFlips();
    const before = Float64Array.from(clip.rotations.data);
    const out = runSteps(clip, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 1 } }, { op: 'unroll' }]);
    expect(hasSignFlip(out.rotations.data, 2)).toBe(false);
    expect(Array.from(clip.rotations.data)).toEqual(Array.from(before));
  });

  it('runSteps(clip, [unroll, smooth]) leaves both arrays of the input alone (the unrolled copy shares its translations)', () => {
    const clip = clipWithFlips();
    for (let f = 0; f < 12; f++) clip.translations.data[f * 6 + 1] = Math.sin(f); // a moving root
    const rotations = Float64Array.from(clip.rotations.data);
    const translations = Float64Array.from(clip.translations.data);
    const out = runSteps(clip, [{ op: 'unroll' }, { op: 'smooth', kernel: { name: 'gaussian', sigma: 1 } }]);
    expect(Array.from(clip.rotations.data)).toEqual(Array.from(rotations));
    expect(Array.from(clip.translations.data)).toEqual(Array.from(translations));
    expect(out.translations.data[7]).not.toBe(translations[7]);
  });

  it('runSteps(clip, steps, { input }) rejects an unknown input policy', () => {
    expect(() => runSteps(clipWithFlips(), [], { input: 'move' as 'keep' })).toThrow(OptionError);
  });
});

describe('emitClip(clip, emit) never emits a non-finite number', () => {
  /** The clip as a file with `Frame Time: 1e-310` reads: a rate of Infinity frames per second. */
  function infiniteRate() {
    const clip = clipWithFlips();
    return { ...clip, frameTime: 1e-310, rate: 1 / 1e-310 };
  }

  /** Root and child translations that are finite but whose sum, the child's position, overflows. */
  function overflowingOffsets() {
    const clip = clipWithFlips();
    for (let f = 0; f < clip.frames; f++) {
      clip.translations.data[f * 6 + 1] = 1.79e308; // Hips y
      clip.translations.data[f * 6 + 4] = 1.79e308; // Spine y, relative to Hips (both unrotated at frame 0)
    }
    return clip;
  }

  it.each([
    ['velocity csv', { kind: 'velocity', format: 'csv' }],
    ['velocity npy', { kind: 'velocity', format: 'npy' }],
    ['features json', { kind: 'features', as: 'quat', format: 'json' }],
    ['bvh', { kind: 'bvh' }],
  ] as [string, Emit][])('an infinite frame rate: %s is an InvalidValueError', (_name, emit) => {
    expect(() => emitClip(infiniteRate(), emit)).toThrow(InvalidValueError);
  });

  it('an infinite frame rate: info is a typed error, never a report with Infinity', () => {
    expect(() => emitClip(infiniteRate(), { kind: 'info' })).toThrow(RotsigError);
  });

  it('a finite rate of 1e308 Hz: info emits only finite numbers or names the first infinite value', () => {
    const clip = { ...clipWithFlips(), frameTime: 1e-308, rate: 1e308 };
    let content: unknown;
    try {
      content = emitClip(clip, { kind: 'info' }).content;
    } catch (e) {
      // the library refuses what overflows (peak speeds), or the emitter names the value
      expect(String(e)).toMatch(/not finite|overflows/);
      return;
    }
    expect(String(content)).not.toMatch(/Infinity|NaN/);
  });

  it('positions that overflow to Infinity are an InvalidValueError naming the frame and the joint', () => {
    const emit: Emit = { kind: 'features', as: 'positions', format: 'npy' };
    // forward kinematics refuses the overflow, naming frame and joint
    expect(() => emitClip(overflowingOffsets(), emit)).toThrow(/Infinity at frame 0, (Spine\.y|joint 1)/);
  });

  it('a NaN rotation is refused by the BVH output', () => {
    const clip = clipWithFlips();
    clip.rotations.data[(1 * 2 + 1) * 4 + 1] = Number.NaN; // frame 1, joint 1, y
    expect(() => emitClip(clip, { kind: 'bvh' })).toThrow(/rotation of Spine at frame 1 is NaN/);
  });

  it('the same clips with finite numbers emit as before', () => {
    const clip = clipWithFlips();
    expect(emitClip(clip, { kind: 'velocity', format: 'csv' }).content).toBeDefined();
    expect(emitClip(clip, { kind: 'features', as: 'positions', format: 'json' }).content).toBeDefined();
    expect(emitClip(clip, { kind: 'bvh' }).content).toBeDefined();
  });
});
