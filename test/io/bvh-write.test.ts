import { describe, expect, test } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { parseBvh, writeBvh, writeBvhBytes, writeBvhChunks } from '../../src/io/index.js';
import { unrollEulerTriple } from '../../src/ops/unroll/unroll-euler.js';
import { angle } from '../../src/quat/core.js';
import { toEulerFlat } from '../../src/quat/euler.js';
import { bvhOf } from '../support/bvh-source.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../support/shared-data.js';

const DEG = Math.PI / 180;

function maxRotationError(a: Float64Array | Float32Array, b: Float64Array | Float32Array): number {
  // same formula as quat.angle (4·atan2(|a − b|, |a + b|), hemisphere aligned), inlined for speed
  let worst = 0;
  for (let i = 0; i < a.length; i += 4) {
    const s = a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3] < 0 ? -1 : 1;
    let dm = 0;
    let dp = 0;
    for (let k = 0; k < 4; k++) {
      dm += (a[i + k] - s * b[i + k]) ** 2;
      dp += (a[i + k] + s * b[i + k]) ** 2;
    }
    const e = 4 * Math.atan2(Math.sqrt(dm), Math.sqrt(dp));
    if (e > worst) worst = e;
  }
  expect(angle([0, 0, 0, 1], [Math.sin(0.5e-7), 0, 0, Math.cos(0.5e-7)])).toBeCloseTo(1e-7, 20);
  return worst;
}

function maxAbsError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

describe.skipIf(!HAS_SHARED_BVH)('writeBvh(clip) round trip on the shared real files', () => {
  for (const file of SHARED_BVH_FILES) {
    test(`parseBvh(writeBvh(parseBvh(${file}))) keeps skeleton, rotations and positions`, () => {
      const text = readSharedBvh(file);
      for (const positionMode of ['replace', 'add'] as const) {
        const a = parseBvh(text, { positionMode });
        const written = writeBvh(a);
        const b = parseBvh(written, { positionMode });
        expect(b.skeleton.names).toEqual(a.skeleton.names);
        expect(Array.from(b.skeleton.parents)).toEqual(Array.from(a.skeleton.parents));
        expect(Array.from(b.skeleton.restTranslations)).toEqual(Array.from(a.skeleton.restTranslations));
        expect(bvhOf(b).channels).toEqual(bvhOf(a).channels);
        expect(bvhOf(b).endSites).toEqual(bvhOf(a).endSites);
        expect(b.orders).toEqual(a.orders);
        expect(b.frames).toBe(a.frames);
        expect(bvhOf(b).frameTimeText).toBe(bvhOf(a).frameTimeText);
        // three angles each rounded to 1e-6 degree: at most 1.5e-6 degree as a rotation
        expect(maxRotationError(a.rotations.data, b.rotations.data)).toBeLessThan(1.5e-6 * DEG + 1e-12);
        // positions: rounded to 1e-6 in file units (plus the float64 error of adding the OFFSET)
        expect(maxAbsError(a.translations.data, b.translations.data)).toBeLessThanOrEqual(0.5e-6 + 1e-12);
      }
    });
  }
});

