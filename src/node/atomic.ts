import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';

/** What {@link writeFileAtomic} accepts: text, bytes, or a sequence of chunks written one after another. */
export type AtomicContent = string | Uint8Array | Iterable<string | Uint8Array>;

let counter = 0;

/** Marker in every temporary file name, so an interrupted run's leftovers can be found and removed. */
const TMP_MARK = '.rotsig-';

/**
 * Name of the temporary sibling used while `path` is written by this process and thread.
 *
 * @example
 * temporaryPathFor('out/a.bvh'); // 'out/.a.bvh.rotsig-<pid>-<thread>-<n>.tmp'
 */
export function temporaryPathFor(path: string): string {
  counter += 1;
  return join(dirname(path), `.${basename(path)}${TMP_MARK}${process.pid}-${threadId}-${counter}.tmp`);
}

/**
 * Writes `content` to `path` atomically: into a temporary file in the same directory, flushed to disk,
 * then renamed over `path`. A reader (or a later run) sees either the old file or the complete new one,
 * never a truncated file, even when the process is killed in the middle of the write. On an error the
 * temporary file is removed and the error rethrown; the destination is untouched.
 *
 * @example
 * writeFileAtomic('out/walk.bvh', writeBvh(clip));
 */
export function writeFileAtomic(path: string, content: AtomicContent): void {
  const tmp = temporaryPathFor(path);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    try {
      if (typeof content === 'string' || content instanceof Uint8Array) writeAll(fd, content);
      else for (const chunk of content) writeAll(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

function writeAll(fd: number, chunk: string | Uint8Array): void {
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/**
 * Removes the temporary files that writers of process `pid` left in `directories` (after a Ctrl-C, the
 * signal handler calls this for the output directories of the run). Returns how many were removed.
 *
 * @example
 * process.on('SIGINT', () => { removeTemporaryFiles(['out']); process.exit(130); });
 */
export function removeTemporaryFiles(directories: Iterable<string>, pid: number = process.pid): number {
  const tag = `${TMP_MARK}${pid}-`;
  let removed = 0;
  for (const dir of new Set(directories)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith('.') && name.includes(tag) && name.endsWith('.tmp')) {
        rmSync(join(dir, name), { force: true });
        removed += 1;
      }
    }
  }
  return removed;
}
