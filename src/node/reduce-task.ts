// The `reduce` file task: read BVH or glTF, reduce every animation's keys within an error bound
// (reduceKeys), write glTF/GLB (rotations optionally as normalised 16-bit) or BVH at the kept frames.
import { basename, extname } from 'node:path';
import type { Animation, AnimationChannel, Document, Node } from '@gltf-transform/core';
import { OptionError } from '../errors.js';
import { withAttachedNodes } from '../io/gltf/attached.js';
import { setExponentialFilterCodes, setQuaternionFilterCodes } from '../io/gltf/meshopt.js';
import { quantizeRotations } from '../io/gltf/quantize.js';
import { skinShells } from '../io/gltf/skin-shells.js';
import { gltfSourceOf } from '../io/gltf/source.js';
import { writeClipsToDocument, writeGltf } from '../io/gltf/write.js';
import { writeBvhBytes } from '../io/index.js';
import { FLOAT_BITS, type RotationCodes, type TranslationCodes } from '../ops/reduce/reduce-bits.js';
import { type ReduceKeysReport, type ReduceTrackTarget, reduceKeys } from '../ops/reduce/reduce-keys.js';
import type { Clip, KeyedClip } from '../series/clip.js';
import { type AtomicContent, writeFileAtomic } from './atomic.js';
import { clipFormatOf, gltfScaleOf } from './clip-formats.js';
import { isGltfPath, readGltfFile, writeGltfFile } from './gltf.js';
import { outputFormat, warningText } from './gltf-task.js';
import { type FileTask, startResult, type TaskResult } from './task.js';

export type { ReduceEmit } from '../pipeline/steps.js';

/** One reduced animation of {@link ReduceSummary}. */
export interface ReducedAnimation {
  name: string;
  frames: number;
  report: ReduceKeysReport;
}

/** The data a reduce task returns: per animation, the reduction report; and the bytes written. */
export interface ReduceSummary {
  /** Units of the reported errors: the input file's (`'file units'` for glTF, `'BVH units'`). */
  units: string;
  animations: ReducedAnimation[];
  /** Size of the main output file (GLB, .gltf JSON or BVH). */
  bytes: number;
}

/**
 * Runs a reduce task; never throws (failures are in the result).
 *
 * BVH input: the clip is reduced in the file's units (presets use `unitsPerMeter` = 1 / `task.scale`,
 * 100 by default) and written as glTF with translations times `task.scale`, or as BVH at the kept frames
 * when every track kept the same uniformly spaced frames. glTF input: every animation (or
 * `task.animation`) is reduced on its own keys (`reduceKeys` on the keyed clip: each track keeps a subset
 * of its keys, times and values as stored, the error measured at every key time) and written back into
 * the same document, so meshes, skins and other animations are kept; morph-weight tracks stay as they were. Nodes
 * the animation moves without animating them (meshes, cameras, lights under an animated joint) are in
 * the bound too (`withAttachedNodes`).
 *
 * @example
 * const fail = (error: unknown) => ({ message: String(error) });
 * const r = await runReduceTask({ input: 'take.bvh', output: 'take.glb', steps: [], emit: { kind: 'reduce', options: { preset: 'acl' } } }, fail);
 */
