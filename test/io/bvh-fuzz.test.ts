import { describe, expect, test } from 'vitest';
import { BvhParseError, parseBvh, writeBvh } from '../../src/io/index.js';
import type { Clip } from '../../src/series/clip.js';
import { bvhOf } from '../support/bvh-source.js';
import { rng as generator } from '../support/random.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../support/shared-data.js';
import { QUIRK_FILES, readQuirk } from './quirks.js';

/** A real file cut to its hierarchy and first `rows` data rows, so thousands of cases stay fast. */
function head(text: string, rows: number): string {
  const motion = text.search(/MOTION/i);
  let at = motion;
  for (let k = 0; k < 3 + rows && at >= 0; k++) at = text.indexOf('\n', at + 1);
  return at < 0 ? text : text.slice(0, at + 1);
}

const ALPHABET = ' \t\r\n{}:.-+eE0123456789abcXYZ#\u0000\u00a0\uFEFF\u00e9\ud83d\ude00';
const WORDS = [
  'ROOT',
  'JOINT',
  'End',
  'Site',
  'OFFSET',
  'CHANNELS',
  'MOTION',
  'Frames:',
  'Frame Time:',
  '{',
  '}',
  'nan',
  '-inf',
  '1e999',
  '7',
  '0',
  '-0',
  'Xrotation',
  'Yposition',
];

function mutate(text: string, rand: () => number): string {
  const pick = (n: number): number => Math.floor(rand() * n);
  const kind = pick(10);
  if (kind === 0 || kind === 1) {
    // delete or duplicate a token
    const tokens = text.split(/(\s+)/);
    const i = pick(tokens.length);
    if (kind === 0) tokens.splice(i, 1);
    else tokens.splice(i, 0, tokens[i]);
    return tokens.join('');
  }
  if (kind === 2 || kind === 3 || kind === 4) {
    const lines = text.split('\n');
    const i = pick(lines.length);
    if (kind === 2) lines.splice(i, 1);
    else if (kind === 3) lines.splice(i, 0, lines[i]);
    else {
      const j = pick(lines.length);
      [lines[i], lines[j]] = [lines[j], lines[i]];
    }
    return lines.join('\n');
  }
  if (kind === 5) {
    // random characters
    const at = pick(text.length + 1);
    let junk = '';
    for (let k = 1 + pick(6); k > 0; k--) junk += ALPHABET[pick(ALPHABET.length)];
    return text.slice(0, at) + junk + text.slice(at);
  }
  if (kind === 6) {
    const at = pick(text.length);
    return text.slice(0, at) + ALPHABET[pick(ALPHABET.length)] + text.slice(at + 1);
  }
  if (kind === 7) return text.slice(0, pick(text.length + 1));
  if (kind === 8) {
    const tokens = text.split(/(\s+)/);
    tokens[pick(tokens.length)] = WORDS[pick(WORDS.length)];
    return tokens.join('');
  }
  // random bytes decoded as latin-1 over a span
  const at = pick(text.length);
  let junk = '';
  for (let k = 1 + pick(12); k > 0; k--) junk += String.fromCharCode(pick(256));
  return text.slice(0, at) + junk + text.slice(at + junk.length);
}

function checkClip(clip: Clip): void {
  const J = clip.skeleton.names.length;
  expect(clip.rotations.data.length).toBe(clip.frames * J * 4);
  expect(clip.translations.data.length).toBe(clip.frames * J * 3);
  for (let i = 0; i < clip.rotations.data.length; i += 4) {
    const d = clip.rotations.data;
    const n = Math.hypot(d[i], d[i + 1], d[i + 2], d[i + 3]);
    if (!(Math.abs(n - 1) < 1e-9)) throw new Error(`quaternion ${i / 4} has norm ${n}`);
  }
  for (const v of clip.translations.data) if (!Number.isFinite(v)) throw new Error('non-finite translation');
  for (let j = 0; j < J; j++) expect(clip.skeleton.parents[j]).toBeLessThan(j);
}

function corpus(): string[] {
  const texts = QUIRK_FILES.map(readQuirk);
  if (HAS_SHARED_BVH) for (const file of SHARED_BVH_FILES) texts.push(head(readSharedBvh(file), 6));
  return texts;
}

describe('parseBvh(text) under mutation', () => {
  test('parseBvh(mutated text) returns a valid Clip or throws BvhParseError, quickly, for 3000 seeded mutations', () => {
    const texts = corpus();
    let clips = 0;
    let errors = 0;
    let slowest = 0;
    const start = performance.now();
    for (let seed = 1; seed <= 3000; seed++) {
      const rand = generator(seed);
      let text = texts[seed % texts.length];
      for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) text = mutate(text, rand);
      const options = {
        strict: rand() < 0.2,
        repair: rand() < 0.3,
        positionMode: rand() < 0.5 ? ('replace' as const) : ('add' as const),
      };
      const t0 = performance.now();
      let clip: Clip | undefined;
      try {
        clip = parseBvh(text, options);
      } catch (e) {
        if (!(e instanceof BvhParseError)) {
          throw new Error(`seed ${seed}: ${String(e)} (${(e as Error)?.name}) instead of BvhParseError`);
        }
        expect(e.line).toBeGreaterThanOrEqual(1);
        expect(e.column).toBeGreaterThanOrEqual(1);
        errors++;
      }
      const ms = performance.now() - t0;
      slowest = Math.max(slowest, ms);
      if (ms > 250) throw new Error(`seed ${seed}: parse took ${ms.toFixed(1)} ms`);
      if (clip !== undefined) {
        clips++;
        checkClip(clip);
        // whatever we read, we can write and read again
        const again = parseBvh(writeBvh(clip), { positionMode: bvhOf(clip).positionMode });
        expect(again.frames).toBe(clip.frames);
        expect(again.skeleton.names).toEqual(clip.skeleton.names);
      }
    }
    expect(clips).toBeGreaterThan(100);
    expect(errors).toBeGreaterThan(1000);
    expect(performance.now() - start).toBeLessThan(20_000);
  });
});
