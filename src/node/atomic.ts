import {
  close,
  closeSync,
  fstatSync,
  fsync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  rename,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { InvalidValueError } from '../errors.js';
import { checkContent, checkPath, fileError, onFile } from './checks.js';
import { lockGroup } from './group-lock.js';

/**
 * What {@link writeFileAtomic} accepts: text, bytes, or a sequence of chunks written one after another. A
 * chunk is written before the next is asked for, so a sequence may hand out views of one buffer that it
 * writes over (`writeBvhChunks`).
 */
export type AtomicContent = string | Uint8Array | Iterable<string | Uint8Array>;

/**
 * `content` as one string (when it is all text) or one byte array, for stdout. The chunks of a sequence are
 * copied as they come (a chunk may be a view that the next step writes over).
 *
 * @internal
 */
export function joinContent(content: AtomicContent): string | Uint8Array {
  if (typeof content === 'string' || content instanceof Uint8Array) return content;
  const parts: (string | Uint8Array)[] = Array.from(content, (p) => (typeof p === 'string' ? p : p.slice()));
  if (parts.every((p) => typeof p === 'string')) return parts.join('');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

let counter = 0;

/** Marker in every temporary file name, so an interrupted run's leftovers can be found and removed. */
const TMP_MARK = '.rotsig-';

/**
 * The temporary name's parts after `.<name>.rotsig-`: the writing process's id, its thread, a counter, and
 * a tag of the host, so that a run on another machine sharing the directory (a network drive) never
 * takes a file being written there for a leftover. Names without the tag are from older versions.
 */
const TMP_NAME = /^\.(.+)\.rotsig-(\d+)-(\d+)-(\d+)(?:-([0-9a-f]{8}))?\.tmp$/;

/** FNV-1a of the host name, 8 hex digits: short, and only ever compared with itself. */
function hostTag(): string {
  let h = 0x811c9dc5;
  for (const c of hostname()) {
    h ^= c.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const HOST = hostTag();

/**
 * Name of the temporary sibling used while `path` is written by this process and thread:
 * `.<name>.rotsig-<pid>-<thread>-<n>-<host>.tmp`, hidden, and recognisable by a later run (see
 * {@link removeStaleTemporaryFiles}).
 *
 * @example
 * temporaryPathFor('out/a.bvh'); // 'out/.a.bvh.rotsig-<pid>-<thread>-<n>-<host>.tmp'
 */
export function temporaryPathFor(path: string): string {
  counter += 1;
  return join(
    dirname(path),
    `.${basename(path)}${TMP_MARK}${process.pid}-${threadId}-${counter}-${HOST}.tmp`,
  );
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
  checkPath('writeFileAtomic', 'path', path);
  checkContent('writeFileAtomic', content);
  const { tmp, fd } = writeTemporary('writeFileAtomic', path, content);
  try {
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw fileError(error, 'writeFileAtomic', 'write', path);
  }
}

/**
 * Writes `content` into a new temporary file beside `path` and returns it still open (for the caller's
 * flush and rename); on a write error the file is closed and removed and the error rethrown.
 */
function writeTemporary(where: string, path: string, content: AtomicContent): { tmp: string; fd: number } {
  const tmp = temporaryPathFor(path);
  const fd = onFile(where, 'write', path, () => openSync(tmp, 'wx', 0o644));
  try {
    if (typeof content === 'string' || content instanceof Uint8Array) writeAll(fd, content);
    else
      for (const chunk of content) {
        if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array))
          throw new InvalidValueError(
            `${where}: content holds a chunk that is neither a string nor a Uint8Array`,
          );
        writeAll(fd, chunk);
      }
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw fileError(error, where, 'write', path);
  }
  return { tmp, fd };
}

/**
 * {@link writeFileAtomic} whose flush runs off this thread: the content is written to the temporary file
 * now (so `content` may be reused as soon as this returns), and the flush to disk, the close and the rename
 * over `path` run on the I/O thread pool; the promise settles when `path` holds the complete new file. A
 * batch starts its next file meanwhile, so the flush (milliseconds per file on a real disk) overlaps with
 * computing instead of stalling it. The guarantees are those of {@link writeFileAtomic}: `path` is renamed
 * only after the flush, so a reader sees the old file or the complete new one, and on an error the
 * temporary file is removed and the promise rejects.
 *
 * @example
 * await writeFileAtomicAsync('out/walk.bvh', writeBvhBytes(clip));
 */
export function writeFileAtomicAsync(path: string, content: AtomicContent): Promise<void> {
  // bad arguments and a failing write of the content throw at once; the flush and rename reject
  checkPath('writeFileAtomicAsync', 'path', path);
  checkContent('writeFileAtomicAsync', content);
  const { tmp, fd } = writeTemporary('writeFileAtomicAsync', path, content);
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      rmSync(tmp, { force: true });
      reject(fileError(error, 'writeFileAtomicAsync', 'write', path));
    };
    fsync(fd, (flushError) => {
      close(fd, (closeError) => {
        const error = flushError ?? closeError;
        if (error) return fail(error);
        rename(tmp, path, (renameError) => (renameError ? fail(renameError) : resolve()));
      });
    });
  });
}