export async function runReduceTask(
  task: FileTask,
  fail: (error: unknown) => TaskResult['error'],
): Promise<TaskResult> {
  const t0 = performance.now();
  const result = startResult(task);
  try {
    if (task.emit.kind !== 'reduce') throw new OptionError('runReduceTask: the task is not a reduce task');
    const options = task.emit.options;
    let compression = task.emit.compression ?? 'none';
    if (compression !== 'none' && compression !== 'meshopt')
      throw new OptionError(
        `runReduceTask: compression must be 'none' or 'meshopt', got ${String(compression)}`,
      );
    const format = outputFormat(task);
    const variable = options.quantization === 'variable';
    if (variable && format === 'bvh')
      throw new OptionError(
        "--quantize variable stores rotations with EXT_meshopt_compression's quaternion filter; write .glb or .gltf",
      );
    // variable bit rates exist only as the quaternion filter of EXT_meshopt_compression
    if (variable) compression = 'meshopt';
    if (compression === 'meshopt' && format === 'bvh')
      throw new OptionError('--meshopt compresses glTF buffers; BVH output has none (write .glb or .gltf)');
    const quantize = options.quantization === 'int16' || options.quantization === 'variable';
    // quaternion filter codes of each rotation track and exponential filter codes of each filtered
    // translation track (quantization 'variable'), by animation and target node (the objects, not
    // indices: the writer may drop an empty animation and shift the indices)
    const filterCodes = new Map<Animation, Map<Node, Int16Array>>();
    const codesOf = (animation: Animation) => {
      let m = filterCodes.get(animation);
      if (m === undefined) filterCodes.set(animation, (m = new Map()));
      return m;
    };
    const expCodes = new Map<Animation, Map<Node, Uint32Array>>();
    const expCodesOf = (animation: Animation) => {
      let m = expCodes.get(animation);
      if (m === undefined) expCodes.set(animation, (m = new Map()));
      return m;
    };
    // the rotation tracks no filter width holds, kept as float32, by animation and target node
    const floatRotations = new Map<Animation, Set<Node>>();
    const floatOf = (animation: Animation) => {
      let m = floatRotations.get(animation);
      if (m === undefined) floatRotations.set(animation, (m = new Set()));
      return m;
    };
    // a BVH input's codes and float tracks by joint: its document (a node per joint, in order) is made by the writer
    let jointCodes: RotationCodes[] = [];
    let jointTranslationCodes: TranslationCodes[] = [];
    let jointBits: number[] = [];
    const name = task.output && task.output !== '-' ? basename(task.output, extname(task.output)) : 'scene';
    const summary: ReduceSummary = { units: 'file units', animations: [], bytes: 0 };
    let doc: Document | null = null;
    let clips: KeyedClip[] = [];
    // the animations whose rotations are quantised (with --quantize)
    let animations: Animation[] = [];
    let scale = 1;
    if (!isGltfPath(task.input)) {
      // opened non-blocking and checked: a device or a silent pipe never hangs the task
      const parsed = clipFormatOf(task.input).read(task.input, {
        ...(task.positionMode ? { positionMode: task.positionMode } : {}),
        ...(task.template ? { template: task.template } : {}),
        ...(task.repair ? { repair: true } : {}),
      });
      result.warnings = parsed.warnings;
      const clip = parsed.clip;
      if (options.shellDistance === 'mesh')
        throw new OptionError('--shell mesh takes the shells from a skinned glTF mesh; a BVH file has none');
      scale = gltfScaleOf(task.input, task.scale);
      summary.units = clipFormatOf(task.input).name === 'BVH' ? 'BVH units' : 'file units';
      result.frames = clip.frames;
      result.joints = clip.skeleton.names.length;
      // translations are written times `scale`: their filter codes encode them so
      const reduced = reduceKeys(clip, { unitsPerMeter: 1 / scale, ...options, translationScale: scale });
      // a new document's nodes are the skeleton's joints, in order
      jointCodes = reduced.rotationCodes ?? [];
      jointTranslationCodes = reduced.translationCodes ?? [];
      jointBits = reduced.report.rotationBits ?? [];
      summary.animations.push({ name: clip.name ?? '', frames: clip.frames, report: reduced.report });
      result.outputFrames = maxKeys(reduced.clip);
      result.counts = { input: 'frames', output: 'keys' };
      if (format === 'bvh') {
        const frames = uniformKeptFrames(reduced.clip, clip);
        if (frames === null)
          throw new OptionError(
            'the kept keys are not the same uniformly spaced frames in every track, which BVH cannot hold; write .glb or .gltf',
          );
        const bvh = writeBvhBytes(framesOf(clip, reduced.clip, frames.step));
        summary.bytes = bvh.length;
        result.outputFrames = Math.floor((clip.frames - 1) / frames.step) + 1;
        result.counts = { input: 'frames', output: 'frames' };
        emit(task, result, bvh);
        result.data = summary;
        result.ok = true;
        return result;
      }
      clips = [reduced.clip];
    } else {
      if (format === 'bvh') throw new OptionError('reduce writes glTF inputs as .glb or .gltf');
      result.counts = { input: 'keys', output: 'keys' };
      const read = await readGltfFile(
        task.input,
        task.animation !== undefined
          ? { animation: /^\d+$/.test(task.animation) ? Number(task.animation) : task.animation }
          : {},
      );
      result.warnings = read.warnings.map(warningText);
      doc = read.document;
      const all = doc.getRoot().listAnimations();
      for (const keyed of read.clips) {
        result.joints = Math.max(result.joints, keyed.skeleton.names.length);
        if (!keyed.tracks.some((t) => t.path !== 'weights')) {
          clips.push(keyed);
          continue;
        }
        // on the keys themselves: the kept keys are a subset of each track's, times and values as stored;
        // nodes the animation moves without animating them (a mesh under a bone) are measured too
        const measured = withAttachedNodes(keyed).clip;
        // 16-bit and variable rotations are LINEAR or STEP: an animation with a CUBICSPLINE rotation keeps
        // float rotations (named), the file's other animations are quantised
        const cubic = quantize
          ? keyed.tracks.find((t) => t.path === 'rotation' && t.interpolation === 'cubicspline')
          : undefined;
        if (cubic !== undefined)
          result.warnings.push({
            code: 'float-rotations',
            message: `animation '${keyed.name ?? ''}' keeps float rotations: --quantize ${options.quantization} stores LINEAR and STEP rotations, and node '${keyed.skeleton.names[cubic.joint]}' has a CUBICSPLINE one`,
          });
        const reduced = reduceKeys(measured, {
          unitsPerMeter: 1,
          // a channel another animation of the file also drives keeps its key at rest (see keptAtRest)
          keepAtRest: keptAtRest(keyed, all),
          ...options,
          ...(cubic !== undefined ? { quantization: 'none' as const } : {}),
          ...(options.shellDistance === 'mesh' ? { meshShells: meshShellsOf(keyed, measured) } : {}),
        });
        dropChannels(keyed, reduced.clip, all);
        const from = gltfSourceOf(keyed);
        const nodeList = doc.getRoot().listNodes();
        for (const c of reduced.rotationCodes ?? [])
          if (from !== undefined && all[from.animation] && c.joint < from.nodes.length)
            codesOf(all[from.animation]).set(nodeList[from.nodes[c.joint]], c.codes);
        for (const c of reduced.translationCodes ?? [])
          if (from !== undefined && all[from.animation] && c.joint < from.nodes.length)
            expCodesOf(all[from.animation]).set(nodeList[from.nodes[c.joint]], c.codes);
        (reduced.report.rotationBits ?? []).forEach((bits, j) => {
          if (bits === FLOAT_BITS && from !== undefined && all[from.animation] && j < from.nodes.length)
            floatOf(all[from.animation]).add(nodeList[from.nodes[j]]);
        });
        result.frames = Math.max(result.frames, maxKeys(keyed));
        clips.push(
          measured === keyed
            ? reduced.clip
            : {
                ...reduced.clip,
                skeleton: keyed.skeleton,
                orders: keyed.orders,
                ...(keyed.source !== undefined ? { source: keyed.source } : {}),
              },
        );
        const source = keyed.source as { animation?: number } | undefined;
        if (source?.animation !== undefined && all[source.animation] && cubic === undefined)
          animations.push(all[source.animation]);
        summary.animations.push({
          name: keyed.name ?? '',
          frames: maxKeys(keyed),
          report: reduced.report,
        });
        result.outputFrames = Math.max(result.outputFrames, maxKeys(reduced.clip));
      }
    }
    // the clips go into the document, which is quantised and then serialised once
    const keyedOut = writeClipsToDocument(doc, clips, { scale });
    // what the writer left out (channels without keys, animations left empty) is said, not dropped silently
    result.warnings.push(...keyedOut.warnings.map(warningText));
    if (doc === null) {
      animations = keyedOut.document.getRoot().listAnimations();
      const nodes = keyedOut.document.getRoot().listNodes();
      for (const c of jointCodes) codesOf(animations[0]).set(nodes[c.joint], c.codes);
      for (const c of jointTranslationCodes) expCodesOf(animations[0]).set(nodes[c.joint], c.codes);
      jointBits.forEach((bits, j) => {
        if (bits === FLOAT_BITS) floatOf(animations[0]).add(nodes[j]);
      });
    }
    const keepFloat = (channel: AnimationChannel, animation: Animation) => {
      const node = channel.getTargetNode();
      return node !== null && floatRotations.get(animation)?.has(node) === true;
    };
    if (quantize) quantizeRotations(keyedOut.document, animations, keepFloat);
    if (variable) storeFilterCodes(animations, filterCodes, expCodes, keepFloat);
    if (task.output === '-' || task.output === null) {
      const out = await writeGltf(keyedOut.document, [], {
        format: format === 'gltf' ? 'gltf' : 'glb',
        basename: name,
        compression,
      });
      const content = out.glb ?? `${JSON.stringify(out.json, null, 2)}\n`;
      summary.bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
      emit(task, result, content);
    } else {
      const out = await writeGltfFile(task.output, keyedOut.document, [], { compression });
      summary.bytes = out.glb?.length ?? Buffer.byteLength(`${JSON.stringify(out.json, null, 2)}\n`);
    }
    result.data = summary;
    result.ok = true;
  } catch (error) {
    result.error = fail(error);
  }
  result.ms = performance.now() - t0;
  return result;
}

