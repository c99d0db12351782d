// File tasks on glTF/GLB inputs or outputs: read keyed clips, bake them for the pipeline steps, write
// keys back into the same document (or BVH, tables, reports). Same result shape as the BVH tasks.
import { mkdirSync, statSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import type { GltfWarning } from '../io/gltf/errors.js';
import type { GltfReadResult } from '../io/gltf/read.js';
import { type GltfWriteResult, writeGltf } from '../io/gltf/write.js';
import { keyTimesRate } from '../ops/analysis/rate.js';
import { keysFromClip } from '../ops/keys/keys-from-clip.js';
import { bakeKeyed, runKeyedSteps } from '../pipeline/keyed.js';
import { keyedChange } from '../pipeline/keyed-change.js';
import { rateAdjustedNotes } from '../pipeline/loop.js';
import { emitClip, runSteps } from '../pipeline/steps.js';
import type { Clip, KeyedClip, Track } from '../series/clip.js';
import { type AtomicContent, joinContent, writeFileAtomic } from './atomic.js';
import { clipFormatOf, gltfScaleOf } from './clip-formats.js';
import { withDracoEncoder } from './draco.js';
import { readGltfFileWithSources, writeGltfOutput } from './gltf.js';
import { type FileTask, startResult, type TaskResult } from './task.js';
import { isGltfPath, outputFormat, writesClip } from './task-route.js';

export { isGltfTask, outputFormat } from './task-route.js';

/** A glTF reader's or writer's warning as a task warning, with the animation and channel it names. */
export function warningText(w: GltfWarning): { message: string } {
  const where = [
    w.animation !== undefined ? `animation ${w.animation}` : '',
    w.channel !== undefined ? `channel ${w.channel}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return { message: where ? `${where}: ${w.message}` : w.message };
}

/** The one clip a single-clip output (BVH, tables, spectra) takes: the first animation read, with a warning when there are more. */
function oneClip(read: GltfReadResult, result: TaskResult): KeyedClip {
  const clip = read.clips.find((c) => c.tracks.length > 0) ?? read.clips[0];
  if (clip === undefined) throw new Error('the file has no animation');
  if (read.clips.length > 1)
    result.warnings.push({
      message: `the file has ${read.clips.length} animations; this output takes '${clip.name ?? 0}' (choose one with --animation)`,
    });
  return clip;
}

/**
 * Runs a task that reads glTF/GLB, or writes it from BVH. Never throws: failures are in the result.
 *
 * @example
 * const r = await runGltfTask(
 *   { input: 'Fox.glb', output: 'out/Fox.glb', steps: [{ op: 'unroll' }], emit: { kind: 'bvh' } },
 *   (error) => ({ message: String(error) }),
 * );
 */
export async function runGltfTask(
  task: FileTask,
  fail: (error: unknown) => TaskResult['error'],
): Promise<TaskResult> {
  const t0 = performance.now();
  const result = startResult(task);
  try {
    let content: AtomicContent | undefined;
    let json: GltfWriteResult | undefined;
    // the files read (device:inode), which no output of this task may replace
    const readFiles = new Set<string>();
    const format = outputFormat(task);
    if (!isGltfPath(task.input)) {
      // BVH or AMASS in, glTF out: a new document with a node per joint
      // opened non-blocking and checked: a device or a silent pipe never hangs the task
      const parsed = clipFormatOf(task.input).read(task.input, {
        ...(task.positionMode ? { positionMode: task.positionMode } : {}),
        ...(task.template ? { template: task.template } : {}),
        ...(task.repair ? { repair: true } : {}),
      });
      result.warnings = parsed.warnings;
      const input = statSync(task.input, { throwIfNoEntry: false });
      if (input?.isFile()) readFiles.add(`${input.dev}:${input.ino}`);
      result.frames = parsed.clip.frames;
      result.joints = parsed.clip.skeleton.names.length;
      const processed = runSteps(parsed.clip, task.steps, { input: 'reuse' });
      result.outputFrames = processed.frames;
      json = await writeGltf(null, [processed], {
        format: format === 'gltf' ? 'gltf' : 'glb',
        basename: task.output && task.output !== '-' ? basename(task.output, extname(task.output)) : 'scene',
        scale: gltfScaleOf(task.input, task.scale),
        keys: (c: Clip) => keysFromClip(c, { keys: 'all' }),
      });
    } else {
      const { read, files } = await readGltfFileWithSources(task.input, {
        ...(task.animation !== undefined ? { animation: animationOption(task.animation) } : {}),
        ...(task.repair ? { repair: true } : {}),
      });
      for (const f of files) readFiles.add(f);
      result.warnings = read.warnings.map(warningText);
      const first = read.clips.find((c) => c.tracks.length > 0) ?? read.clips[0];
      result.joints = first?.skeleton.names.length ?? 0;
      if (task.emit.kind === 'info') {
        result.data = gltfInfo(read);
        result.frames = keyCount(read.clips);
        result.outputFrames = result.frames;
        result.counts = { input: 'keys', output: 'keys' };
      } else if (writesClip(task) && format !== 'bvh') {
        const processed = read.clips.map((c) =>
          c.tracks.length
            ? runKeyedSteps(c, task.steps, {
                onStep: rateAdjustedNotes(
                  task.steps,
                  result.warnings,
                  c.name ? `animation '${c.name}': ` : '',
                ),
              })
            : c,
        );
        result.frames = keyCount(read.clips);
        result.outputFrames = keyCount(processed);
        result.counts = { input: 'keys', output: 'keys' };
        // smoothing (steps that keep the timing, a filter among them): how far the poses moved at the keys
        if (
          task.steps.some((s) => s.op === 'smooth' || s.op === 'live') &&
          task.steps.every((s) => s.op === 'unroll' || s.op === 'smooth' || s.op === 'live')
        )
          result.data = {
            animations: read.clips.flatMap((c, i) => (c.tracks.length ? [keyedChange(c, processed[i])] : [])),
          };
        // a Draco document is written back with draco3dgltf's encoder, loaded only then
        const dependencies = await withDracoEncoder([read.document], undefined);
        json = await writeGltf(read.document, processed, {
          format,
          basename:
            task.output && task.output !== '-' ? basename(task.output, extname(task.output)) : 'scene',
          ...(dependencies ? { dependencies } : {}),
        });
        // what the writer left out (channels without keys, animations left empty) is said, not dropped silently
        result.warnings.push(...json.warnings.map(warningText));
      } else {
        const keyed = oneClip(read, result);
        const baked = bakeKeyed(keyed);
        result.frames = baked.frames;
        const processed = runSteps(baked, task.steps, {
          input: 'reuse',
          onStep: rateAdjustedNotes(task.steps, result.warnings),
        });
        result.outputFrames = processed.frames;
        const out = emitClip(processed, task.emit, { title: basename(task.input) });
        if (out.data !== undefined) result.data = out.data;
        content = out.content;
      }
    }
    if (json !== undefined && task.output !== '-' && task.output !== null) {
      // a .gltf with its .bin and images as one group, checked against the files this task read
      try {
        for (const message of writeGltfOutput(task.output, json, readFiles))
          result.warnings.push({ message, code: 'resource' });
      } catch (error) {
        throw new Error(`cannot write ${task.output}: ${(error as Error).message}`);
      }
    } else {
      if (json !== undefined) content = json.glb ?? `${JSON.stringify(json.json, null, 2)}\n`;
      if (content !== undefined) {
        if (task.output === '-' || task.output === null) {
          result.stdout = joinContent(content);
        } else {
          try {
            mkdirSync(dirname(task.output), { recursive: true });
            writeFileAtomic(task.output, content);
          } catch (error) {
            throw new Error(`cannot write ${task.output}: ${(error as Error).message}`);
          }
        }
      }
    }
    result.ok = true;
  } catch (error) {
    result.error = fail(error);
  }
  result.ms = performance.now() - t0;
  return result;
}

function animationOption(text: string): number | string {
  return /^\d+$/.test(text) ? Number(text) : text;
}

function keyCount(clips: readonly KeyedClip[]): number {
  let n = 0;
  for (const c of clips) for (const t of c.tracks) n = Math.max(n, t.times.length);
  return n;
}

/** One channel of {@link GltfInfo}. */
export interface GltfChannelInfo {
  node: string;
  path: Track['path'];
  interpolation: Track['interpolation'];
  keys: number;
  start: number;
  end: number;
  /**
   * `'uniform <rate> Hz'` when every key is on one grid (`keyTimesRate`, within a twentieth of a frame; the
   * spread in ms when more than float32 rounding), else `'non-uniform'`.
   */
  spacing: string;
  /** Consecutive rotation keys whose dot product is negative. */
  signFlips: number;
}

/** What `rotsig info` reports on a glTF file: per animation, its channels. */
export interface GltfInfo {
  format: 'gltf';
  animations: {
    index: number;
    name: string;
    joints: number;
    duration: number;
    channels: GltfChannelInfo[];
  }[];
  warnings: string[];
}

/**
 * The `info` summary of a glTF file: animations, channels per node with interpolation, key counts,
 * key-time spacing and quaternion sign flips.
 */
export function gltfInfo(read: GltfReadResult): GltfInfo {
  return {
    format: 'gltf',
    animations: read.clips.map((c, i) => {
      let start = Number.POSITIVE_INFINITY;
      let end = Number.NEGATIVE_INFINITY;
      const channels = c.tracks.map((t) => {
        const n = t.times.length;
        start = Math.min(start, t.times[0]);
        end = Math.max(end, t.times[n - 1]);
        return {
          node: c.skeleton.names[t.joint],
          path: t.path,
          interpolation: t.interpolation,
          keys: n,
          start: t.times[0],
          end: t.times[n - 1],
          spacing: spacing(t.times),
          signFlips: t.path === 'rotation' ? flips(t) : 0,
        };
      });
      const source = c.source as { animation?: number } | undefined;
      return {
        index: source?.animation ?? i,
        name: c.name ?? '',
        joints: c.skeleton.names.length,
        duration: channels.length ? end - start : 0,
        channels,
      };
    }),
    warnings: read.warnings.map((w) => warningText(w).message),
  };
}

function spacing(times: ArrayLike<number>): string {
  const n = times.length;
  if (n < 2) return n === 1 ? 'one key' : 'no keys';
  const r = keyTimesRate([times]);
  if (!r.uniform) return 'non-uniform';
  // the keys' measured distance from the grid, when it is more than float32 rounding
  const jitter =
    r.spread > 1e-6 ? ` (keys within ±${Number((r.spread * 1000).toPrecision(2))} ms of the grid)` : '';
  return `uniform ${Number(r.rate.toFixed(3))} Hz${jitter}`;
}

function flips(t: Track): number {
  const perKey = t.interpolation === 'cubicspline' ? 3 : 1;
  const at = perKey === 3 ? 4 : 0;
  let count = 0;
  for (let k = 1; k < t.times.length; k++) {
    const a = k * perKey * 4 + at;
    const b = (k - 1) * perKey * 4 + at;
    let d = 0;
    for (let i = 0; i < 4; i++) d += t.values[a + i] * t.values[b + i];
    if (d < 0) count++;
  }
  return count;
}
