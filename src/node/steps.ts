// Pipeline steps and outputs of file tasks, as plain data (so tasks can be posted to worker threads),
// each mapped to one library call.
import { type AnalyzeClipOptions, analyzeClip } from '../ops/analyze-clip.js';
import type { Clip } from '../series/clip.js';
import type { AtomicContent } from './atomic.js';

/** One processing step of a pipeline, applied to the whole clip. */
export type ClipStep = never;

/** What a task produces from the processed clip. */
export type Emit = { kind: 'info'; options?: AnalyzeClipOptions };

/** Applies `steps` in order; returns the input clip when there are none. */
export function runSteps(clip: Clip, steps: readonly ClipStep[]): Clip {
  let current = clip;
  for (const step of steps) current = applyStep(current, step);
  return current;
}

function applyStep(clip: Clip, step: ClipStep): Clip {
  throw new Error(`unknown step ${JSON.stringify(step)}`);
}

/** Output of {@link emitClip}: file content, structured data, or both. */
export interface Emitted {
  content?: AtomicContent;
  data?: unknown;
}

/** Produces a task's output from the processed clip (`context.source` is the clip as read). */
export function emitClip(clip: Clip, emit: Emit, context: { source: Clip; input: string }): Emitted {
  switch (emit.kind) {
    case 'info':
      return { data: analyzeClip(clip, emit.options) };
  }
}
