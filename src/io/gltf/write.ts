import {
  type Animation,
  type AnimationSampler,
  Document,
  type Extension,
  Format,
  type GLTF,
  Logger,
  type Node,
  WebIO,
} from '@gltf-transform/core';
import { OptionError } from '../../errors.js';
import {
  anyOf,
  customRule,
  FUNCTION_OPTION,
  frozenDefaults,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { Clip, KeyedClip, Skeleton, Track } from '../../series/clip.js';
import { assertClip, assertSkeleton } from '../../series/clip-create.js';
import { matchesAccessor } from './decode.js';
import { GltfError, type GltfWarning } from './errors.js';
import {
  checkDraco,
  type GltfDependencies,
  KHR_DRACO_MESH_COMPRESSION,
  registeredExtensions,
} from './extensions.js';
import { glbBytes, keepImageUris, keepNodeTransforms } from './glb-json.js';
import { EXT_MESHOPT_COMPRESSION, EXTMeshoptCompression, meshoptReady } from './meshopt.js';
import { type GltfSource, gltfInterpolation, gltfSourceOf } from './source.js';
import {
  continuous,
  disposeIfUnused,
  InputCache,
  negatedKeys,
  outputAccessor,
  storedSubset,
} from './write-accessors.js';
import { checkTracks, checkValues } from './write-checks.js';

/** Options of {@link writeGltf}. */
export interface WriteGltfOptions {
  /** `'glb'`: one binary file (`result.glb`); `'gltf'`: JSON (`result.json`) plus `result.resources`. */
  format?: 'glb' | 'gltf';
  /** Base name of the buffer file of the `'gltf'` format (`<basename>.bin`). */
  basename?: string;
  /**
   * Factor applied to the translations (rest and keyed) of clips that get a new document (clips without
   * a glTF source, e.g. BVH): `0.01` turns centimetres into glTF's metres. Clips written back into their
   * own document are never scaled.
   */
  scale?: number;
  /**
   * How a {@link Clip} (a uniform series, not keyed) becomes keys: the function is given the clip and
   * returns a keyed clip; the default keys every frame with LINEAR interpolation.
   */
  keys?: ((clip: Clip) => KeyedClip) | 'every-frame';
  /**
   * Channels whose sampler has no keys, animations left without channels (which the glTF
   * specification does not allow: the validator reports them as errors), and channels of a path other
   * than translation, rotation, scale and weights that carry no `KHR_animation_pointer` target:
   * `'remove'` drops them with a warning, `'keep'` writes them as they are. `KHR_animation_pointer`
   * channels read with their pointer are always kept, with a warning.
   */
  empty?: 'remove' | 'keep';
  /**
   * Buffer compression: `'keep'` writes as the document has it (a document read from an
   * `EXT_meshopt_compression` or `KHR_draco_mesh_compression` file is compressed again, Draco with its
   * encoder's default settings), `'meshopt'` compresses every accessor with `EXT_meshopt_compression`
   * (lossless on the stored values; see {@link EXTMeshoptCompression}), `'none'` writes plain buffers
   * (and meshes without Draco).
   */
  compression?: 'keep' | 'none' | 'meshopt';
  /**
   * Modules extensions need ({@link GltfDependencies}): a document with `KHR_draco_mesh_compression`
   * needs `'draco3d.encoder'` unless `compression` is `'none'` (a {@link GltfError} without it);
   * `rotsig/node`'s `writeGltfFile` gives it.
   */
  dependencies?: GltfDependencies;
}

/** Defaults of {@link WriteGltfOptions} (frozen). */
export const WRITE_GLTF_DEFAULTS: Readonly<Required<WriteGltfOptions>> = frozenDefaults({
  format: 'glb',
  basename: 'scene',
  scale: 1,
  keys: 'every-frame',
  empty: 'remove',
  compression: 'keep',
  dependencies: {},
});

const WRITE_GLTF_SPEC: OptionSpec = {
  format: oneOf(['glb', 'gltf']),
  basename: customRule(
    'a file name without directories',
    (v) => typeof v === 'string' && v !== '' && !/[/\\]/.test(v),
  ),
  scale: POSITIVE_NUMBER,
  keys: anyOf(oneOf(['every-frame']), FUNCTION_OPTION),
  empty: oneOf(['remove', 'keep']),
  compression: oneOf(['keep', 'none', 'meshopt']),
  dependencies: OBJECT_OPTION,
};

/** What {@link writeGltf} returns: GLB bytes, or JSON with its resources (by URI). */
export interface GltfWriteResult {
  glb?: Uint8Array;
  json?: GLTF.IGLTF;
  resources?: Record<string, Uint8Array>;
  /** The document that was written (the given one, modified, or a new one). */
  document: Document;
  warnings: GltfWarning[];
}

/**
 * Writes keyed clips as glTF 2.0: back into the document they were read from, or into a new document.
 *
 * A clip read by {@link readGltf} (its `source` is a `GltfSource`) replaces the channels of its own
 * animation in `doc` (the reader's document when `doc` is null, or a document that matches it, such as
 * the same file read again: the animation at the same index with the same name, the joints' nodes at
 * the same indices with the same names; the animation count never grows): for each of its tracks, the channel on
 * the same node and path gets a sampler with the track's keys; a track that has not changed (same
 * interpolation, times and values as the stored accessors, rotations already sign-continuous) keeps its
 * sampler and accessors untouched, so CUBICSPLINE and quantized outputs survive. Channels the clip has
 * no track for stay as they were, and so do meshes, skins, materials, textures, extensions and every
 * other animation. `doc` is modified in place.
 *
 * Every written STEP or LINEAR rotation track is sign-continuous (each key's quaternion is negated when
 * its dot product with the previous key's is negative), which changes no rotation and makes slerp and
 * nlerp players agree. CUBICSPLINE rotations are written with their signs as given: the Hermite curve
 * runs through the stored components, so a negated key (tangents with it) would play another motion. Equal key times share one input accessor; input accessors
 * get `min`/`max`; outputs are FLOAT.
 *
 * Any other clip (BVH, made in code) goes into a new document (or `doc` when given): a node per joint
 * with its rest transform (translations times `scale`), a scene of the roots, and one animation; no
 * mesh. A {@link Clip} is keyed at every frame (LINEAR), unless `options.keys` says otherwise.
 *
 * A clip read from another document that `doc` does not match is written as new only into a document
 * without nodes and animations; otherwise it is a {@link GltfError} naming the mismatch (never a
 * second skeleton beside the first). Every extension glTF-Transform supports is written back
 * (see {@link registeredExtensions}); Draco needs `options.dependencies`.
 *
 * @param options - Defaults in {@link WRITE_GLTF_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {GltfError} (code `'gltf-write'`) when a track's times are not finite and strictly
 * increasing after rounding to float32, a value is not finite, or its shape does not fit; nothing is
 * written then. @throws {OptionError} on an unknown option.
 * @example
 * const { document, clips } = await readGltf(bytes);
 * const { glb } = await writeGltf(document, clips);
 */
export async function writeGltf(
  doc: Document | null,
  clips: readonly (KeyedClip | Clip)[],
  options: WriteGltfOptions = {},
): Promise<GltfWriteResult> {
  const opts = resolveOptions('writeGltf', options, WRITE_GLTF_DEFAULTS, WRITE_GLTF_SPEC);
  const { document: target, warnings } = placeClips('writeGltf', doc, clips, opts);
  const meshopt = target
    .getRoot()
    .listExtensionsUsed()
    .find((e) => e.extensionName === EXT_MESHOPT_COMPRESSION);
  if (opts.compression === 'none') {
    meshopt?.dispose();
    for (const e of target.getRoot().listExtensionsUsed())
      if (e.extensionName === KHR_DRACO_MESH_COMPRESSION) e.dispose();
  } else if (opts.compression === 'meshopt' && !(meshopt instanceof EXTMeshoptCompression)) {
    meshopt?.dispose();
    target.createExtension(EXTMeshoptCompression).setRequired(true);
  }
  if (
    target
      .getRoot()
      .listExtensionsUsed()
      .some((e) => e instanceof EXTMeshoptCompression)
  )
    await meshoptReady('encoder');
  const used = target.getRoot().listExtensionsUsed();
  checkDraco(
    used.map((e) => e.extensionName),
    opts.dependencies,
    'write',
  );
  const io = new WebIO().setLogger(new Logger(Logger.Verbosity.ERROR));
  io.registerExtensions(registeredExtensions(used.map((e) => e.constructor as typeof Extension)));
  io.registerDependencies(opts.dependencies);
  const root = target.getRoot();
  // a buffer is written only when something is stored in it: an empty one would be a GLB without its
  // BIN chunk, or a zero-length .bin, which glTF does not allow and no reader accepts
  const stored =
    root.listAccessors().length > 0 ||
    (opts.format === 'glb' && root.listTextures().some((t) => t.getImage() !== null));
  if (!stored) for (const b of root.listBuffers()) b.dispose();
  else if (root.listBuffers().length === 0) target.createBuffer();
  const buffers = target.getRoot().listBuffers();
  if (opts.format === 'glb' && buffers.length > 1) {
    // GLB holds one buffer: move every accessor to the first
    for (const accessor of target.getRoot().listAccessors()) accessor.setBuffer(buffers[0]);
    for (const b of buffers.slice(1)) b.dispose();
  }
  if (opts.format === 'glb') {
    const textures = target.getRoot().listTextures();
    const json = await io.writeJSON(target, { format: Format.GLB, basename: opts.basename });
    keepImageUris(json.json, textures);
    keepNodeTransforms(json.json, target.getRoot().listNodes());
    return { glb: glbBytes(json.json, Object.values(json.resources)[0]), document: target, warnings };
  }
  // buffers are named after the output, so two outputs in one folder never share a .bin
  const named = target.getRoot().listBuffers();
  for (let i = 0; i < named.length; i++) named[i].setURI(`${opts.basename}${i ? `_${i}` : ''}.bin`);
  const out = await io.writeJSON(target, { basename: opts.basename });
  keepImageUris(out.json, target.getRoot().listTextures());
  keepNodeTransforms(out.json, target.getRoot().listNodes());
  // images that came from files and are unchanged are the caller's to copy; only new data is returned
  return { json: out.json, resources: out.resources, document: target, warnings };
}

/**
 * Writes `clips` into `doc` (or the reader's document, or a new one) as {@link writeGltf} does, without
 * serialising it: for a caller that changes the document further (quantises its rotations) before
 * writing it once. Options as {@link writeGltf}'s (`format` and `basename` play no part).
 *
 * @throws as {@link writeGltf} does before it serialises.
 * @internal
 */
export function writeClipsToDocument(
  doc: Document | null,
  clips: readonly (KeyedClip | Clip)[],
  options: WriteGltfOptions = {},
): { document: Document; warnings: GltfWarning[] } {
  const opts = resolveOptions('writeClipsToDocument', options, WRITE_GLTF_DEFAULTS, WRITE_GLTF_SPEC);
  return placeClips('writeClipsToDocument', doc, clips, opts);
}

/** The clips written into the target document (see {@link writeGltf}); `where` names the caller in errors. */
function placeClips(
  where: string,
  doc: Document | null,
  clips: readonly (KeyedClip | Clip)[],
  opts: Required<WriteGltfOptions>,
): { document: Document; warnings: GltfWarning[] } {
  if (!Array.isArray(clips)) throw new OptionError(`${where}: clips must be an array`);
  if (doc !== null && !(doc instanceof Document)) {
    throw new OptionError(`${where}: doc must be a glTF-Transform Document or null (a new document)`);
  }
  const warnings: GltfWarning[] = [];
  const keyed = clips.map((c, i) => toKeyed(c, i, opts));
  for (let i = 0; i < keyed.length; i++) {
    // the node tree is built from the skeleton: parents in range and before their children
    assertSkeleton(keyed[i].skeleton, `${where}: clips[${i}].skeleton`);
    checkTracks(keyed[i], i);
  }
  let target = doc;
  for (const c of keyed) {
    const s = gltfSourceOf(c);
    if (s === undefined) continue;
    if (target === null) target = s.document;
  }
  if (target === null) target = new Document();
  const nodeIndex = new Map<Node, number>();
  for (const [i, node] of target.getRoot().listNodes().entries()) nodeIndex.set(node, i);
  // samplers no channel used before writing are the file's own (glTF allows them): kept as they are
  const unusedBefore = unusedSamplers(target);
  // clips read from this document, or from a copy of it (the same file read again): their animation is replaced
  const back = keyed.map((c, i) => writesBack(c, i, target));
  // tracks whose stored keys already are what would be written: they are left as they are, unchecked
  const untouched = new Set<Track>();
  // listed once: listing them per clip made writing n animations O(n²)
  const animations = target.getRoot().listAnimations();
  for (let i = 0; i < keyed.length; i++)
    if (back[i]) findUntouched(animations, keyed[i], nodeIndex, untouched);
  for (let i = 0; i < keyed.length; i++) checkValues(keyed[i], i, untouched);
  const cache = new InputCache(target);
  for (let i = 0; i < keyed.length; i++) {
    const c = keyed[i];
    if (back[i]) {
      if (!c.tracks.every((t) => untouched.has(t)))
        writeBack(target, animations, c, cache, nodeIndex, untouched);
    } else writeNew(target, c, opts.scale, cache);
  }
  if (opts.empty === 'remove') removeEmpty(target, warnings, unusedBefore);
  return { document: target, warnings };
}

function isKeyed(c: KeyedClip | Clip): c is KeyedClip {
  return c !== null && typeof c === 'object' && Array.isArray((c as KeyedClip).tracks);
}

function toKeyed(c: KeyedClip | Clip, index: number, opts: Required<WriteGltfOptions>): KeyedClip {
  if (isKeyed(c)) return c;
  if (c === null || typeof c !== 'object' || !('rotations' in c))
    throw new GltfError(
      `clip ${index} is neither a KeyedClip nor a Clip`,
      { animation: index },
      'gltf-write',
    );
  assertClip(c, `writeGltf: clips[${index}]`);
  const keyed = typeof opts.keys === 'function' ? opts.keys(c) : everyFrame(c);
  if (!isKeyed(keyed))
    throw new GltfError(
      `options.keys returned no KeyedClip for clip ${index}`,
      { animation: index },
      'gltf-write',
    );
  return keyed;
}

/** A uniform clip keyed at every frame, LINEAR, on the joints and components it animates. */
function everyFrame(clip: Clip): KeyedClip {
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  const times = new Float64Array(F);
  const start = clip.startTime ?? 0;
  for (let f = 0; f < F; f++) times[f] = start + f * clip.frameTime;
  const tracks: Track[] = [];
  const take = (series: { data: ArrayLike<number> }, j: number, width: number): Float64Array => {
    const out = new Float64Array(F * width);
    for (let f = 0; f < F; f++)
      for (let k = 0; k < width; k++) out[f * width + k] = series.data[(f * J + j) * width + k];
    return out;
  };
  for (let j = 0; j < J; j++) {
    const a = clip.animated[j];
    if (a & 1)
      tracks.push({
        joint: j,
        path: 'translation',
        interpolation: 'linear',
        times,
        values: take(clip.translations, j, 3),
        width: 3,
      });
    if (a & 2)
      tracks.push({
        joint: j,
        path: 'rotation',
        interpolation: 'linear',
        times,
        values: take(clip.rotations, j, 4),
        width: 4,
      });
    if (a & 4 && clip.scales)
      tracks.push({
        joint: j,
        path: 'scale',
        interpolation: 'linear',
        times,
        values: take(clip.scales, j, 3),
        width: 3,
      });
  }
  return {
    ...(clip.name !== undefined ? { name: clip.name } : {}),
    skeleton: clip.skeleton,
    tracks,
    orders: clip.orders,
    ...(clip.source !== undefined ? { source: clip.source } : {}),
  };
}

/**
 * Whether a clip is written back into `target`'s animation (true) or as a new node tree and animation
 * (false). A clip read from `target` is written back; so is one read from another document that
 * `target` matches (the same file read again, or a copy): an animation at the source's index with its
 * name, and at each joint's node index a node the reader names as the joint. A clip from another
 * document that `target` does not match goes into `target` as new only when `target` has no nodes and
 * no animations; otherwise it would add a second skeleton and a second animation of the same name, so
 * it is a {@link GltfError} naming the mismatch.
 */
function writesBack(clip: KeyedClip, index: number, target: Document): boolean {
  const s = gltfSourceOf(clip);
  if (s === undefined) return false;
  if (s.document === target) return true;
  const mismatch = sourceMismatch(target, clip, s);
  if (mismatch === null) return true;
  const root = target.getRoot();
  if (root.listNodes().length === 0 && root.listAnimations().length === 0) return false;
  throw new GltfError(
    `clip ${index}${clip.name ? ` ('${clip.name}')` : ''} was read from another document${s.file ? ` (${s.file})` : ''}, which this one does not match: ${mismatch}; write it into its own document (doc null), the same file read again, or a new Document()`,
    { animation: index },
    'gltf-write',
  );
}

/** Why `target` is not the document a clip was read from (see {@link writesBack}), or null when it is. */
function sourceMismatch(target: Document, clip: KeyedClip, s: GltfSource): string | null {
  const root = target.getRoot();
  const anim = root.listAnimations()[s.animation];
  if (anim === undefined) return `it has no animation ${s.animation}`;
  if (anim.getName() !== s.animationName)
    return `its animation ${s.animation} is named '${anim.getName()}', not '${s.animationName}'`;
  const nodes = root.listNodes();
  const names = clip.skeleton.names;
  for (let j = 0; j < names.length; j++) {
    const n = s.nodes[j];
    const node = nodes[n];
    if (node === undefined) return `it has no node ${n} (joint '${names[j]}')`;
    const name = node.getName();
    // the reader names an unnamed node node<index> and a repeated name <name>_<index>
    if (names[j] !== (name || `node${n}`) && names[j] !== `${name}_${n}`)
      return `its node ${n} is '${name}', not joint '${names[j]}'`;
  }
  return null;
}

type Channel = ReturnType<Animation['listChannels']>[number];

const PATHS = ['translation', 'rotation', 'scale', 'weights'];

/** One number per node and path, the key of a channel in {@link channelsOf}' map. */
function channelKey(node: number, path: number): number {
  return node * 4 + path;
}

/** The clip's animation in `doc` and its first channel per node and path (key {@link channelKey}). */
function channelsOf(
  animations: Animation[],
  clip: KeyedClip,
  nodeIndex: Map<Node, number>,
): { anim: Animation; channels: Map<number, Channel> } {
  const source = gltfSourceOf(clip)!;
  const anim = animations[source.animation];
  if (anim === undefined)
    throw new GltfError(
      `the document has no animation ${source.animation} any more`,
      { animation: source.animation },
      'gltf-write',
    );
  const channels = new Map<number, Channel>();
  for (const ch of anim.listChannels()) {
    const node = ch.getTargetNode();
    const path = PATHS.indexOf(ch.getTargetPath() as string);
    if (node === null || path < 0) continue;
    const key = channelKey(nodeIndex.get(node) as number, path);
    if (!channels.has(key)) channels.set(key, ch);
  }
  return { anim, channels };
}

/**
 * Adds to `untouched` the tracks of a clip written back whose channel's sampler already holds exactly
 * the track (interpolation, times, and values as the reader decodes them, sign-continuous): writing
 * them would change nothing, so they are skipped.
 */
function findUntouched(
  animations: Animation[],
  clip: KeyedClip,
  nodeIndex: Map<Node, number>,
  untouched: Set<Track>,
): void {
  const source = gltfSourceOf(clip)!;
  const { channels } = channelsOf(animations, clip, nodeIndex);
  for (const t of clip.tracks) {
    const s = channels.get(channelKey(source.nodes[t.joint], PATHS.indexOf(t.path)))?.getSampler();
    const input = s?.getInput();
    const output = s?.getOutput();
    if (!s || !input || !output || s.getInterpolation() !== gltfInterpolation(t.interpolation)) continue;
    if (!matchesAccessor(input, t.times, 'times', 1)) continue;
    if (matchesAccessor(output, continuous(t), t.path, t.interpolation === 'cubicspline' ? 3 : 1))
      untouched.add(t);
  }
}

function writeBack(
  doc: Document,
  animations: Animation[],
  clip: KeyedClip,
  cache: InputCache,
  nodeIndex: Map<Node, number>,
  untouched: Set<Track>,
): void {
  const source = gltfSourceOf(clip)!;
  const nodes = doc.getRoot().listNodes();
  const { anim, channels } = channelsOf(animations, clip, nodeIndex);
  const samplerUsers = new Map<AnimationSampler, number>();
  for (const ch of anim.listChannels()) {
    const s = ch.getSampler();
    if (s) samplerUsers.set(s, (samplerUsers.get(s) ?? 0) + 1);
  }
  for (const t of clip.tracks) {
    if (untouched.has(t)) continue;
    const index = source.nodes[t.joint];
    const node = nodes[index];
    if (node === undefined)
      throw new GltfError(
        `joint ${t.joint} names node ${index}, which the document no longer has`,
        { animation: source.animation },
        'gltf-write',
      );
    const values = continuous(t);
    const ch = channels.get(channelKey(index, PATHS.indexOf(t.path)));
    if (ch !== undefined) {
      const s = ch.getSampler()!;
      const perKey = t.interpolation === 'cubicspline' ? 3 : 1;
      const oldIn = s.getInput();
      const oldOut = s.getOutput();
      const sameTimes =
        oldIn !== null &&
        oldOut !== null &&
        s.getInterpolation() === gltfInterpolation(t.interpolation) &&
        matchesAccessor(oldIn, t.times, 'times', 1);
      // only signs changed: negate the stored keys in their own component type (exact for quantized outputs too)
      const same = sameTimes && values !== t.values && matchesAccessor(oldOut, t.values, t.path, perKey);
      const input = same ? oldIn : cache.get(t.times, oldIn);
      // an output only this sampler (used by this channel alone) reads is rewritten in place
      const shared = (samplerUsers.get(s) ?? 0) > 1;
      const reuse =
        !shared && oldOut !== null && oldOut !== oldIn && oldOut.listParents().length <= 2 ? oldOut : null;
      // kept keys of a quantized output (KHR_mesh_quantization) stay in its component type, exactly
      const kept =
        !same &&
        oldIn !== null &&
        oldOut !== null &&
        s.getInterpolation() === gltfInterpolation(t.interpolation)
          ? storedSubset(doc, oldIn, oldOut, t)
          : null;
      const output = same
        ? negatedKeys(doc, oldOut, t, values, reuse)
        : kept !== null
          ? values === t.values
            ? kept
            : negatedKeys(doc, kept, t, values, kept)
          : outputAccessor(doc, values, t.width, reuse);
      const sampler = shared ? doc.createAnimationSampler() : s;
      sampler.setInput(input).setOutput(output).setInterpolation(gltfInterpolation(t.interpolation));
      if (sampler !== s) {
        anim.addSampler(sampler);
        ch.setSampler(sampler);
        samplerUsers.set(s, (samplerUsers.get(s) ?? 1) - 1);
      }
      if (oldIn !== input) disposeIfUnused(oldIn);
      if (oldOut !== output) disposeIfUnused(oldOut);
    } else {
      addChannel(doc, anim, node, t, values, cache);
    }
  }
}

function addChannel(
  doc: Document,
  anim: Animation,
  node: Node,
  t: Track,
  values: ArrayLike<number>,
  cache: InputCache,
): void {
  const sampler = doc
    .createAnimationSampler()
    .setInput(cache.get(t.times))
    .setOutput(outputAccessor(doc, values, t.width))
    .setInterpolation(gltfInterpolation(t.interpolation));
  anim.addSampler(sampler);
  anim.addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(t.path).setSampler(sampler));
}

