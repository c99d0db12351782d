// Pipeline steps and outputs of file tasks, as plain data (so tasks can be posted to worker threads),
// each mapped to one library call.
import { writeBvh } from '../io/index.js';
import { type AnalyzeClipOptions, analyzeClip } from '../ops/analyze-clip.js';
import { unrollClip } from '../ops/unroll-clip.js';
import type { Clip } from '../series/clip.js';
import type { AtomicContent } from './atomic.js';

/** One processing step of a pipeline, applied to the whole clip. */
export type ClipStep = { op: 'unroll' };

/** What a task produces from the processed clip. */
export type Emit = { kind: 'info'; options?: AnalyzeClipOptions } | { kind: 'bvh'; precision?: number };

/** Applies `steps` in order; returns the input clip when there are none. */
export function runSteps(clip: Clip, steps: readonly ClipStep[]): Clip {
  let current = clip;
  for (const step of steps) current = applyStep(current, step);
  return current;
}

function applyStep(clip: Clip, step: ClipStep): Clip {
  switch (step.op) {
    case 'unroll':
      return unrollClip(clip);
  }
}

/** Output of {@link emitClip}: file content, structured data, or both. */
export interface Emitted {
  content?: AtomicContent;
  data?: unknown;
}

/** Produces a task's output from the processed clip. */
export function emitClip(clip: Clip, emit: Emit): Emitted {
  switch (emit.kind) {
    case 'info':
      return { data: analyzeClip(clip, emit.options) };
    case 'bvh':
      return { content: writeBvh(clip, emit.precision === undefined ? {} : { precision: emit.precision }) };
  }
}