/** One file of a group written by {@link writeFilesAtomic}. */
export interface GroupFile {
  path: string;
  content: string | Uint8Array;
  /**
   * Never replace a file already at `path`: the new file is linked in only where nothing is (a file with
   * the same bytes counts as written). For files named by untrusted input, such as a model's images.
   */
  noClobber?: boolean;
}

/** What {@link writeFilesAtomic} did not do: files left as they were, and files replaced meanwhile. */
export interface GroupWriteReport {
  /** `noClobber` files not written because another file is at their path. */
  kept: string[];
  /** Files of the group that another writer replaced before the last file was in place. */
  replaced: string[];
}

/**
 * Writes a group of files that belong together (a `.gltf`, its `.bin` and images) so that readers see
 * them change as one as far as a file system allows: every file is first written to a temporary sibling
 * and flushed, and only when all are complete are they renamed into place, in the given order (the
 * companions first, the file that names them last). So a reader never finds the last file naming a
 * companion that is missing or incomplete, and an error or a kill before the renames leaves every path
 * as it was (the temporary files are removed, or by a later run).
 *
 * Two writers of one group (two runs writing the same `.gltf`) take turns: the renames happen under a lock
 * file beside the last file (`.<name>.rotsig-lock`, see `lockGroup`), so the group on disk is always one
 * writer's whole group, never a `.gltf` beside another run's buffer. A failure between the renames puts
 * back the files already replaced. What is not guaranteed: a reader that opened the old last file may, in
 * the microseconds between one writer's renames, read a new companion with it; and a writer that is not
 * rotsig does not take the lock, so after the renames each companion is checked to still be this
 * writer's, and any that is not is reported in `replaced` (the caller then fails the file rather than
 * leave a torn pair unsaid).
 *
 * @throws {FileError} when a file cannot be written or renamed; nothing of the group is left half-written.
 */
export function writeFilesAtomic(files: readonly GroupFile[]): GroupWriteReport {
  const staged: { file: GroupFile; tmp: string; id: string }[] = [];
  const report: GroupWriteReport = { kept: [], replaced: [] };
  try {
    for (const file of files) {
      checkPath('writeFilesAtomic', 'path', file.path);
      const there = file.noClobber ? existing(file.path, file.content) : undefined;
      if (there !== undefined) {
        if (!there) report.kept.push(file.path);
        continue;
      }
      const { tmp, fd } = writeTemporary('writeFilesAtomic', file.path, file.content);
      staged.push({ file, tmp, id: '' });
      try {
        fsyncSync(fd);
        const st = fstatSync(fd);
        staged[staged.length - 1].id = `${st.dev}:${st.ino}`;
      } finally {
        closeSync(fd);
      }
    }
    if (files.length > 0) placeGroup(staged, files[files.length - 1].path, report);
  } catch (error) {
    for (const s of staged) rmSync(s.tmp, { force: true });
    throw fileError(error, 'writeFilesAtomic', 'write', staged.at(-1)?.file.path ?? files[0]?.path ?? '');
  }
  for (const s of staged.slice(0, -1)) {
    let id = '';
    try {
      const st = lstatSync(s.file.path);
      id = `${st.dev}:${st.ino}`;
    } catch {}
    if (id !== s.id && !report.kept.includes(s.file.path)) report.replaced.push(s.file.path);
  }
  return report;
}