/** A new node tree for the skeleton (translations times `scale`), a scene, and the animation. */
function writeNew(doc: Document, clip: KeyedClip, scale: number, cache: InputCache): void {
  const sk: Skeleton = clip.skeleton;
  const J = sk.names.length;
  const nodes: Node[] = [];
  for (let j = 0; j < J; j++) {
    const t = sk.restTranslations;
    const r = sk.restRotations;
    const s = sk.restScales;
    const node = doc
      .createNode(sk.names[j])
      .setTranslation([t[j * 3] * scale, t[j * 3 + 1] * scale, t[j * 3 + 2] * scale])
      .setRotation([r[j * 4], r[j * 4 + 1], r[j * 4 + 2], r[j * 4 + 3]])
      .setScale([s[j * 3], s[j * 3 + 1], s[j * 3 + 2]]);
    nodes.push(node);
    const p = sk.parents[j];
    if (p >= 0) nodes[p].addChild(node);
  }
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0] ?? doc.createScene(clip.name ?? 'Scene');
  if (root.getDefaultScene() === null) root.setDefaultScene(scene);
  for (let j = 0; j < J; j++) if (sk.parents[j] < 0) scene.addChild(nodes[j]);
  const anim = doc.createAnimation(clip.name ?? '');
  for (const t of clip.tracks) {
    let values = continuous(t);
    if (t.path === 'translation' && scale !== 1) {
      const v = Float64Array.from(values as ArrayLike<number>);
      for (let i = 0; i < v.length; i++) v[i] *= scale;
      values = v;
    }
    addChannel(doc, anim, nodes[t.joint], t, values, cache);
  }
}