/**
 * Hands each rotation output of `animations` its quaternion filter codes (by animation and target node),
 * except the channels kept as float32, and each translation output that has exponential filter codes
 * those (the others are float32 tracks; a translation's values are the codes' decoded values either way).
 */
function storeFilterCodes(
  animations: Animation[],
  codes: Map<Animation, Map<Node, Int16Array>>,
  expCodes: Map<Animation, Map<Node, Uint32Array>>,
  keepFloat: (channel: AnimationChannel, animation: Animation) => boolean,
): void {
  for (const animation of animations) {
    for (const channel of animation.listChannels()) {
      const node = channel.getTargetNode();
      const output = channel.getSampler()?.getOutput();
      if (node === null || !output) continue;
      if (channel.getTargetPath() === 'translation') {
        const c = expCodes.get(animation)?.get(node);
        if (c !== undefined) setExponentialFilterCodes(output, c);
        continue;
      }
      if (channel.getTargetPath() !== 'rotation') continue;
      if (keepFloat(channel, animation)) continue;
      const c = codes.get(animation)?.get(node);
      if (c === undefined)
        throw new OptionError(
          `--quantize variable: the rotation of node '${node.getName()}' has no bit width (a track the reduction did not see)`,
        );
      setQuaternionFilterCodes(output, c);
    }
  }
}

