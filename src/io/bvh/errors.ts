import { RotsigError } from '../../errors.js';

/**
 * A BVH text that cannot be read. `line` and `column` are 1-based and point at the offending token; the
 * message is a sentence that ends with `at line:column`, e.g. `unknown channel 'Wrotation' at 14:22`.
 * `code` is `'bvh-parse'` for malformed text, `'bvh-non-finite'` for NaN/Inf values (see the `repair`
 * option), `'bvh-too-large'` for a `Frames:` line that asks for more than the `maxValues` option allows,
 * and `'bvh-<warning code>'` (`'bvh-frame-count'`, ...) for a warning raised by `strict: true`.
 */
export class BvhParseError extends RotsigError {
  /** 1-based line of the problem. */
  readonly line: number;
  /** 1-based column (in UTF-16 code units) of the problem. */
  readonly column: number;
  /** The sentence without the location suffix. */
  readonly reason: string;
  constructor(reason: string, line: number, column: number, code = 'bvh-parse') {
    super(code, `${reason} at ${line}:${column}`);
    this.reason = reason;
    this.line = line;
    this.column = column;
  }
}

/** Kinds of {@link BvhWarning}: readable files with something a user should know about. */
export type BvhWarningCode =
  | 'frame-count'
  | 'position-offset'
  | 'repaired'
  | 'truncated'
  | 'missing-channels'
  | 'missing-offset'
  | 'empty-hierarchy';

/**
 * Something odd but readable in a BVH file (more rows than `Frames:` declares, non-finite values repaired,
 * ...). `parseBvh(text, { strict: true })` turns the first warning into a {@link BvhParseError}.
 */
export interface BvhWarning {
  code: BvhWarningCode;
  /** A sentence without location. */
  message: string;
  /** 1-based line the warning refers to, when it refers to one. */
  line?: number;
  /** 1-based column the warning refers to, when it refers to one. */
  column?: number;
}