/** Samplers of the document that no channel uses and whose accessors hold keys. */
function unusedSamplers(doc: Document): Set<AnimationSampler> {
  const out = new Set<AnimationSampler>();
  for (const anim of doc.getRoot().listAnimations()) {
    const used = new Set<AnimationSampler | null>();
    for (const ch of anim.listChannels()) used.add(ch.getSampler());
    for (const s of anim.listSamplers())
      if (!used.has(s) && (s.getInput()?.getCount() ?? 0) > 0 && (s.getOutput()?.getCount() ?? 0) > 0)
        out.add(s);
  }
  return out;
}

/**
 * Drops channels without keys and animations without channels (a documented repair, with warnings), and
 * the samplers writing left without a channel; samplers in `keep` (unused in the file as read) stay unless
 * their animation goes (glTF requires a channel per animation).
 */
function removeEmpty(doc: Document, warnings: GltfWarning[], keep: Set<AnimationSampler>): void {
  const animations = doc.getRoot().listAnimations();
  animations.forEach((anim, a) => {
    let removed = 0;
    let pointers = 0;
    let kept = 0;
    for (const ch of anim.listChannels()) {
      const path = ch.getTargetPath() as string;
      if (path !== 'translation' && path !== 'rotation' && path !== 'scale' && path !== 'weights') {
        // a KHR_animation_pointer channel read with its pointer is written back as it is; any other
        // path has nothing glTF-Transform can write valid
        if (path === 'pointer' && ch.getExtension('KHR_animation_pointer') !== null) {
          kept++;
          continue;
        }
        ch.dispose();
        pointers++;
        continue;
      }
      const s = ch.getSampler();
      if (s && (s.getInput()?.getCount() ?? 0) > 0 && (s.getOutput()?.getCount() ?? 0) > 0) continue;
      ch.dispose();
      removed++;
    }
    if (kept)
      warnings.push({
        code: 'unsupported',
        message: `kept ${kept} KHR_animation_pointer channel${kept > 1 ? 's' : ''} as read (not processed)`,
        animation: a,
      });
    if (pointers)
      warnings.push({
        code: 'unsupported',
        message: `removed ${pointers} channel${pointers > 1 ? 's' : ''} with a path other than translation, rotation, scale or weights and no KHR_animation_pointer target`,
        animation: a,
      });
    const used = new Set<AnimationSampler | null>();
    for (const ch of anim.listChannels()) used.add(ch.getSampler());
    for (const s of anim.listSamplers()) {
      if (used.has(s) || keep.has(s)) continue;
      const input = s.getInput();
      const output = s.getOutput();
      s.dispose();
      disposeIfUnused(input);
      disposeIfUnused(output);
    }
    if (removed)
      warnings.push({
        code: 'empty',
        message: `removed ${removed} channel${removed > 1 ? 's' : ''} without keys`,
        animation: a,
      });
    if (anim.listChannels().length === 0) {
      anim.dispose();
      warnings.push({ code: 'empty', message: 'removed an animation without channels', animation: a });
    }
  });
}
