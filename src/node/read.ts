import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { OptionError } from '../errors.js';
// the BVH modules themselves, not the io index, which would load every format (glTF among them)
import { BvhChunkParser, type BvhParseResult, type ParseBvhOptions } from '../io/bvh/parse.js';
import { type WriteBvhOptions, writeBvhChunks } from '../io/bvh/write.js';
import type { Clip } from '../series/clip.js';
import { writeFileAtomic } from './atomic.js';
import { checkOptionsObject, checkPath, onFile } from './checks.js';

/** Options of {@link readBvhFile}: those of `parseBvh`, and the size of each read. */
export interface ReadBvhFileOptions extends ParseBvhOptions {
  /**
   * Bytes read from the file at a time (default 4 MiB: most captures in one read). Memory holds one such
   * buffer besides the clip, whatever the file's size.
   */
  chunkSize?: number;
}

/** Defaults of {@link ReadBvhFileOptions} beyond those of `parseBvh`. */
export const READ_BVH_FILE_DEFAULTS: Required<Pick<ReadBvhFileOptions, 'chunkSize'>> = {
  chunkSize: 4 << 20,
};

/**
 * The buffer reads go into, kept from one file to the next (the parser keeps no reference to a chunk
 * once it has taken it), so a batch does not allocate, zero and release megabytes per file. At most the
 * default chunk size is kept; a larger `chunkSize` gets a buffer of its own.
 */
let kept: Uint8Array | undefined;

function readBuffer(length: number): Uint8Array {
  if (length > READ_BVH_FILE_DEFAULTS.chunkSize) return new Uint8Array(length);
  if (kept === undefined || kept.length < length) kept = new Uint8Array(Math.max(length, 64 << 10));
  return kept.subarray(0, length);
}

/**
 * Reads and parses a BVH file from disk, in chunks of `chunkSize` bytes through `BvhChunkParser`: the
 * file is never one string, so files larger than the engine's longest string (about 512 MB in Node) read
 * too, and memory is the clip's arrays (sized once from `Frames:` and the file's size) plus one chunk.
 * Parse errors are `BvhParseError`s with `line` and `column`; the result carries the warnings
 * (frame-count mismatch, suspicious position channels, ...). Bytes are UTF-8 (invalid sequences read as
 * U+FFFD), as with `readFileSync(path, 'utf8')`.
 *
 * @throws {BvhParseError} on malformed data.
 * @throws {OptionError} on a `chunkSize` that is not a positive whole number, or options that are no object.
 * @throws {InvalidValueError} when `path` is not a non-empty string.
 * @throws {FileError} when the file cannot be read (`code` `'ENOENT'`, `'EACCES'`, `'EISDIR'`, ...).
 * @example
 * const { clip, warnings } = readBvhFile('samples/01_01.bvh');
 */
export function readBvhFile(path: string, options: ReadBvhFileOptions = {}): BvhParseResult {
  checkPath('readBvhFile', 'path', path);
  checkOptionsObject('readBvhFile', options);
  const { chunkSize = READ_BVH_FILE_DEFAULTS.chunkSize, ...parseOptions } = options ?? {};
  if (!(Number.isSafeInteger(chunkSize) && chunkSize > 0)) {
    throw new OptionError(
      `readBvhFile: chunkSize must be a positive whole number of bytes, got ${chunkSize}`,
    );
  }
  const fd = onFile('readBvhFile', 'read', path, () => openSync(path, 'r'));
  try {
    const size = onFile('readBvhFile', 'read', path, () => fstatSync(fd).size);
    const parser = new BvhChunkParser({ ...parseOptions, byteLength: size });
    // one read past the size it had, to see the end (a file that grows meanwhile is read to its new end)
    const buffer = readBuffer(Math.max(1, Math.min(chunkSize, size + 1)));
    for (;;) {
      const n = onFile('readBvhFile', 'read', path, () => readSync(fd, buffer, 0, buffer.length, null));
      if (n === 0) break;
      parser.push(buffer.subarray(0, n));
    }
    return parser.finish();
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a clip as a BVH file, atomically (see {@link writeFileAtomic}), creating missing directories. The
 * text goes to the file a chunk at a time (`writeBvhChunks`): memory for one chunk, whatever the clip's
 * length.
 *
 * @example
 * writeBvhFile('out/walk.bvh', unrollClip(readBvhFile('walk.bvh').clip));
 */
export function writeBvhFile(path: string, clip: Clip, options: WriteBvhOptions = {}): void {
  checkPath('writeBvhFile', 'path', path);
  // the arguments are checked here, before any directory is made; a non-finite value found while the
  // rows are written removes the temporary file and throws, leaving `path` as it was
  const chunks = writeBvhChunks(clip, options);
  onFile('writeBvhFile', 'create the directory for', path, () =>
    mkdirSync(dirname(path), { recursive: true }),
  );
  writeFileAtomic(path, chunks);
}
