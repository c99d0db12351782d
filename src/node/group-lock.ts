// A short-lived lock beside a group of files (a `.gltf` and its `.bin`), held while the group is renamed
// into place, so that two writers of the same group never interleave their renames and leave a `.gltf`
// beside another run's buffer.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { FileError } from '../errors.js';
import { fileError } from './checks.js';

/** How long a writer waits for another writer's lock before it fails, in milliseconds. */
export const GROUP_LOCK_WAIT_MS = 10_000;

/**
 * Age after which a lock is taken for one left by a writer that died, in milliseconds. A lock is held only
 * while a group is renamed (microseconds to milliseconds), so a lock this old has no live holder even on
 * another machine sharing the folder, where the holder's process cannot be asked.
 */
export const GROUP_LOCK_STALE_MS = 30_000;

const HOST = hostname();

/** The lock file of the group whose last (naming) file is `path`: `.<name>.rotsig-lock` beside it. */
export function groupLockPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.rotsig-lock`);
}

/**
 * Takes the lock of the group whose last file is `path`, waiting for another writer's lock to go (at most
 * `waitMs`), and returns the function that releases it. The lock is a file made with `O_EXCL` holding the
 * holder's process id, thread and host; one whose holder is gone (a process of this host that no longer
 * runs) or that is older than {@link GROUP_LOCK_STALE_MS} is removed and taken.
 *
 * @throws {FileError} (code `ELOCKED`) when another live writer holds the lock for longer than `waitMs`;
 * (the system's code) when the lock cannot be made.
 */
export function lockGroup(path: string, where: string, waitMs: number = GROUP_LOCK_WAIT_MS): () => void {
  const lock = groupLockPath(path);
  const owner = `${process.pid} ${threadId} ${HOST}\n`;
  const deadline = Date.now() + waitMs;
  let pause = 1;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw fileError(error, where, 'lock', path);
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, owner);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        // remove it only while it is still ours (a stale-lock taker may have replaced it)
        if (readText(lock) === owner) rmSync(lock, { force: true });
      };
    }
    const held = readText(lock);
    if (held !== undefined && isStale(lock, held)) {
      // take it only if it is still the one judged stale
      if (readText(lock) === held) rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() >= deadline)
      throw new FileError(
        'ELOCKED',
        path,
        `${where}: cannot write ${JSON.stringify(path)}: another writer of the same files holds ${basename(lock)} (waited ${waitMs / 1000} s; remove the file if no rotsig run is writing there)`,
      );
    sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}

function isStale(lock: string, held: string): boolean {
  const [pid, , host] = held.trim().split(' ');
  if (host === HOST && /^\d+$/.test(pid ?? '') && !alive(Number(pid))) return true;
  try {
    return Date.now() - statSync(lock).mtimeMs > GROUP_LOCK_STALE_MS;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(SLEEPER, 0, 0, ms);
}
