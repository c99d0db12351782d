/**
 * The hostile-input repros of the contract audit, one test each: loops bounded by the data, bombs refused
 * at the entry, every value finite, every error typed, unknown option names rejected.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeClip,
  angularVelocity,
  averageEuler,
  averageQuaternions,
  blendChannels,
  createQuatSeries,
  createTapWindow,
  filterRotations,
  forwardKinematics,
  forwardKinematicsFrame,
  fromArrays,
  InvalidValueError,
  interpolate,
  kernels,
  linearVelocity,
  OptionError,
  placeTaps,
  quat,
  resampleRotations,
  resampleVectors,
  ShapeError,
  toArrays,
  unrollEuler,
  unrollQuaternions,
  vec3Series,
} from '../src/index.js';
import { BvhParseError, parseBvh, writeBvh } from '../src/io/index.js';
import type { Clip } from '../src/series/clip.js';
import { quatSeries } from '../src/series/create.js';

const CHAIN = (offset: string, frameTime = '0.0333333') => `HIERARCHY
ROOT a
{
  OFFSET ${offset}
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT b
  {
    OFFSET ${offset}
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 3
Frame Time: ${frameTime}
0 0 0 0 0 0 0 0 0
1 0 0 10 0 0 20 0 0
2 0 0 20 0 0 40 0 0
`;

function spin(frames: number): ReturnType<typeof quatSeries> {
  const d = new Float64Array(frames * 4);
  for (let f = 0; f < frames; f++) quat.fromAxisAngle(d.subarray(f * 4, f * 4 + 4), [0, 0, 1], 0.2 * f);
  return quatSeries(d, frames, 1);
}

function clipOf(text = CHAIN('0 10 0')): Clip {
  return parseBvh(text);
}

describe('loops bounded by the data (times far outside the clip)', () => {
  for (const t of [1e20, 3.1e14]) {
    it(`resampleRotations(s, { sourceRate: 30, times: [${t}] }) returns the last frame (clamp)`, () => {
      const s = spin(12);
      const r = resampleRotations(s, { sourceRate: 30, times: [t], boundary: 'clamp' });
      expect(Array.from(r.data)).toEqual(
        Array.from(s.data.subarray(44, 48)).map((v) => expect.closeTo(v, 12)),
      );
    });
    it(`resampleVectors(v, { sourceRate: 30, times: [${t}] }) returns the last frame (clamp)`, () => {
      const v = vec3Series(
        Float64Array.from({ length: 36 }, (_, i) => i),
        12,
        1,
      );
      const r = resampleVectors(v, { sourceRate: 30, times: [t], boundary: 'clamp' });
      expect(Array.from(r.data)).toEqual([33, 34, 35].map((x) => expect.closeTo(x, 9)));
    });
  }

  it("resampleRotations(s, { times: [1e20], boundary: 'wrap' }) equals the same time folded into one loop", () => {
    const s = spin(12);
    // 1e20 s at 30 Hz is 3e21 frames; 3e21 mod 12 = 0 exactly in float64
    const far = resampleRotations(s, { sourceRate: 30, times: [1e20], boundary: 'wrap' });
    const near = resampleRotations(s, { sourceRate: 30, times: [(3e21 % 12) / 30], boundary: 'wrap' });
    expect(Array.from(far.data)).toEqual(Array.from(near.data));
  });

  it("angularVelocity(s, dt, { times: [1e20], boundary: 'clamp' }) is the last difference; with 'renormalize' it has no taps", () => {
    const s = spin(12);
    // clamped velocity samples: the last frame-to-frame difference, 0.2 rad per frame about z at 30 Hz
    const w = angularVelocity(s, 1 / 30, { times: [1e20], boundary: 'clamp' });
    expect(Array.from(w.data)).toEqual([0, 0, expect.closeTo(6, 12)]);
    expect(() => angularVelocity(s, 1 / 30, { times: [1e20] })).toThrow(InvalidValueError);
    // the analytic derivative of the clamped curve, which rests on the last frame out there
    const a = angularVelocity(s, 1 / 30, { times: [3.1e14], boundary: 'clamp', method: 'analytic' });
    expect(Array.from(a.data).map(Math.abs)).toEqual([0, 0, 0]);
  });

  it("linearVelocity(v, dt, { times: [1e20], boundary: 'clamp' }) is the last difference, 3 per frame at 30 Hz", () => {
    const v = vec3Series(
      Float64Array.from({ length: 36 }, (_, i) => i),
      12,
      1,
    );
    const r = linearVelocity(v, 1 / 30, { times: [1e20], boundary: 'clamp' });
    expect(Array.from(r.data)).toEqual([90, 90, 90].map((x) => expect.closeTo(x, 9)));
  });

  it('blendChannels(out, 0, data, 2^32 + 1, win) is a ShapeError, not a loop over 2^32 channels', () => {
    const win = createTapWindow(kernels.tent, 4, 'clamp');
    placeTaps(win, 1.5);
    expect(() => blendChannels(new Float64Array(3), 0, new Float64Array(12), 2 ** 32 + 1, win)).toThrow(
      ShapeError,
    );
  });
});

describe('bombs refused at the entry', () => {
  it("parseBvh('Frames: 1000000' with 20 CHANNELS 0 roots) throws BvhParseError at the Frames: line", () => {
    const roots = Array.from({ length: 20 }, (_, i) => `ROOT r${i}\n{\nOFFSET 0 0 0\nCHANNELS 0\n}`).join(
      '\n',
    );
    const text = `HIERARCHY\n${roots}\nMOTION\nFrames: 1000000\nFrame Time: 0.01\n`;
    const line = text.split('\n').findIndex((l) => l.startsWith('Frames:')) + 1;
    try {
      parseBvh(text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BvhParseError);
      expect((e as BvhParseError).line).toBe(line);
    }
  });

  it("parseBvh(text, { maxValues }) refuses a clip of more than maxValues = frames x joints x 7 values with code 'bvh-too-large'", () => {
    // 3 frames x 2 joints x 7 = 42 values
    expect(parseBvh(CHAIN('0 10 0'), { maxValues: 42 }).frames).toBe(3);
    expect(() => parseBvh(CHAIN('0 10 0'), { maxValues: 41 })).toThrow(
      expect.objectContaining({ code: 'bvh-too-large' }),
    );
  });

  it('createTapWindow(gaussian(1e7), 12) holds taps for what 12 frames can use, and filtering is finite', () => {
    const win = createTapWindow(kernels.gaussian(1e7), 12, 'clamp');
    expect(win.tapFrames.length).toBeLessThanOrEqual(2 * (4 * 12 + 64) + 2);
    const r = filterRotations(spin(12), kernels.gaussian(1e7));
    for (let f = 0; f < 12; f++) expect(Math.hypot(...r.data.subarray(f * 4, f * 4 + 4))).toBeCloseTo(1, 12);
  });

  it('createQuatSeries(1e9, 1) is a ShapeError, not an engine RangeError', () => {
    expect(() => createQuatSeries(1e9, 1)).toThrow(ShapeError);
  });

  it('resampleRotations(s, { sourceRate: 30, targetRate: 1e9 }) is a typed error', () => {
    expect(() => resampleRotations(spin(12), { sourceRate: 30, targetRate: 1e9 })).toThrow(OptionError);
    expect(() => resampleRotations(createQuatSeries(1000, 100), { sourceRate: 30, targetRate: 1e6 })).toThrow(
      OptionError,
    );
  });
});

describe('every value finite', () => {
  it("parseBvh('Frame Time: 1e-310') throws: its rate 1/frameTime is infinite", () => {
    expect(() => parseBvh(CHAIN('0 10 0', '1e-310'))).toThrow(BvhParseError);
  });

  it('forwardKinematics(OFFSET 1.79e308 chain) throws InvalidValueError on the overflow', () => {
    const text = CHAIN('0 1.79e308 0')
      .replace(
        'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
        'CHANNELS 3 Zrotation Xrotation Yrotation',
      )
      .split('\n')
      .map((line) => (/^\d( -?\d+){8}$/.test(line) ? line.split(' ').slice(3).join(' ') : line))
      .join('\n');
    const clip = clipOf(text);
    expect(clip.skeleton.restTranslations[4]).toBe(1.79e308);
    expect(() => forwardKinematics(clip)).toThrow(InvalidValueError);
  });

  it("parseBvh(OFFSET 1.7e308 + Yposition 1.7e308, { positionMode: 'add' }) throws BvhParseError", () => {
    const text = CHAIN('0 1.7e308 0').replace('0 0 0 0 0 0 0 0 0\n', '0 1.7e308 0 0 0 0 0 0 0\n');
    expect(() => parseBvh(text, { positionMode: 'add' })).toThrow(BvhParseError);
  });

  it('angularVelocity(s, 1e-320) and linearVelocity(v, 1e-320) throw: 1/dt is infinite', () => {
    expect(() => angularVelocity(spin(3), 1e-320)).toThrow(InvalidValueError);
    expect(() => linearVelocity(vec3Series(new Float64Array(9), 3, 1), 1e-320)).toThrow(InvalidValueError);
  });

  it('kernels.gaussian(1e-320) and kernels.gaussian(1e308) are OptionErrors', () => {
    expect(() => kernels.gaussian(1e-320)).toThrow(OptionError);
    expect(() => kernels.gaussian(1e308)).toThrow(OptionError);
    expect(Number.isFinite(kernels.gaussian(1e-100).evaluate(0))).toBe(true);
  });

  it('forwardKinematics and toArrays throw InvalidValueError on a NaN rotation, like filterClip', () => {
    const clip = clipOf();
    clip.rotations.data[5] = Number.NaN;
    expect(() => forwardKinematics(clip)).toThrow(InvalidValueError);
    expect(() => toArrays(clip)).toThrow(InvalidValueError);
  });

  it('interpolate(out, a, b, NaN) throws InvalidValueError', () => {
    expect(() => interpolate(new Float64Array(4), [0, 0, 0, 1], [0, 0, 1, 0], Number.NaN)).toThrow(
      InvalidValueError,
    );
  });

  it("unrollEuler(angles, { order: 'ZYX', initial: [NaN, 0, 0] }) throws InvalidValueError", () => {
    expect(() =>
      unrollEuler(new Float64Array([3, 0, 0]), { order: 'ZYX', initial: [Number.NaN, 0, 0] }),
    ).toThrow(InvalidValueError);
  });

  it('analyzeClip(clip, { maxAngularSpeed: undefined }) uses the default: jumpThreshold = min(π, 25 / rate)', () => {
    const clip = clipOf();
    const a = analyzeClip(clip, { maxAngularSpeed: undefined });
    expect(a.discontinuities.jumpThreshold).toBeCloseTo(Math.min(Math.PI, 25 / clip.rate), 12);
  });
});

describe('parents validated (forwardKinematicsFrame, fromArrays)', () => {
  for (const parents of [
    [-1, 7],
    [1, -1],
    [0, 0],
  ]) {
    it(`forwardKinematicsFrame(clip with parents [${parents}]) throws ShapeError`, () => {
      const clip = clipOf();
      clip.skeleton.parents = Int32Array.from(parents);
      expect(() => forwardKinematicsFrame(clip, 0, new Float64Array(8), new Float64Array(6))).toThrow(
        ShapeError,
      );
    });
  }

  it('fromArrays(template with parent 7, arrays) throws ShapeError', () => {
    const clip = clipOf();
    clip.skeleton.parents = Int32Array.from([-1, 7]);
    expect(() =>
      fromArrays(clip, { rotations: new Float64Array(2 * 4).fill(0.5) }, { positions: 'none' }),
    ).toThrow(ShapeError);
  });
});

describe('writeBvh never writes what parseBvh rejects', () => {
  it('writeBvh(clip with a NaN OFFSET) and writeBvh(End Site label with a newline) throw InvalidValueError', () => {
    const clip = clipOf();
    clip.skeleton.restTranslations[4] = Number.NaN;
    expect(() => writeBvh(clip)).toThrow(InvalidValueError);
    const labelled = clipOf();
    const source = labelled.source as unknown as { endSites: { label?: string }[] };
    source.endSites[0].label = 'tip\nJOINT x';
    expect(() => writeBvh(labelled)).toThrow(InvalidValueError);
  });

  it('parseBvh(writeBvh(clip)) reads back every clip writeBvh accepts (names, labels, offsets, values)', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'Z', ' ', '\t', '#', '{', '}', ':', '\n', 'é', '0', '-', '.'),
    });
    const number = fc.oneof(
      fc.double({ noDefaultInfinity: false }),
      fc.constantFrom(1.79e308, -0, 5e-324, Number.NaN, Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(text, text, fc.option(text), number, number, (name0, name1, label, offset, value) => {
        const clip = clipOf();
        clip.skeleton.names[0] = name0;
        clip.skeleton.names[1] = name1;
        clip.skeleton.restTranslations[1] = offset;
        clip.translations.data[1] = value;
        const source = clip.source as unknown as { endSites: { label?: string }[] };
        source.endSites[0].label = label ?? undefined;
        let written: string;
        try {
          written = writeBvh(clip);
        } catch (e) {
          // refusing is fine, as long as it is typed
          expect(e).toBeInstanceOf(InvalidValueError);
          return;
        }
        const back = parseBvh(written);
        expect(back.skeleton.names).toEqual(clip.skeleton.names);
      }),
      { seed: 11, numRuns: 300 },
    );
  });
});

describe('out buffers and unknown options', () => {
  it('interpolate, averageQuaternions and averageEuler reject a short out (ShapeError) or an Int32Array out', () => {
    const a = [0, 0, 0, 1];
    const b = [0, 0, 1, 0];
    expect(() => interpolate(new Float64Array(1), a, b, 0.5)).toThrow(ShapeError);
    expect(() => interpolate(new Int32Array(4) as unknown as Float64Array, a, b, 0.5)).toThrow(ShapeError);
    expect(() => averageQuaternions([...a, ...b], null, { out: new Float64Array(1) })).toThrow(ShapeError);
    // an option of the wrong type: the option resolver's OptionError
    expect(() => averageQuaternions([...a, ...b], null, { out: new Int32Array(4) as never })).toThrow(
      OptionError,
    );
    expect(() => averageEuler([0, 0, 0], null, { out: new Float64Array(1) })).toThrow(ShapeError);
  });

  it('quat.fromEulerArray(out, angles) gives the same result when out overlaps angles', () => {
    const buffer = new Float64Array(16);
    const angles = buffer.subarray(0, 6);
    angles.set([0.1, 0.2, 0.3, -1, 0.5, 2]);
    const expected = quat.fromEulerArray(new Float64Array(8), angles.slice(), 'ZYX');
    const out = buffer.subarray(2, 10); // starts inside the angles
    quat.fromEulerArray(out, angles, 'ZYX');
    expect(Array.from(out)).toEqual(Array.from(expected));
  });

  it("filterRotations(s, k, { sigme: 2 }) throws OptionError naming 'sigme' and the nearest valid option", () => {
    expect(() => filterRotations(spin(3), kernels.tent, { sigme: 2 } as never)).toThrow(
      /unknown option 'sigme'/,
    );
    expect(() => kernels.gaussian(2, { truncte: 3 } as never)).toThrow(/did you mean 'truncate'/);
    expect(() => unrollQuaternions(spin(3), { frist: 'keep' } as never)).toThrow(/did you mean 'first'/);
    expect(() => resampleRotations(spin(3), null as never)).toThrow(OptionError);
    expect(() => filterRotations(spin(3), kernels.tent, 5 as never)).toThrow(OptionError);
  });

  it("toArrays(clip, { rotation: 'toString' }) throws OptionError", () => {
    expect(() => toArrays(clipOf(), { rotation: 'toString' as never })).toThrow(OptionError);
  });
});