describe('writeBvh(clip, options)', () => {
  const text = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 1 2 3',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '  JOINT Arm: left.1',
    '  {',
    '    OFFSET 0 5 0',
    '    CHANNELS 3 Yrotation Xrotation Zrotation',
    '    End Site tip',
    '    {',
    '      OFFSET 0 1 0',
    '    }',
    '  }',
    '}',
    'MOTION',
    'Frames: 3',
    'Frame Time: .0083333',
    '0 1 2 170 10 20 30 40 50',
    '0 1 2 179 10 20 30 40 50',
    '0 1 2 -170 10 20 30 40 50',
  ].join('\n');

  test('writeBvh(clip) keeps the frame time text, joint names with punctuation and End Site labels', () => {
    const out = writeBvh(parseBvh(text));
    expect(out).toContain('Frame Time: .0083333\n');
    expect(out).toContain('JOINT Arm: left.1\n');
    expect(out).toContain('End Site tip\n');
    expect(out).toContain('CHANNELS 3 Yrotation Xrotation Zrotation\n');
  });

  test('writeBvh(clip) keeps a spin continuous: 179° then -170° is written as 190°', () => {
    const out = writeBvh(parseBvh(text), { precision: 3 });
    const rows = out.trim().split('\n').slice(-3);
    expect(rows[0].split(' ')[3]).toBe('170.000');
    expect(rows[1].split(' ')[3]).toBe('179.000');
    expect(rows[2].split(' ')[3]).toBe('190.000');
  });

  test('writeBvh(clip, { precision: 2 }) prints two decimals', () => {
    const rows = writeBvh(parseBvh(text), { precision: 2 }).trim().split('\n');
    expect(rows.at(-1)).toBe('0.00 1.00 2.00 190.00 10.00 20.00 30.00 40.00 50.00');
  });

  test('writeBvh(clip) writes a changed frame time as a number', () => {
    const clip = parseBvh(text);
    const out = writeBvh({ ...clip, frameTime: 0.01, rate: 100 });
    expect(out).toContain('Frame Time: 0.01\n');
  });

  test('writeBvh(clip, { precision: 16 }) throws OptionError', () => {
    expect(() => writeBvh(parseBvh(text), { precision: 16 })).toThrow(OptionError);
  });

  test('writeBvh(clip) names frame and joint of a non-finite rotation', () => {
    const clip = parseBvh(text);
    clip.rotations.data[(2 * 2 + 1) * 4] = Number.NaN;
    expect(() => writeBvh(clip)).toThrow(/frame 2, joint 1/);
  });
});

describe('writeBvh(clip) with fewer than three rotation channels', () => {
  test('writeBvh(clip) keeps a one-channel joint exact through a turn that would tempt the equivalent triple', () => {
    const text = [
      'HIERARCHY',
      'ROOT a',
      '{',
      '  OFFSET 0 0 0',
      '  CHANNELS 1 Yrotation',
      '}',
      'MOTION',
      'Frames: 4',
      'Frame Time: 0.1',
      '80',
      '100',
      '170',
      '-100',
    ].join('\n');
    const out = writeBvh(parseBvh(text), { precision: 3 });
    expect(out.trim().split('\n').slice(-4)).toEqual(['80.000', '100.000', '170.000', '260.000']);
  });

  test('writeBvh(clip) writes numbers like toFixed, negative zero without sign, huge values via toFixed', () => {
    const text = [
      'HIERARCHY',
      'ROOT a',
      '{',
      '  OFFSET 0 0 0',
      '  CHANNELS 3 Xposition Yposition Zposition',
      '}',
      'MOTION',
      'Frames: 2',
      'Frame Time: 0.1',
      '-0.0000001 123456.5 0.05',
      '1e20 -7 999.9999996',
    ].join('\n');
    const rows = writeBvh(parseBvh(text), { precision: 6 }).trim().split('\n').slice(-2);
    expect(rows[0]).toBe('0.000000 123456.500000 0.050000');
    expect(rows[1]).toBe(`${(1e20).toFixed(6)} -7.000000 1000.000000`);
    const zero = writeBvh(parseBvh(text), { precision: 0 }).trim().split('\n').slice(-2);
    expect(zero).toEqual(['0 123457 0', '100000000000000000000 -7 1000']);
  });
});

