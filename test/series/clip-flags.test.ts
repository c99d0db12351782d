import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../src/errors.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_SCALE,
  ANIMATED_TRANSLATION,
  type TrackPath,
} from '../../src/series/clip.js';
import { animatedBit, animatedPaths } from '../../src/series/clip-create.js';

describe('Clip.animated flags of track paths', () => {
  it('each transform path sets its own bit, and the bits are distinct', () => {
    expect(animatedBit('translation')).toBe(ANIMATED_TRANSLATION);
    expect(animatedBit('rotation')).toBe(ANIMATED_ROTATION);
    expect(animatedBit('scale')).toBe(ANIMATED_SCALE);
    expect(ANIMATED_TRANSLATION & ANIMATED_ROTATION).toBe(0);
    expect((ANIMATED_TRANSLATION | ANIMATED_ROTATION) & ANIMATED_SCALE).toBe(0);
  });

  it('morph weights set no joint bit', () => {
    expect(animatedBit('weights')).toBe(0);
  });

  it('animatedPaths reads back the paths whose bits were set, for every subset', () => {
    const paths = ['translation', 'rotation', 'scale'] as const;
    for (let mask = 0; mask < 8; mask++) {
      const chosen = paths.filter((_, i) => mask & (1 << i));
      let flags = 0;
      for (const p of chosen) flags |= animatedBit(p);
      expect(animatedPaths(flags)).toEqual(chosen);
    }
  });

  it('a value that is not a track path is a typed error naming it', () => {
    expect(() => animatedBit('position' as TrackPath)).toThrow(InvalidValueError);
    expect(() => animatedBit('position' as TrackPath)).toThrow(/"position"/);
    expect(() => animatedBit(undefined as unknown as TrackPath)).toThrow(InvalidValueError);
  });
});