/**
 * The tracks of `keyed` whose node and path another animation of its document animates too: they keep
 * their one key even at the rest value. A player may hold the value that other animation left (many
 * do; three.js restores the value it saved when its mixer releases the property, but one animation
 * still playing blends against whatever the node holds), so the channel keeps this animation's pose.
 */
function keptAtRest(keyed: KeyedClip, all: Animation[]): ReduceTrackTarget[] {
  const source = gltfSourceOf(keyed);
  if (source === undefined) return [];
  const nodes = source.document.getRoot().listNodes();
  const elsewhere = new Set<string>();
  all.forEach((anim, a) => {
    if (a === source.animation) return;
    for (const ch of anim.listChannels()) {
      const node = ch.getTargetNode();
      if (node !== null) elsewhere.add(`${nodes.indexOf(node)} ${ch.getTargetPath()}`);
    }
  });
  const out: ReduceTrackTarget[] = [];
  for (const t of keyed.tracks)
    if (t.path !== 'weights' && elsewhere.has(`${source.nodes[t.joint]} ${t.path}`))
      out.push({ joint: t.joint, path: t.path });
  return out;
}

/** {@link skinShells} of `keyed`, NaN for the joints `measured` appends (attached nodes: the default shell). */
function meshShellsOf(keyed: KeyedClip, measured: KeyedClip): Float64Array {
  const out = new Float64Array(measured.skeleton.names.length).fill(Number.NaN);
  out.set(skinShells(keyed));
  return out;
}

/**
 * Removes from `keyed`'s animation in the document the channels of the tracks the reduction dropped
 * (constant at the rest value: `reduced` has no track for them), with their samplers and accessors when
 * nothing else uses them; the write-back leaves channels it has no track for as they are.
 */
