// The BVH writer's options and defaults, apart from the writer so that the command line can name them in
// its help without loading it.
import { frozenDefaults } from '../../options.js';
import type { PositionMode } from '../../series/clip.js';

/** Options of `writeBvh`. */
export interface WriteBvhOptions {
  /** Decimal places of the motion values (degrees and file units), 0 to 15. Default 6. */
  precision?: number;
  /** How position channels are written: `'replace'` writes the translation, `'add'` translation − OFFSET. Default: the clip's `positionMode`. */
  positionMode?: PositionMode;
  /** Indentation of one hierarchy level. Default a tab. */
  indent?: string;
  /** Line ending. Default `'\n'`. */
  newline?: '\n' | '\r\n';
}

/** Defaults of {@link WriteBvhOptions} (frozen; `positionMode` falls back to the clip's). */
export const WRITE_BVH_DEFAULTS: Readonly<Required<Omit<WriteBvhOptions, 'positionMode'>>> = frozenDefaults({
  precision: 6,
  indent: '\t',
  newline: '\n',
});
