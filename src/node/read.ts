import { closeSync, constants, fstatSync, mkdirSync, openSync, read } from 'node:fs';
import { dirname } from 'node:path';
import { FileError, OptionError } from '../errors.js';
// the BVH modules themselves, not the io index, which would load every format (glTF among them)
import { BvhChunkParser, type BvhParseResult, type ParseBvhOptions } from '../io/bvh/parse.js';
import { type WriteBvhOptions, writeBvhChunks } from '../io/bvh/write.js';
import type { Clip } from '../series/clip.js';
import { writeFileAtomic } from './atomic.js';
import { checkOptionsObject, checkPath, onFile } from './checks.js';
import { INPUT_LIMITS, type OpenedInput, openInput, readInputChunk, takePreloaded } from './input.js';

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
 * A first chunk of a file being read on the thread pool ({@link readAheadBvhFile}) for a later
 * {@link readBvhFile} of the same path to take: its open descriptor, its size when opened, and, once the
 * read's callback has run, its bytes.
 */
interface ReadAhead {
  path: string;
  fd: number;
  size: number;
  buffer: Uint8Array;
  bytes: number;
  state: 'reading' | 'ready' | 'dropped';
}

/** Read-aheads not yet taken, oldest first: the next file's and the one after it. */
const aheads: ReadAhead[] = [];
const MAX_READ_AHEADS = 2;
/** Buffers for read-aheads; one is free when no read into it is running and no read-ahead holds it. */
const aheadBuffers: Uint8Array[] = [];
const busyBuffers = new Set<Uint8Array>();

/** Forgets a read-ahead: closes its descriptor and frees its buffer now, or when its read ends. */
function dropReadAhead(entry: ReadAhead): void {
  const reading = entry.state === 'reading';
  entry.state = 'dropped';
  if (reading) return;
  busyBuffers.delete(entry.buffer);
  closeSync(entry.fd);
}

/**
 * Starts reading the first chunk (up to 4 MiB) of the BVH file at `path` on the thread pool, so that a
 * later {@link readBvhFile} of the same path, once this thread's event loop has turned, parses it without
 * waiting for the read: a batch reads its next file while it processes this one, and the copy out of the
 * page cache (about 4 % of a one-job batch's time) runs on another core. The file is opened here; one
 * that cannot be opened, or is not a regular file (a pipe must not be read twice), is left to
 * `readBvhFile`, which reports it as usual. Two read-aheads are kept at most: a third drops the oldest
 * not taken. Never throws; the promise resolves when the read has ended (a caller need not wait for it).
 *
 * @internal
 */
export function readAheadBvhFile(path: string): Promise<void> {
  if (aheads.length >= MAX_READ_AHEADS) dropReadAhead(aheads.shift()!);
  let fd: number;
  try {
    // non-blocking: opening a FIFO without a writer must not wait (readBvhFile reports what it is)
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch {
    return Promise.resolve();
  }
  let size: number;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error('not a regular file');
    size = stats.size;
  } catch {
    closeSync(fd);
    return Promise.resolve();
  }
  const length = Math.max(1, Math.min(READ_BVH_FILE_DEFAULTS.chunkSize, size + 1));
  let buffer = aheadBuffers.find((b) => !busyBuffers.has(b) && b.length >= length);
  if (buffer === undefined) {
    buffer = new Uint8Array(Math.max(length, 64 << 10));
    // kept for later read-aheads: as many as are ever busy at once (two, or three while a dropped
    // read is still running)
    aheadBuffers.push(buffer);
  }
  busyBuffers.add(buffer);
  const entry: ReadAhead = { path, fd, size, buffer, bytes: 0, state: 'reading' };
  aheads.push(entry);
  return new Promise((resolve) => {
    read(fd, buffer, 0, length, null, (error, n) => {
      if (entry.state === 'dropped' || error) {
        const at = aheads.indexOf(entry);
        if (at >= 0) aheads.splice(at, 1);
        busyBuffers.delete(entry.buffer);
        closeSync(fd);
        resolve();
        return;
      }
      entry.bytes = n;
      entry.state = 'ready';
      resolve();
    });
  });
}

/**
 * The read-ahead of `path` when its chunk is in, taken off the list (the caller closes its descriptor
 * and frees its buffer); else undefined, and one still reading is dropped.
 */
function takeReadAhead(path: string): ReadAhead | undefined {
  const at = aheads.findIndex((e) => e.path === path);
  if (at < 0) return undefined;
  const [entry] = aheads.splice(at, 1);
  if (entry.state === 'ready') return entry;
  // still reading (this thread's loop has not turned since it began): the file is read anew
  dropReadAhead(entry);
  return undefined;
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
 * @throws {FileError} when the file cannot be read (`code` `'ENOENT'`, `'EACCES'`, `'EISDIR'`, ...), is a
 * device or socket (`'ENOTREG'`: a link to `/dev/zero` is refused before a byte is read), or is a pipe that
 * sends more than 512 MiB (`'EFBIG'`) or nothing for a minute (`'ETIMEDOUT'`). The file is opened
 * non-blocking, so a FIFO without a writer reads as empty instead of blocking.
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
  // a pipe read ahead of its task (the command line reads pipes asynchronously), if any
  const piped = takePreloaded(path);
  if (piped !== undefined) {
    const parser = new BvhChunkParser({ ...parseOptions, byteLength: piped.length });
    parser.push(piped);
    return parser.finish();
  }
  // a first chunk read ahead of this file (readAheadBvhFile), if it is in
  const early = takeReadAhead(path);
  // opened non-blocking and checked on the descriptor: a device (a link to /dev/zero) is refused, a FIFO
  // without a writer reads as empty instead of blocking
  const input: OpenedInput = early
    ? { fd: early.fd, size: early.size, pipe: false }
    : openInput('readBvhFile', path);
  const fd = input.fd;
  try {
    const size = input.size;
    const parser = new BvhChunkParser({ ...parseOptions, byteLength: size });
    // the descriptor's position is past the chunk read ahead, so the reads below go on from there
    if (early !== undefined && early.bytes > 0) parser.push(early.buffer.subarray(0, early.bytes));
    // one read past the size it had, to see the end (a file that grows meanwhile is read to its new end);
    // a pipe is read up to INPUT_LIMITS.pipe bytes
    const buffer = readBuffer(Math.max(1, Math.min(chunkSize, input.pipe ? 1 << 20 : size + 1)));
    let total = 0;
    for (;;) {
      const n = readInputChunk('readBvhFile', path, input, buffer);
      if (n === 0) break;
      total += n;
      if (input.pipe && total > INPUT_LIMITS.pipe)
        throw new FileError(
          'EFBIG',
          path,
          `readBvhFile: cannot read ${JSON.stringify(path)}: the pipe sent more than ${INPUT_LIMITS.pipe} bytes`,
        );
      parser.push(buffer.subarray(0, n));
    }
    return parser.finish();
  } finally {
    // the parser keeps no reference to a chunk it has taken: the read-ahead's buffer is free again
    if (early !== undefined) busyBuffers.delete(early.buffer);
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