describe('writeBvh(clip) number formatting and line endings', () => {
  const positions = (values: number[]): string =>
    [
      'HIERARCHY',
      'ROOT a',
      '{',
      '  OFFSET 0 0 0',
      '  CHANNELS 3 Xposition Yposition Zposition',
      '}',
      'MOTION',
      `Frames: ${values.length / 3}`,
      'Frame Time: 0.1',
      values.map((v) => String(v)).join(' '),
    ].join('\n');

  test('writeBvh(clip, { precision }) prints every value within half a unit of the last decimal, like toFixed', () => {
    let seed = 7;
    const rand = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const values: number[] = [];
    for (let i = 0; i < 3000; i++) values.push((rand() - 0.5) * 10 ** Math.floor(rand() * 14 - 4));
    for (const precision of [0, 3, 6, 9, 12]) {
      const text = writeBvh(parseBvh(positions(values)), { precision });
      const written = text.trim().split('\n').slice(9).join(' ').split(' ');
      expect(written.length).toBe(values.length);
      let sameAsToFixed = 0;
      for (let i = 0; i < values.length; i++) {
        const err = Math.abs(Number(written[i]) - values[i]);
        expect(err).toBeLessThanOrEqual(0.5 * 10 ** -precision * (1 + 1e-9) + Math.abs(values[i]) * 1e-15);
        if (
          written[i] === values[i].toFixed(precision) ||
          (written[i] === (0).toFixed(precision) && values[i] < 0)
        )
          sameAsToFixed++;
      }
      // scaling by 10^precision rounds once more than toFixed's exact decimal expansion: the last digit can
      // differ only for values within that rounding of a tie, which grows with the number of digits
      if (precision <= 6) expect(sameAsToFixed).toBeGreaterThanOrEqual(values.length - 3);
    }
  });

  test("writeBvh(clip, { newline: '\\r\\n' }) ends every line with CRLF and reads back", () => {
    const clip = parseBvh(positions([1, 2, 3, 4, 5, 6]));
    const text = writeBvh(clip, { newline: '\r\n' });
    expect(text.endsWith('4.000000 5.000000 6.000000\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '').includes('\n')).toBe(false);
    expect(parseBvh(text).frames).toBe(2);
  });
});

describe('writeBvhBytes(clip, options)', () => {
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const clipText = (names: [string, string]) =>
    [
      'HIERARCHY',
      `ROOT ${names[0]}`,
      '{',
      '\tOFFSET 0 0 0',
      '\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      `\tJOINT ${names[1]}`,
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
      'Frames: 3',
      'Frame Time: 0.0333333',
      '1 2 3 10 20 30 40 50 60',
      '-1.5 2.25 -3 170 -80 179.5 -40 0.001 -60',
      '1e3 0 0 -170 85 -179.5 12 13 14',
    ].join('\n');

  test('writeBvhBytes(clip) is writeBvh(clip) encoded as UTF-8: 2-, 3- and 4-byte characters and a lone surrogate in names', () => {
    for (const names of [
      ['Hips', 'Spine'],
      ['Hüfte', 'Wirbelsäule_上'],
      ['Root_𝄞', 'Spine_\ud800x'],
    ] as [string, string][]) {
      const clip = parseBvh(clipText(names));
      for (const options of [
        {},
        { precision: 3 },
        { newline: '\r\n' as const },
        { positionMode: 'add' as const },
      ]) {
        const bytes = writeBvhBytes(clip, options);
        // TextEncoder is the oracle (a lone surrogate becomes U+FFFD, so compare bytes, not strings)
        const encoded = Array.from(new TextEncoder().encode(writeBvh(clip, options)));
        expect(Array.from(bytes)).toEqual(encoded);
        // the chunked writer's header too (a short clip is one chunk)
        expect(Array.from(writeBvhChunks(clip, options), (c) => Array.from(c)).flat()).toEqual(encoded);
      }
    }
  });

  test.skipIf(!HAS_SHARED_BVH)(
    'writeBvhBytes(clip) equals the encoded writeBvh(clip) on a shared real file',
    () => {
      if (!HAS_SHARED_BVH) return;
      const clip = parseBvh(readSharedBvh('cmu/01_01.bvh'));
      expect(decode(writeBvhBytes(clip))).toBe(writeBvh(clip));
    },
  );

  test('writeBvhBytes(clip) names itself in its errors', () => {
    const clip = parseBvh(clipText(['Hips', 'Spine']));
    expect(() => writeBvhBytes(clip, { precision: 16 })).toThrow(
      /^writeBvhBytes: option 'precision' must be an integer in \[0, 15\], got 16$/,
    );
    clip.rotations.data[(2 * 2 + 1) * 4] = Number.NaN;
    expect(() => writeBvhBytes(clip)).toThrow(/^writeBvhBytes: non-finite rotation at frame 2, joint 1/);
    expect(() => writeBvh(clip)).toThrow(/^writeBvh: non-finite rotation at frame 2, joint 1/);
  });
});

describe('writeBvh(clip): values that repeat', () => {
  test('writeBvh(clip) prints a repeated value as it prints it alone, across huge values, ±0 and precision', () => {
    // a position-only joint, so each printed value is the translation itself; binary fractions (k / 64)
    // have exact decimal expansions, so toFixed is an exact oracle for them
    const series = [
      0.015625, 0.015625, -0, 0, -0, 2.5e12, 2.5e12, 0.015625, -3.125, -3.125, 2.5e12, -3.125, 1e15, 1e15, 7,
    ];
    const frames = series.length;
    const rows = series.map((v, f) => `${v === 0 ? (Object.is(v, -0) ? '-0' : '0') : v} ${f % 3} 4.5`);
    const text = [
      'HIERARCHY',
      'ROOT Hips',
      '{',
      '  OFFSET 0 0 0',
      '  CHANNELS 3 Xposition Yposition Zposition',
      '}',
      'MOTION',
      `Frames: ${frames}`,
      'Frame Time: 0.01',
      ...rows,
    ].join('\n');
    for (const precision of [6, 2]) {
      const out = writeBvh(parseBvh(text), { precision });
      const written = out.trim().split('\n').slice(-frames);
      written.forEach((row, f) => {
        const expected = [series[f], f % 3, 4.5].map((v) => (v === 0 ? 0 : v).toFixed(precision)).join(' ');
        expect(row, `frame ${f}`).toBe(expected);
      });
      expect(new TextDecoder().decode(writeBvhBytes(parseBvh(text), { precision }))).toBe(out);
    }
  });
});

describe('writeBvh(clip): six decimals and the continuity filter on every frame', () => {
  /** A one-joint file whose three position channels print `values` as they are (3 per frame). */
  const positionFile = (values: number[]): string =>
    [
      'HIERARCHY',
      'ROOT Hips',
      '{',
      '\tOFFSET 0 0 0',
      '\tCHANNELS 3 Xposition Yposition Zposition',
      '}',
      'MOTION',
      `Frames: ${values.length / 3}`,
      'Frame Time: 0.01',
      ...Array.from({ length: values.length / 3 }, (_, f) =>
        values
          .slice(3 * f, 3 * f + 3)
          .map((v) => String(v))
          .join(' '),
      ),
    ].join('\n');

  test('writeBvh(clip) prints six decimals like toFixed for every integer part below 1000, ties, signs and the carry to 1000', () => {
    // k + j/128 for every integer part k: binary fractions with exact decimal expansions, so toFixed is an
    // exact oracle, and j/128 has seven decimals, half of them ties, which both round away from zero
    const values: number[] = [];
    for (let k = 0; k < 1000; k++) {
      const j = (k * 37) % 128;
      values.push(k + j / 128, -(k + ((j + 61) % 128) / 128), k);
    }
    // values that round to zero (no sign), to 1 and to 1000 (the integer part of the rounded value, not the
    // value, decides the digits; 1 − 2^-21 = 0.99999952…), and the largest six-decimal values of each width
    values.push(
      -0.0000004,
      0.0000004,
      -0,
      1 - 2 ** -21,
      -(1 - 2 ** -21),
      1000 - 2 ** -21,
      -999.9999996,
      999.999999,
    );
    values.push(9.999999, -99.999999, 1000, -1000.5, 0.000001, -0.000001, 500.0078125);
    const text = writeBvh(parseBvh(positionFile(values)));
    const written = text.trim().split('\n').slice(9).join(' ').split(' ');
    expect(written.length).toBe(values.length);
    values.forEach((v, i) => {
      let expected = v.toFixed(6);
      if (expected === '-0.000000') expected = '0.000000';
      expect(written[i], `value ${v}`).toBe(expected);
    });
    expect(written.slice(-15)).toEqual([
      '0.000000',
      '0.000000',
      '0.000000',
      '1.000000',
      '-1.000000',
      '1000.000000',
      '-1000.000000',
      '999.999999',
      '9.999999',
      '-99.999999',
      '1000.000000',
      '-1000.500000',
      '0.000001',
      '-0.000001',
      '500.007813',
    ]);
    // the bytes writer prints the same, and a CRLF file ends its rows the same way
    expect(new TextDecoder().decode(writeBvhBytes(parseBvh(positionFile(values))))).toBe(text);
    const crlf = writeBvh(parseBvh(positionFile(values)), { newline: '\r\n' });
    expect(crlf).toBe(text.replace(/\n/g, '\r\n'));
  });

  test('writeBvh(clip) writes each frame as toEulerFlat then unrollEulerTriple against the last frame, for small steps, large steps, spins and gimbal lock', () => {
    // four joints, each a random walk of Euler angles in its own order; steps from 0.001 to 2.5 rad, a
    // spin about the first axis, and passes through ±90° in the middle angle (gimbal lock)
    const orders = ['ZYX', 'ZXY', 'YXZ', 'XZY'] as const;
    const axes = (o: string) => [...o].map((a) => `${a}rotation`).join(' ');
    let header = `HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition ${axes(orders[0])}\n`;
    for (let j = 1; j < orders.length; j++)
      header += `\tJOINT J${j}\n\t{\n\t\tOFFSET 0 1 0\n\t\tCHANNELS 3 ${axes(orders[j])}\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t}\n\t}\n`;
    header += '}\n';
    let seed = 11;
    const rand = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const frames = 1500;
    const angles = new Float64Array(orders.length * 3);
    const rows: string[] = [];
    for (let f = 0; f < frames; f++) {
      const phase = Math.floor(f / 100) % 5;
      const step = [0.001, 0.05, 0.3, 1.2, 2.5][phase];
      for (let i = 0; i < angles.length; i++) {
        angles[i] += (rand() - 0.5) * 2 * step;
        if (i % 3 === 0) angles[i] += 0.02; // a spin: keeps counting past ±180°
      }
      // now and then a frame exactly at gimbal lock
      if (f % 97 === 0) angles[1] = Math.PI / 2;
      if (f % 89 === 0) angles[4] = -Math.PI / 2;
      rows.push(['1', '2', '3', ...Array.from(angles, (a) => ((a * 180) / Math.PI).toFixed(9))].join(' '));
    }
    const text = `${header}MOTION\nFrames: ${frames}\nFrame Time: 0.01\n${rows.join('\n')}\n`;
    const clip = parseBvh(text);
    const written = writeBvh(clip)
      .trim()
      .split('\n')
      .slice(-frames)
      .map((row) => row.split(' ').map(Number));
    const current = new Float64Array(3);
    const previous = new Float64Array(orders.length * 3);
    const toDegrees = 180 / Math.PI;
    let turns = 0;
    for (let f = 0; f < frames; f++) {
      for (let j = 0; j < orders.length; j++) {
        toEulerFlat(current, 0, clip.rotations.data, (f * orders.length + j) * 4, orders[j]);
        if (f > 0) unrollEulerTriple(current, 0, previous, 3 * j, orders[j]);
        previous.set(current, 3 * j);
        for (let a = 0; a < 3; a++) {
          const expected = current[a] * toDegrees;
          const got = written[f][3 + 3 * j + a];
          expect(Math.abs(got - expected), `frame ${f}, joint ${j}, angle ${a}`).toBeLessThanOrEqual(
            0.5e-6 * (1 + 1e-9) + Math.abs(expected) * 1e-15,
          );
          if (Math.abs(expected) > 180) turns++;
        }
      }
    }
    // the spins were followed past ±180° (the filter's whole turns, not the raw triples)
    expect(turns).toBeGreaterThan(1000);
  });
});
