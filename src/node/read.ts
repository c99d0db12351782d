import { readFileSync } from 'node:fs';
import { type BvhParseResult, type ParseBvhOptions, parseBvhWithReport } from '../io/index.js';

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
