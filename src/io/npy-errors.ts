import { RotsigError } from '../errors.js';

/**
 * A NumPy `.npy` array that cannot be read: a bad magic string, a malformed header, a data section shorter
 * than the header's shape, or a dtype rotsig does not read. An object array (dtype `|O`, stored with
 * Python's pickle) is refused with `code` `'npy-pickle'` and never unpickled. `member` names the `.npz`
 * member when the array came from an archive.
 *
 * Codes: `'npy-header'` (magic, version or header dictionary), `'npy-dtype'` (unsupported dtype),
 * `'npy-pickle'` (object array), `'npy-size'` (shape versus bytes, or over the size limit).
 */
export class NpyError extends RotsigError {
  /** The `.npz` member the array came from (`'poses.npy'`), when it came from one. */
  readonly member: string | undefined;
  /** The problem without the member prefix. */
  readonly reason: string;
  constructor(code: 'npy-header' | 'npy-dtype' | 'npy-pickle' | 'npy-size', reason: string, member?: string) {
    super(code, member === undefined ? reason : `${member}: ${reason}`);
    this.reason = reason;
    this.member = member;
  }
}

/**
 * A `.npz` archive (a zip of `.npy` members) that cannot be read: not a zip, a member cut short or with a
 * size that disagrees with its zip entry, a compression method other than stored or deflate, encryption,
 * or more output than the size limit allows (a zip bomb). `member` names the zip entry when there is one.
 *
 * Codes: `'npz-zip'` (the zip structure), `'npz-member'` (one member's data), `'npz-size'` (size limit).
 */
export class NpzError extends RotsigError {
  /** The zip entry the problem is in, when it is in one. */
  readonly member: string | undefined;
  /** The problem without the member prefix. */
  readonly reason: string;
  constructor(code: 'npz-zip' | 'npz-member' | 'npz-size', reason: string, member?: string) {
    super(code, member === undefined ? reason : `${member}: ${reason}`);
    this.reason = reason;
    this.member = member;
  }
}
