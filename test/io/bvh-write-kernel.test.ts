// The BVH writer's six-decimal rows go through a WebAssembly kernel (bvhSixRow in numeric/simd.wat) where
// the engine has one, and through the JavaScript loop otherwise: both must write the same bytes.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBvh, writeBvhBytes } from '../../src/io/index.js';
import { setSimdEnabled, simdAvailable } from '../../src/numeric/simd.js';
import type { Clip } from '../../src/series/clip.js';
import { rng } from '../support/random.js';

afterEach(() => {
  setSimdEnabled(true);
});

const SAMPLES = new URL('../../samples/', import.meta.url);
const QUIRKS = new URL('../fixtures/bvh/quirks/', import.meta.url);

/** The bundled captures and the quirk files that read without repair. */
function clips(): [string, Clip][] {
  const out: [string, Clip][] = [];
  for (const dir of [SAMPLES, QUIRKS]) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.bvh'))) {
      try {
        out.push([file, parseBvh(readFileSync(new URL(file, dir), 'utf8'))]);
      } catch {
        // a quirk file that needs repair: not a writer's input
      }
    }
  }
  return out;
}

/** The bytes of `write(clip)` with the kernel and without. */
function bothPaths(clip: Clip, write: (clip: Clip) => Uint8Array): [Uint8Array, Uint8Array] {
  setSimdEnabled(true);
  const kernel = write(clip);
  setSimdEnabled(false);
  const loop = write(clip);
  setSimdEnabled(true);
  return [kernel, loop];
}

describe.skipIf(!simdAvailable())('BVH writer: the WebAssembly row kernel and the JavaScript loop', () => {
  it('write the same bytes for every fixture file, LF and CRLF, six decimals and others', () => {
    const all = clips();
    expect(all.length).toBeGreaterThan(6);
    for (const [file, clip] of all) {
      for (const options of [{}, { newline: '\r\n' as const }, { precision: 4 }]) {
        const [kernel, loop] = bothPaths(clip, (c) => writeBvhBytes(c, options));
        expect(Buffer.from(kernel).equals(Buffer.from(loop)), `${file} ${JSON.stringify(options)}`).toBe(
          true,
        );
      }
    }
  });

  it('write the same bytes at the rounding edges: ties, values that round to 0 or to 1000, 1000 and more', () => {
    const clip = parseBvh(readFileSync(new URL('01_01.bvh', SAMPLES), 'utf8'));
    const random = rng(41);
    const edges = [
      0, -0, 5e-7, -5e-7, 4.9999999e-7, -4.9999999e-7, 1.5e-6, 2.5e-6, 999.9999994, 999.9999995, -999.9999995,
      1000, -1000, 123456.789, 0.1234565, -0.1234565, 99.9999995, 9.9999995,
    ];
    // the root's position channels (written as they are) take the edges and random values in ±1000
    const translations = clip.translations.data;
    const stride = clip.skeleton.names.length * 3;
    for (let f = 0, k = 0; f < clip.frames; f++) {
      for (let a = 0; a < 3; a++, k++) {
        translations[f * stride + a] = random() < 0.5 ? edges[k % edges.length] : (random() - 0.5) * 2000;
      }
    }
    const [kernel, loop] = bothPaths(clip, (c) => writeBvhBytes(c, { positionMode: 'replace' }));
    expect(Buffer.from(kernel).equals(Buffer.from(loop))).toBe(true);
    // the rows the kernel gave back (a value of 1000 or more) are written by the loop: they are there
    expect(Buffer.from(kernel).toString('latin1')).toContain('123456.789000');
  });
});
