/**
 * Argument checks and error translation of the public file functions: a path that is no usable string is an
 * {@link InvalidValueError}, a system error of the file system a {@link FileError} naming the file, so callers
 * of `rotsig/node` meet typed errors only.
 *
 * @internal
 * @module
 */
import { FileError, InvalidValueError, OptionError, RotsigError } from '../errors.js';

/** Throws an {@link InvalidValueError} unless `path` is a non-empty string without NUL characters. */
export function checkPath(where: string, name: string, path: unknown): asserts path is string {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    const got = typeof path === 'string' ? JSON.stringify(path) : path === null ? 'null' : typeof path;
    throw new InvalidValueError(`${where}: ${name} must be a non-empty file path, got ${got}`);
  }
}

/** Throws an {@link OptionError} unless `options` is an object (or undefined, for the defaults). */
export function checkOptionsObject(where: string, options: unknown): void {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new OptionError(
      `${where}: options must be an object, got ${options === null ? 'null' : typeof options}`,
    );
  }
}

/** Throws an {@link InvalidValueError} unless `content` is a string, a Uint8Array or an iterable of them. */
export function checkContent(where: string, content: unknown): void {
  if (typeof content === 'string' || content instanceof Uint8Array) return;
  const iterable =
    content !== null &&
    typeof content === 'object' &&
    typeof (content as Iterable<unknown>)[Symbol.iterator] === 'function';
  if (!iterable)
    throw new InvalidValueError(`${where}: content must be a string, a Uint8Array or an iterable of them`);
}

/** Short reasons of the file system's error codes, as rotsig's messages give them. */
export const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on device',
  EEXIST: 'a file of that name is in the way',
  ELOOP: 'symbolic link loop',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
};

/**
 * The short reason of a system error of the file system (`'no such file or directory'` for `ENOENT`, ...): the
 * message's own text carries the path and the call, which the callers name themselves. Unknown codes give the
 * code; an error without one its message.
 */
export function systemReason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.code === 'string') return SYSTEM_REASONS[e.code] ?? e.code;
  return String(e?.message ?? error);
}

/**
 * `error` as a {@link FileError} when it is a system error of the file system (a string `code`, not one of
 * rotsig's own errors): `<where>: cannot <action> "<path>": <reason>`, `code` kept. Anything else unchanged.
 */
export function fileError(error: unknown, where: string, action: string, path: string): unknown {
  if (error instanceof RotsigError || !(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== 'string') return error;
  const reason = SYSTEM_REASONS[code] ?? error.message;
  return new FileError(code, path, `${where}: cannot ${action} ${JSON.stringify(path)}: ${reason}`);
}

/** `run()`, with a system error of the file system thrown as a {@link FileError} (see {@link fileError}). */
export function onFile<T>(where: string, action: string, path: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw fileError(error, where, action, path);
  }
}
