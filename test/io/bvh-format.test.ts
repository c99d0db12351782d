import { describe, expect, test } from 'vitest';
import { parseBvh, writeBvh, writeBvhBytes } from '../../src/io/index.js';
import type { Clip } from '../../src/series/clip.js';
import { rng as generator } from '../support/random.js';

/**
 * The writer's number formatting as it was before the digit-pair formatter (scale and round once, half away
 * from zero; digits by repeated division; `toFixed` past 2^53): the new one must print the same bytes.
 */
function referenceFixed(v: number, places: number): string {
  const scale = 10 ** places;
  const scaled = Math.round(Math.abs(v) * scale);
  if (!(scaled < 9007199254740992)) return v.toFixed(places);
  let int = Math.floor(scaled / scale);
  let frac = scaled - int * scale;
  if (frac < 0) {
    int -= 1;
    frac += scale;
  }
  let out = v < 0 && scaled !== 0 ? '-' : '';
  let digits = '';
  do {
    digits = String(int % 10) + digits;
    int = Math.floor(int / 10);
  } while (int > 0);
  out += digits;
  if (places > 0) {
    let f = '';
    for (let k = 0; k < places; k++) {
      f = String(frac % 10) + f;
      frac = Math.floor(frac / 10);
    }
    out += `.${f}`;
  }
  return out;
}

/** A one-joint clip whose root has three position channels: `writeBvh` prints its translations as they are. */
function positionClip(values: number[]): Clip {
  const frames = Math.ceil(values.length / 3);
  const text = `HIERARCHY\nROOT r\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: ${frames}\nFrame Time: 0.1\n${'0 0 0\n'.repeat(frames)}`;
  const clip = parseBvh(text);
  clip.translations.data.set(values);
  return clip;
}

/** The motion values of a written file, as text. */
function writtenValues(text: string): string[] {
  const motion = text.slice(text.indexOf('Frame Time:'));
  return motion.split('\n').slice(1).join(' ').split(' ').filter(Boolean);
}

function interestingValues(places: number, count: number, seed: number): number[] {
  const rand = generator(seed);
  const scale = 10 ** places;
  const out = [
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    2.5,
    1.5 / scale,
    0.5 / scale,
    -0.5 / scale,
    0.49999999 / scale,
    -0.4 / scale,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    1e-300,
    2147483647 / scale,
    2147483648 / scale,
    2147483647.5 / scale,
    2147483646.5 / scale,
    -2147483648 / scale,
    9007199254740991 / scale,
    9007199254740992 / scale,
    1e15,
    -1e15,
    1e20,
    -1.2345e21,
    179.9999995,
    -179.9999995,
    359.99999949999994,
    93.019646,
    0.1 + 0.2,
  ];
  for (let k = 0; k < count; k++) {
    const kind = k % 6;
    const u = rand();
    if (kind === 0) out.push((u - 0.5) * 720);
    else if (kind === 1) out.push((u - 0.5) * 2e4);
    // ties at the last printed digit, and their neighbours one float apart
    else if (kind === 2) {
      const tie = (Math.floor(u * 4e6) + 0.5) / scale;
      out.push(tie, -tie, tie * (1 + 2 ** -52), tie * (1 - 2 ** -52));
    } else if (kind === 3) out.push((u - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
    else if (kind === 4) out.push((u - 0.5) * 2 ** 32);
    else out.push(Math.round((u - 0.5) * 1e6) / scale);
  }
  return out;
}

describe('writeBvh(clip, { precision }) number formatting', () => {
  for (const places of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15]) {
    test(`writeBvh(clip, { precision: ${places} }) prints the same digits as the scale-and-round reference`, () => {
      const values = interestingValues(places, 6000, 1000 + places);
      const clip = positionClip(values);
      const text = writeBvh(clip, { precision: places });
      const printed = writtenValues(text);
      expect(printed.length).toBe(clip.frames * 3);
      for (let i = 0; i < values.length; i++) {
        if (printed[i] !== referenceFixed(values[i], places)) {
          expect({ value: values[i], printed: printed[i] }).toEqual({
            value: values[i],
            printed: referenceFixed(values[i], places),
          });
        }
      }
      // and the byte form is the same text
      expect(new TextDecoder().decode(writeBvhBytes(clip, { precision: places }))).toBe(text);
    });
  }

  test('writeBvh prints values that are not ties like toFixed, and negative zero without a sign', () => {
    const values = [-0, -0.0000004, 12.25, -7.125, 0.1, 2147.483647, 1234567.890123];
    const printed = writtenValues(writeBvh(positionClip(values), { precision: 6 }));
    expect(printed.slice(0, values.length)).toEqual([
      '0.000000',
      '0.000000',
      '12.250000',
      '-7.125000',
      '0.100000',
      '2147.483647',
      '1234567.890123',
    ]);
  });
});
