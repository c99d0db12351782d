/**
 * Typed errors. Every failure rotsig reports on bad input is one of these, with a message that names
 * what was wrong and where (argument, index, frame, joint), so callers never meet a silent NaN or a
 * TypeError from deep inside a kernel.
 *
 * @module
 */

/** Base class of every error rotsig throws on purpose. `code` is stable and machine-readable. */
export class RotsigError extends Error {
  /** A short stable identifier such as `'shape'` or `'non-finite'`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Array lengths or series shapes that do not fit together (`frames * joints * 4 !== data.length`, ...). */
export class ShapeError extends RotsigError {
  constructor(message: string) {
    super('shape', message);
  }
}

/** Where in a series or flat array a bad value sits; all fields optional. */
export interface ValueLocation {
  /** Index of the item (rotation, sample) in a flat list. */
  index?: number;
  /** Frame of a time series. */
  frame?: number;
  /** Joint of a time series. */
  joint?: number;
}

/**
 * A value that cannot be processed: NaN or infinite components, a zero quaternion, a weight sum of
 * zero, a non-positive rate. `location` says where, when the value came from an array.
 */
export class InvalidValueError extends RotsigError {
  readonly location: ValueLocation;
  constructor(message: string, location: ValueLocation = {}) {
    super('invalid-value', message);
    this.location = location;
  }
}

/** What an {@link OptionError} raised by the option resolver names: the function, the option, the value. */
export interface OptionErrorDetail {
  /** The function (or function and argument) whose options were resolved, e.g. `'filterRotations'`. */
  where: string;
  /** The option's name as passed (the unknown name for an unknown option). */
  option: string;
  /** The value passed. */
  value: unknown;
  /** What the option takes, in words (`'a number in [0, 1]'`), or the valid names for an unknown option. */
  expected: string;
}

/**
 * An option with a value outside its documented domain (unknown method name, negative sigma, ...). Raised by
 * the option resolver with `detail` set and the message `where: option 'name' must be <expected>, got <value>`
 * (a wrong type or range) or `where: unknown option 'name'; did you mean 'other'? Valid options: ...`.
 */
export class OptionError extends RotsigError {
  /** The function, option, value and expectation, when the option resolver raised this error. */
  readonly detail: OptionErrorDetail | undefined;
  constructor(message: string, detail?: OptionErrorDetail) {
    super('option', message);
    this.detail = detail;
  }
}

/**
 * A file operation that failed (`rotsig/node`): the file or a directory was missing, not readable or not
 * writable, the disk was full. `code` is the system's code (`'ENOENT'`, `'EACCES'`, `'ENOSPC'`, ...), `path`
 * the file named.
 */
export class FileError extends RotsigError {
  readonly path: string;
  constructor(code: string, path: string, message: string) {
    super(code, message);
    this.path = path;
  }
}
