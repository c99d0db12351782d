import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type BvhParseResult,
  type ParseBvhOptions,
  parseBvhWithReport,
  type WriteBvhOptions,
  writeBvhBytes,
} from '../io/index.js';
import type { Clip } from '../series/clip.js';
import { writeFileAtomic } from './atomic.js';

/**
 * Reads and parses a BVH file from disk. Parse errors are `BvhParseError`s with `line` and `column`; the
 * result carries the warnings (frame-count mismatch, suspicious position channels, ...).
 *
 * @example
 * const { clip, warnings } = readBvhFile('samples/01_01.bvh');
 */
export function readBvhFile(path: string, options: ParseBvhOptions = {}): BvhParseResult {
  return parseBvhWithReport(readFileSync(path, 'utf8'), options);
}

/**
 * Writes a clip as a BVH file, atomically (see {@link writeFileAtomic}), creating missing directories.
 *
 * @example
 * writeBvhFile('out/walk.bvh', unrollClip(readBvhFile('walk.bvh').clip));
 */
export function writeBvhFile(path: string, clip: Clip, options: WriteBvhOptions = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, writeBvhBytes(clip, options));
}
