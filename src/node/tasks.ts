// One file task: read a clip file (BVH or AMASS .npz, see clip-formats.ts), run pipeline steps, write (atomically) or return the result. The same
// function runs on the main thread and in the pool's workers, so it takes and returns plain data (task.ts).
import { mkdirSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { FileError } from '../errors.js';
import { recycleClipArrays } from '../io/bvh/recycle.js';
import { jumpSplits } from '../ops/analysis/segments.js';
import { SMOOTH_DEFAULTS } from '../ops/filter/smooth-defaults.js';
import { planLoop, rateAdjustedNotes } from '../pipeline/loop.js';
import { emitClip, runSteps } from '../pipeline/steps.js';
import type { Clip } from '../series/clip.js';
import { type AtomicContent, joinContent, writeFileAtomic, writeFileAtomicAsync } from './atomic.js';
import { SYSTEM_REASONS, systemReason } from './checks.js';
import { clipFormatOf } from './clip-formats.js';
import { preloadPipeInput } from './input.js';
import { type FileTask, startResult, type TaskError, type TaskResult } from './task.js';
import { isGltfTask } from './task-route.js';

/**
 * Runs one task to completion; never throws (failures are in the result).
 *
 * @example
 * const r = runFileTask({ input: 'walk.bvh', output: 'out/walk.bvh', steps: [{ op: 'unroll' }], emit: { kind: 'bvh' } });
 * if (!r.ok) console.error(formatTaskError(r.input, r.error!));
 */
export function runFileTask(task: FileTask): TaskResult {
  return runTask(task, writeFileAtomic).result;
}

/**
 * A file task whose outputs are flushed to disk off this thread ({@link writeFileAtomicAsync}): the
 * result once they are in place. A batch runs its next file while the flush goes on.
 */
async function runFileTaskFlushingLater(task: FileTask): Promise<TaskResult> {
  const { result, flushes } = runTask(task, writeFileAtomicAsync);
  if (flushes.length === 0) return result;
  try {
    await Promise.all(flushes);
  } catch (error) {
    result.ok = false;
    // as a synchronous write reports it (runTask)
    result.error = { message: `cannot write ${task.output}: ${errorData(error).message}` };
  }
  return result;
}

/**
 * The body of {@link runFileTask}, writing with `write`: the result, and the promises of writes that
 * finish later (none with a synchronous `write`). `ms` is the time of the work on this thread.
 */
function runTask(
  task: FileTask,
  write: (path: string, content: AtomicContent) => void | Promise<void>,
): { result: TaskResult; flushes: Promise<void>[] } {
  const flushes: Promise<void>[] = [];
  const written = (p: void | Promise<void>) => {
    if (p instanceof Promise) flushes.push(p);
  };
  const t0 = performance.now();
  const result = startResult(task);
  try {
    // BVH is read in chunks (readBvhFile): a file of any size, never one string
    const parsed = clipFormatOf(task.input).read(task.input, {
      ...(task.positionMode ? { positionMode: task.positionMode } : {}),
      ...(task.template ? { template: task.template } : {}),
      ...(task.repair ? { repair: true } : {}),
    });
    result.warnings = parsed.warnings;
    const clip: Clip = parsed.clip;
    result.rate = clip.rate;
    result.frames = clip.frames;
    result.joints = clip.skeleton.names.length;
    // where smoothing or resampling splits at real jumps, named for the --json summary unless the task
    // says no one reads them (before the steps, which may reuse the clip's arrays)
    if (
      task.splits !== false &&
      task.steps.some(
        (s) =>
          (s.op === 'smooth' || (s.op === 'resample' && !s.optimal)) &&
          planLoop(clip, s, s.op === 'smooth' ? SMOOTH_DEFAULTS.boundary : 'clamp').segments === 'jumps',
      )
    )
      result.splits = jumpSplits(clip).map((d) => ({
        joint: clip.skeleton.names[d.joint],
        frame: d.frame,
        time: (clip.startTime ?? 0) + d.frame / clip.rate,
        angle: d.angle,
      }));
    // the parsed clip is this task's own: unrolling may overwrite it instead of copying
    const processed = runSteps(clip, task.steps, {
      input: 'reuse',
      onStep: rateAdjustedNotes(task.steps, result.warnings),
    });
    result.outputFrames = processed.frames;
    // a clip is written in the format of its output's extension (the input's for stdout and mirrored trees)
    const emit =
      task.emit.kind === 'clip'
        ? {
            ...task.emit,
            format: clipFormatOf(task.output && task.output !== '-' ? task.output : task.input).name,
          }
        : task.emit;
    const out = emitClip(processed, emit, { title: basename(task.input) });
    if (out.data !== undefined) result.data = out.data;
    if (out.warnings !== undefined) result.warnings.push(...out.warnings);
    if (out.content !== undefined) {
      if (task.output === '-' || task.output === null) {
        result.stdout = joinContent(out.content);
        if (out.sidecar !== undefined)
          result.warnings.push({
            code: 'sidecar-not-written',
            message:
              'the .json sidecar naming the columns is not written with -o - (the .npz format holds the names: --format npz)',
          });
      } else {
        try {
          mkdirSync(dirname(task.output), { recursive: true });
          written(write(task.output, out.content));
          if (out.sidecar !== undefined) written(write(sidecarPath(task.output), out.sidecar));
        } catch (error) {
          const e = errorData(error);
          throw new Error(`cannot write ${task.output}: ${e.message}`);
        }
      }
      // the content is written (or copied) and nothing of the result refers to the clips: the next BVH
      // file read on this thread fills their arrays (a BVH clip's arrays are the parser's and the steps'
      // own; other readers' may be views of buffers they keep)
      if (out.data === undefined && clipFormatOf(task.input).name === 'BVH')
        recycleClipArrays(clip, processed);
    }
    result.ok = true;
  } catch (error) {
    result.error = errorData(error);
  }
  result.ms = performance.now() - t0;
  return { result, flushes };
}

/**
 * Runs one task of any format: glTF/GLB tasks (whose reader is asynchronous) through `runGltfTask`,
 * every other through {@link runFileTask}. Never rejects.
 *
 * @example
 * const r = await runAnyFileTask({ input: 'Fox.glb', output: 'out/Fox.glb', steps: [{ op: 'unroll' }], emit: { kind: 'bvh' } });
 */
export async function runAnyFileTask(task: FileTask): Promise<TaskResult> {
  // an input that is a pipe is read here without blocking the thread, so a signal ends the run at once
  await preloadPipeInput('read', task.input);
  // the glTF and reduction runners are loaded by the first task that needs one: a batch of BVH files
  // (and each of its workers) starts without them
  if (task.emit.kind === 'reduce') return (await import('./reduce-task.js')).runReduceTask(task, errorData);
  if (isGltfTask(task)) return (await import('./gltf-task.js')).runGltfTask(task, errorData);
  return runFileTaskFlushingLater(task);
}

/**
 * Whether running `task` reads its input with `readBvhFile` (a clip task on a `.bvh` file), so that a
 * read-ahead of it (`readAheadBvhFile`) will be taken.
 */
export function readsBvhFile(task: FileTask): boolean {
  return task.emit.kind !== 'reduce' && !isGltfTask(task) && clipFormatOf(task.input).name === 'BVH';
}

/** Where the JSON description of an output goes: `features.npz` → `features.json`. */
export function sidecarPath(output: string): string {
  const ext = extname(output);
  return `${ext ? output.slice(0, -ext.length) : output}.json`;
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
  // a GltfError's message starts with the file, which the task's report names already
  if (e.name === 'GltfError' && typeof e.reason === 'string') out.message = e.reason;
  // System errors carry the path in their message already; keep the short form.
  if (typeof out.code === 'string' && out.code in SYSTEM_REASONS) out.message = systemReason(e);
  // rotsig's own file errors (a device, a pipe over its limit) name the file, which the message has already
  else if (error instanceof FileError) out.message = e.message.replace(/^.*?: cannot \w+ ".*?": /, '');
  return out;
}