/**
 * Renames (or, for `noClobber` files, links) the staged files into place under the group's lock, so two
 * writers of one group never interleave. The files being replaced are kept as hard links until the last
 * rename, and a failure in between puts them back: the group ends all new or all as it was.
 */
function placeGroup(
  staged: { file: GroupFile; tmp: string; id: string }[],
  last: string,
  report: GroupWriteReport,
): void {
  if (staged.length === 0) return;
  const release = lockGroup(last, 'writeFilesAtomic');
  const done: { path: string; backup?: string }[] = [];
  try {
    for (const s of staged) {
      if (!s.file.noClobber) {
        const backup = temporaryPathFor(s.file.path);
        let kept: string | undefined;
        try {
          linkSync(s.file.path, backup);
          kept = backup;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        done.push({ path: s.file.path, backup: kept });
        renameSync(s.tmp, s.file.path);
        continue;
      }
      // a hard link never replaces what is at the path (EEXIST), unlike rename
      try {
        linkSync(s.tmp, s.file.path);
        done.push({ path: s.file.path });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST') throw error;
        if (existing(s.file.path, s.file.content) === false) report.kept.push(s.file.path);
      }
      rmSync(s.tmp, { force: true });
    }
  } catch (error) {
    for (const d of done.reverse()) {
      try {
        if (d.backup !== undefined) renameSync(d.backup, d.path);
        else rmSync(d.path, { force: true });
      } catch {}
    }
    throw error;
  } finally {
    for (const d of done) if (d.backup !== undefined) rmSync(d.backup, { force: true });
    release();
  }
}

/** Whether a file is at `path`: true with the same bytes as `content`, false with others, undefined for none. */
function existing(path: string, content: string | Uint8Array): boolean | undefined {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch {
    return undefined;
  }
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (!stats.isFile() || stats.size !== bytes.length) return false;
  try {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(readFileSync(path));
  } catch {
    return false;
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

/** A temporary file removed by {@link removeStaleTemporaryFiles}. */
export interface StaleTemporaryFile {
  path: string;
  /** Process id of the run that wrote it, no longer running. */
  pid: number;
}

/**
 * Removes the temporary files that interrupted runs left in `directories`: files named by
 * {@link temporaryPathFor} whose writing process no longer runs on this host (a run killed with SIGKILL,
 * or by a power cut, has no chance to clean up). A file of a live process (another run writing now, or
 * this one) and a file written on another host are kept. Returns what was removed, so the caller can say
 * so; files that cannot be removed (another user's) are left.
 *
 * A process id reused by an unrelated program keeps its leftover until that program exits: the test errs
 * on the side of keeping files.
 *
 * @example
 * for (const f of removeStaleTemporaryFiles(['out'])) console.error(`removed ${f.path} (pid ${f.pid})`);
 */
export function removeStaleTemporaryFiles(directories: Iterable<string>): StaleTemporaryFile[] {
  const removed: StaleTemporaryFile[] = [];
  const alive = new Map<number, boolean>();
  for (const dir of new Set(directories)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = TMP_NAME.exec(name);
      if (!m || (m[5] !== undefined && m[5] !== HOST)) continue;
      const pid = Number(m[2]);
      let running = alive.get(pid);
      if (running === undefined) {
        running = processRuns(pid);
        alive.set(pid, running);
      }
      if (running) continue;
      const path = join(dir, name);
      try {
        rmSync(path);
        removed.push({ path, pid });
      } catch {
        // Gone already (another run cleaned it), or not ours to remove.
      }
    }
  }
  return removed;
}

/** True when a process with this id runs here (signal 0 checks without sending anything). */
function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
