/**
 * Opening input files that may be hostile: a FIFO, a device, or a link to one never blocks the process or
 * reads for ever. Every input is opened non-blocking and checked with `fstat` on the open descriptor (not on
 * the name, which could be swapped meanwhile): regular files are read, and whole-file reads are capped;
 * pipes (a FIFO, `<(gunzip -c take.bvh.gz)`) are read up to a cap, never waiting on a pipe without a
 * writer; anything else (a character or block device such as `/dev/zero`, a directory, a socket) is a
 * {@link FileError} before a byte is read.
 *
 * @internal
 * @module
 */
import { close, closeSync, constants, fstatSync, openSync, read, readSync, type Stats } from 'node:fs';
import { FileError } from '../errors.js';
import { fileError, onFile } from './checks.js';

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/**
 * Limits of input reads, in bytes. `wholeFile`: a file read into memory at once (glTF JSON, GLB, `.npz`,
 * templates), 1 GiB; a larger regular file is refused before it is read. `pipe`: the most read from a pipe,
 * 512 MiB (far beyond any capture, and a writer that never stops is cut off there). `pipeIdleSeconds`: how
 * long a synchronous read waits for a pipe whose writer is open but sends nothing (60 s); the command line
 * reads pipes asynchronously instead, so Ctrl-C and SIGTERM end it at any time.
 */
export const INPUT_LIMITS = {
  wholeFile: 1 << 30,
  pipe: 512 << 20,
  pipeIdleSeconds: 60,
} as const;

/** An input opened by {@link openInput}: its descriptor, its size by `fstat`, and whether it is a pipe. */
export interface OpenedInput {
  fd: number;
  size: number;
  pipe: boolean;
}

/** What a non-regular file is, for messages. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Opens `path` for reading without blocking (`O_NONBLOCK`, so opening a FIFO without a writer returns at
 * once; `O_NOCTTY`) and checks the open descriptor: a regular file or a pipe is returned open; anything
 * else is closed and refused.
 *
 * @throws {FileError} `'EISDIR'` for a directory, `'ENOTREG'` for a device or socket, or the system's code
 * when the file cannot be opened.
 */
export function openInput(where: string, path: string): OpenedInput {
  const fd = onFile(where, 'read', path, () => openSync(path, constants.O_RDONLY | O_NONBLOCK | O_NOCTTY));
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw fileError(error, where, 'read', path);
  }
  if (stats.isFile() || stats.isFIFO()) return { fd, size: stats.size, pipe: stats.isFIFO() };
  closeSync(fd);
  throw new FileError(
    stats.isDirectory() ? 'EISDIR' : 'ENOTREG',
    path,
    `${where}: cannot read ${JSON.stringify(path)}: it is ${kindOf(stats)}, not a regular file or a pipe`,
  );
}

/** Pipes read ahead of their task (by {@link preloadPipeInput}), by path: their bytes or why they failed. */
const preloaded = new Map<string, { bytes: Uint8Array } | { error: unknown }>();