function dropChannels(keyed: KeyedClip, reduced: KeyedClip, all: Animation[]): void {
  const source = gltfSourceOf(keyed);
  if (source === undefined) return;
  const anim = all[source.animation];
  if (anim === undefined) return;
  const nodes = source.document.getRoot().listNodes();
  const kept = new Set<string>();
  for (const t of reduced.tracks) kept.add(`${source.nodes[t.joint]} ${t.path}`);
  const gone = new Set<string>();
  for (const t of keyed.tracks)
    if (t.path !== 'weights' && !kept.has(`${source.nodes[t.joint]} ${t.path}`))
      gone.add(`${source.nodes[t.joint]} ${t.path}`);
  if (gone.size === 0) return;
  for (const ch of anim.listChannels()) {
    const node = ch.getTargetNode();
    if (node === null || !gone.has(`${nodes.indexOf(node)} ${ch.getTargetPath()}`)) continue;
    const sampler = ch.getSampler();
    ch.dispose();
    if (sampler === null || anim.listChannels().some((c) => c.getSampler() === sampler)) continue;
    const input = sampler.getInput();
    const output = sampler.getOutput();
    sampler.dispose();
    for (const a of [input, output]) if (a !== null && a.listParents().length <= 1) a.dispose();
  }
}

function emit(task: FileTask, result: TaskResult, content: AtomicContent): void {
  if (task.output === '-' || task.output === null) {
    result.stdout =
      typeof content === 'string' || content instanceof Uint8Array ? content : [...content].join('');
  } else writeFileAtomic(task.output, content);
}

function maxKeys(clip: KeyedClip): number {
  let n = 0;
  for (const t of clip.tracks) n = Math.max(n, t.times.length);
  return n;
}

/**
 * The kept frames when every track of `keyed` with more than one key kept the same frames `0, step, ...,
 * last` (so a BVH at `step` times the frame time plays them), else null. One-key tracks are constant.
 */
function uniformKeptFrames(keyed: KeyedClip, clip: Clip): { start: number; step: number } | null {
  const moving = keyed.tracks.filter((t) => t.times.length > 1);
  if (moving.length === 0 || clip.frames < 2) return { start: 0, step: Math.max(1, clip.frames - 1) };
  const first = moving[0].times;
  for (const t of moving) {
    if (t.interpolation !== 'linear' || t.times.length !== first.length) return null;
    for (let k = 0; k < first.length; k++) if (t.times[k] !== first[k]) return null;
  }
  const t0 = clip.startTime ?? 0;
  const frame = (time: number) => Math.round((time - t0) / clip.frameTime);
  const step = frame(first[1]) - frame(first[0]);
  for (let k = 0; k < first.length; k++) if (frame(first[k]) !== k * step) return null;
  if (frame(first[first.length - 1]) !== clip.frames - 1) return null;
  return { start: 0, step };
}

/**
 * `clip` at frames `0, step, ...`, each track's values taken from the reduced keys (so the BVH holds what
 * the bound was checked on: 16-bit rotations when quantised, one-key tracks held constant).
 */
function framesOf(clip: Clip, keyed: KeyedClip, step: number): Clip {
  const J = clip.skeleton.names.length;
  const n = Math.floor((clip.frames - 1) / step) + 1;
  const pick = (data: Float64Array | Float32Array, w: number) => {
    const out = new Float64Array(n * J * w);
    for (let i = 0; i < n; i++) out.set(data.subarray(i * step * J * w, (i * step + 1) * J * w), i * J * w);
    return out;
  };
  const rotations = pick(clip.rotations.data, 4);
  const translations = pick(clip.translations.data, 3);
  const scales = clip.scales ? pick(clip.scales.data, 3) : undefined;
  for (const t of keyed.tracks) {
    const dst = t.path === 'rotation' ? rotations : t.path === 'translation' ? translations : scales;
    if (dst === undefined || t.path === 'weights') continue;
    const w = t.width;
    for (let i = 0; i < n; i++) {
      const k = t.times.length === 1 ? 0 : i;
      for (let c = 0; c < w; c++) dst[(i * J + t.joint) * w + c] = t.values[k * w + c];
    }
  }
  return {
    ...clip,
    frames: n,
    frameTime: clip.frameTime * step,
    rate: clip.rate / step,
    rotations: { ...clip.rotations, data: rotations, frames: n },
    translations: { ...clip.translations, data: translations, frames: n },
    ...(scales && clip.scales ? { scales: { ...clip.scales, data: scales, frames: n } } : {}),
  };
}
