// The plain data of a file task and its result, and their messages. Kept apart from the code that runs a
// task, so the CLI's main thread can hand tasks to workers without loading the library itself.

import type { ClipStep, Emit } from '../pipeline/steps.js';
import type { PositionMode } from '../series/clip.js';

/** A file to process: input path, output path (`'-'` = return the bytes for stdout, null = no file). */
export interface FileTask {
  input: string;
  output: string | null;
  steps: ClipStep[];
  emit: Emit;
  /** How position channels combine with OFFSETs when reading (see `ParseBvhOptions.positionMode`). */
  positionMode?: PositionMode;
  /** glTF inputs: the animation to read, by index or name (default: all; single-clip outputs take the first). */
  animation?: string;
  /** BVH written as glTF: factor from BVH units to metres (default 0.01, centimetres). */
  scale?: number;
  /** AMASS: path of the body model's joint template `J` (.npz with a `J` member, .npy, or JSON). */
  template?: string;
  /** Read with `repair` (non-finite values interpolated, a cut-off last row dropped), with warnings. */
  repair?: boolean;
  /**
   * Name where smoothing or resampling splits the input at real jumps (`TaskResult.splits`, for a summary
   * such as `--json`). Default true; false leaves `splits` out and skips the analysis behind it (a pass
   * over every frame of every joint) when nothing reads it.
   */
  splits?: boolean;
}

/** Where a failure happened, for messages like `walk.bvh:12:5: expected 6 numbers ...`. */
export interface TaskError {
  message: string;
  line?: number;
  column?: number;
  code?: string;
}

/** Outcome of one {@link FileTask}; plain data so it crosses thread boundaries. */
export interface TaskResult {
  input: string;
  output: string | null;
  ok: boolean;
  /** Frames and joints of the input clip. */
  frames: number;
  joints: number;
  /** Frames of the processed clip (differs from `frames` after resampling). */
  outputFrames: number;
  /**
   * What `frames` and `outputFrames` count: `'frames'` of a uniformly sampled clip, or `'keys'`: the most
   * keys in one track of a keyed (glTF) clip, whose tracks keep times of their own. Absent: frames, both.
   */
  counts?: { input: 'frames' | 'keys'; output: 'frames' | 'keys' };
  warnings: { message: string; code?: string; line?: number; column?: number }[];
  ms: number;
  /** Frame rate of the input clip, Hz (for summaries of a corpus). */
  rate?: number;
  /**
   * Where smoothing or resampling with `segments: 'jumps'` splits the input: joint, the first frame of the
   * new segment, its time in seconds and the step's angle in radians (see `jumpSplits`).
   */
  splits?: { joint: string; frame: number; time: number; angle: number }[];
  error?: TaskError;
  /** Structured result (the analysis for `info`, the spectrum summary, ...). */
  data?: unknown;
  /** Bytes or text for stdout (`output === '-'`, or a text report). */
  stdout?: string | Uint8Array;
}

/**
 * The result of `task` before it has run: not ok, nothing read, no warnings; each runner fills it in.
 *
 * @example
 * const result = startResult(tasks[0]); // { input, output, ok: false, frames: 0, ..., warnings: [], ms: 0 }
 */
export function startResult(task: FileTask): TaskResult {
  return {
    input: task.input,
    output: task.output,
    ok: false,
    frames: 0,
    joints: 0,
    outputFrames: 0,
    warnings: [],
    ms: 0,
  };
}

/**
 * `path:line:column: message` (or `path: message`), the form editors and terminals link to.
 *
 * @example
 * formatTaskError('a.bvh', { message: "unknown channel 'Wrotation'", line: 5, column: 24 }); // a.bvh:5:24: unknown channel 'Wrotation'
 */
export function formatTaskError(
  path: string,
  error: TaskError | { message: string; line?: number; column?: number },
): string {
  return error.line !== undefined
    ? `${path}:${error.line}:${error.column ?? 1}: ${error.message}`
    : `${path}: ${error.message}`;
}