/** The bytes of a pipe read ahead for `path`, taken off the list; undefined when there are none. */
export function takePreloaded(path: string): Uint8Array | undefined {
  const entry = preloaded.get(path);
  if (entry === undefined) return undefined;
  preloaded.delete(path);
  if ('error' in entry) throw entry.error;
  return entry.bytes;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * One read from an input opened by {@link openInput} into `buffer`: the number of bytes, 0 at the end. A
 * pipe opened non-blocking answers `EAGAIN` while its writer is open and silent; the read then waits in
 * short sleeps, up to {@link INPUT_LIMITS}`.pipeIdleSeconds` without data.
 *
 * @throws {FileError} on a read error, or `'ETIMEDOUT'` when a pipe stays silent that long.
 */
export function readInputChunk(where: string, path: string, input: OpenedInput, buffer: Uint8Array): number {
  let waited = 0;
  for (;;) {
    try {
      return readSync(input.fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if (!input.pipe || (error as NodeJS.ErrnoException).code !== 'EAGAIN')
        throw fileError(error, where, 'read', path);
    }
    if (waited >= INPUT_LIMITS.pipeIdleSeconds * 1000)
      throw new FileError(
        'ETIMEDOUT',
        path,
        `${where}: cannot read ${JSON.stringify(path)}: the pipe sent nothing for ${INPUT_LIMITS.pipeIdleSeconds} s`,
      );
    const step = Math.min(50, 1 + waited);
    Atomics.wait(sleeper, 0, 0, step);
    waited += step;
  }
}

function tooLarge(where: string, path: string, limit: number, what: string): FileError {
  return new FileError(
    'EFBIG',
    path,
    `${where}: cannot read ${JSON.stringify(path)}: ${what} more than ${limit} bytes, the limit of a whole-file read`,
  );
}

/**
 * The whole content of an input file, read from a regular file or a pipe opened by {@link openInput}
 * (or taken from a pipe read ahead), at most `maxBytes` bytes (default {@link INPUT_LIMITS}`.wholeFile`,
 * {@link INPUT_LIMITS}`.pipe` for a pipe). A regular file is read to the size `fstat` gave, so a file
 * that grows while it is read is taken as it was when opened.
 *
 * @throws {FileError} as {@link openInput}, `'EFBIG'` over the limit, or the system's code on a read error.
 */
export function readInputFile(where: string, path: string, maxBytes?: number): Uint8Array {
  const early = takePreloaded(path);
  if (early !== undefined) return early;
  const input = openInput(where, path);
  try {
    return readOpenedInput(where, path, input, maxBytes);
  } finally {
    closeSync(input.fd);
  }
}

/** {@link readInputFile} on an input already open (its descriptor is left open). */
export function readOpenedInput(
  where: string,
  path: string,
  input: OpenedInput,
  maxBytes?: number,
): Uint8Array {
  if (!input.pipe) {
    const limit = maxBytes ?? INPUT_LIMITS.wholeFile;
    const size = input.size;
    if (size > limit) throw tooLarge(where, path, limit, `the file holds ${size} bytes,`);
    const bytes = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const n = readInputChunk(where, path, input, bytes.subarray(at));
      if (n === 0) break;
      at += n;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  }
  const limit = maxBytes ?? INPUT_LIMITS.pipe;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const chunk = new Uint8Array(1 << 20);
    const n = readInputChunk(where, path, input, chunk);
    if (n === 0) break;
    total += n;
    if (total > limit) throw tooLarge(where, path, limit, 'the pipe sent');
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks, total);
}

/**
 * When `path` is a pipe, reads it to its end on the thread pool (never blocking this thread: the
 * descriptor is non-blocking and a silent writer is polled with timers), up to {@link INPUT_LIMITS}`.pipe`
 * bytes, and keeps the bytes for the next {@link readInputFile} (or BVH read) of `path`. The event loop
 * stays free meanwhile, so Ctrl-C and SIGTERM are handled at once. Anything that is not a pipe is left to
 * the reader (which reports it). Never rejects: a failure is kept and thrown by that read.
 */
export async function preloadPipeInput(where: string, path: string): Promise<void> {
  let input: OpenedInput;
  try {
    input = openInput(where, path);
  } catch {
    return;
  }
  if (!input.pipe) {
    closeSync(input.fd);
    return;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const chunk = new Uint8Array(1 << 20);
      const n = await new Promise<number>((resolve, reject) => {
        const attempt = (delay: number) =>
          read(input.fd, chunk, 0, chunk.length, null, (error, bytes) => {
            if (error?.code === 'EAGAIN') setTimeout(() => attempt(Math.min(50, delay * 2)), delay);
            else if (error) reject(fileError(error, where, 'read', path));
            else resolve(bytes);
          });
        attempt(1);
      });
      if (n === 0) break;
      total += n;
      if (total > INPUT_LIMITS.pipe) throw tooLarge(where, path, INPUT_LIMITS.pipe, 'the pipe sent');
      chunks.push(chunk.subarray(0, n));
    }
    preloaded.set(path, { bytes: Buffer.concat(chunks, total) });
  } catch (error) {
    preloaded.set(path, { error });
  } finally {
    close(input.fd, () => {});
  }
}
