// One file task: read a BVH file, run pipeline steps, write (atomically) or return the result. The same
// function runs on the main thread and in the pool's workers, so it takes and returns plain data.
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type BvhWarning, parseBvhWithReport } from '../io/index.js';
import type { Clip, PositionMode } from '../series/clip.js';
import { type AtomicContent, writeFileAtomic } from './atomic.js';
import { type ClipStep, type Emit, emitClip, runSteps } from './steps.js';

/** A file to process: input path, output path (`'-'` = return the bytes for stdout, null = no file). */
export interface FileTask {
  input: string;
  output: string | null;
  steps: ClipStep[];
  emit: Emit;
  /** How position channels combine with OFFSETs when reading (see `ParseBvhOptions.positionMode`). */
  positionMode?: PositionMode;
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
  warnings: { message: string; line?: number; column?: number }[];
  ms: number;
  error?: TaskError;
  /** Structured result (the analysis for `info`, the spectrum summary, ...). */
  data?: unknown;
  /** Bytes or text for stdout (`output === '-'`, or a text report). */
  stdout?: string | Uint8Array;
}

/**
 * Runs one task to completion; never throws (failures are in the result).
 *
 * @example
 * const r = runFileTask({ input: 'walk.bvh', output: 'out/walk.bvh', steps: [{ op: 'unroll' }], emit: { kind: 'bvh' } });
 * if (!r.ok) console.error(formatTaskError(r.input, r.error!));
 */
export function runFileTask(task: FileTask): TaskResult {
  const t0 = performance.now();
  const result: TaskResult = {
    input: task.input,
    output: task.output,
    ok: false,
    frames: 0,
    joints: 0,
    outputFrames: 0,
    warnings: [],
    ms: 0,
  };
  try {
    const text = readFileSync(task.input, 'utf8');
    const parsed = parseBvhWithReport(text, task.positionMode ? { positionMode: task.positionMode } : {});
    result.warnings = parsed.warnings.map(warningData);
    const clip: Clip = parsed.clip;
    result.frames = clip.frames;
    result.joints = clip.skeleton.names.length;
    // the parsed clip is this task's own: unrolling may overwrite it instead of copying
    const processed = runSteps(clip, task.steps, { input: 'reuse' });
    result.outputFrames = processed.frames;
    const out = emitClip(processed, task.emit, { title: basename(task.input) });
    if (out.data !== undefined) result.data = out.data;
    if (out.content !== undefined) {
      if (task.output === '-' || task.output === null) result.stdout = contentToStdout(out.content);
      else {
        try {
          mkdirSync(dirname(task.output), { recursive: true });
          writeFileAtomic(task.output, out.content);
        } catch (error) {
          const e = errorData(error);
          throw new Error(`cannot write ${task.output}: ${e.message}`);
        }
      }
    }
    result.ok = true;
  } catch (error) {
    result.error = errorData(error);
  }
  result.ms = performance.now() - t0;
  return result;
}

function warningData(w: BvhWarning): { message: string; line?: number; column?: number } {
  return {
    message: w.message,
    ...(w.line ? { line: w.line } : {}),
    ...(w.column ? { column: w.column } : {}),
  };
}

function errorData(error: unknown): TaskError {
  if (!(error instanceof Error)) return { message: String(error) };
  const e = error as Error & { line?: unknown; column?: unknown; reason?: unknown; code?: unknown };
  const out: TaskError = { message: e.message };
  if (typeof e.line === 'number' && typeof e.column === 'number') {
    out.line = e.line;
    out.column = e.column;
    if (typeof e.reason === 'string') out.message = e.reason;
  }
  if (typeof e.code === 'string') out.code = e.code;
  // System errors carry the path in their message already; keep the short form.
  if (out.code === 'ENOENT') out.message = 'no such file or directory';
  else if (out.code === 'EISDIR') out.message = 'is a directory';
  else if (out.code === 'EACCES' || out.code === 'EPERM') out.message = 'permission denied';
  else if (out.code === 'ENOTDIR') out.message = 'a parent is not a directory';
  else if (out.code === 'ENOSPC') out.message = 'no space left on device';
  return out;
}

function contentToStdout(content: AtomicContent): string | Uint8Array {
  if (typeof content === 'string' || content instanceof Uint8Array) return content;
  const parts: (string | Uint8Array)[] = [...content];
  if (parts.every((p) => typeof p === 'string')) return parts.join('');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
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
