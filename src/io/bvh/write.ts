/**
 * BVH writer: {@link Clip} in, text out, reproducing the skeleton, each joint's channel layout and Euler
 * order, End Sites and the original frame time string.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import { checkClip as checkClipShape } from '../../ops/skeleton/clip-check.js';
import { customRule, integerIn, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { assertQuatSeries, assertVec3Series } from '../../series/create.js';
import { BVH_MAX_DEPTH, type BvhLayout, bvhLayout } from './layout.js';
import { type BvhPlan, type MotionRows, motionRows, writeMotion, writeRows } from './motion-rows.js';
import { formatExact, RowWriter } from './number-text.js';
import { WRITE_BVH_DEFAULTS, type WriteBvhOptions } from './write-options.js';

export { WRITE_BVH_DEFAULTS, type WriteBvhOptions } from './write-options.js';

const WRITE_BVH_SPEC: OptionSpec = {
  precision: integerIn(0, 15),
  positionMode: oneOf(['replace', 'add']),
  indent: customRule('a string of spaces and tabs', (v) => typeof v === 'string' && !/[^ \t]/.test(v)),
  // named with escapes: a message holds no line break
  newline: customRule("one of '\\n', '\\r\\n'", (v) => v === '\n' || v === '\r\n'),
};

function checkClip(clip: Clip, layout: BvhLayout, where: string): void {
  if (clip === null || typeof clip !== 'object' || clip.skeleton === undefined) {
    throw new ShapeError(`${where}: clip must be a Clip with a skeleton`);
  }
  const { names, parents, restTranslations: offsets } = clip.skeleton;
  const { channels, endSites } = layout;
  const J = names.length;
  if (parents.length !== J || offsets.length !== J * 3 || channels.length !== J) {
    throw new ShapeError(
      `${where}: skeleton has ${J} names but ${parents.length} parents, ${offsets.length / 3} offsets and ${channels.length} channel lists`,
    );
  }
  // levels below the root, per joint (parents come first)
  const depth = new Int32Array(J);
  for (let j = 0; j < J; j++) {
    if (!(parents[j] === -1 || (parents[j] >= 0 && parents[j] < j))) {
      throw new ShapeError(
        `${where}: joint ${j} ('${names[j]}') has parent ${parents[j]}; parents must come before children`,
      );
    }
    depth[j] = parents[j] < 0 ? 0 : depth[parents[j]] + 1;
    if (depth[j] >= BVH_MAX_DEPTH) {
      throw new ShapeError(
        `${where}: joint ${j} ('${names[j]}') is nested ${depth[j]} levels deep; a BVH file nests at most ${BVH_MAX_DEPTH - 1} (parseBvh reads no deeper)`,
      );
    }
    if (
      typeof names[j] !== 'string' ||
      /[\r\n{]/.test(names[j]) ||
      names[j].trim() !== names[j] ||
      names[j] === ''
    ) {
      throw new InvalidValueError(
        `${where}: joint name ${JSON.stringify(names[j])} cannot be written to a BVH file`,
        { joint: j },
      );
    }
  }
  for (let j = 0; j < J * 3; j++) {
    if (!Number.isFinite(offsets[j])) {
      const joint = Math.floor(j / 3);
      throw new InvalidValueError(`${where}: OFFSET of joint ${joint} ('${names[joint]}') is ${offsets[j]}`, {
        joint,
      });
    }
  }
  for (const site of endSites) {
    if (!(Number.isInteger(site.parent) && site.parent >= 0 && site.parent < J))
      throw new ShapeError(`${where}: an End Site has parent ${site.parent}`);
    const o = site.offset;
    if (!(Array.isArray(o) || ArrayBuffer.isView(o)) || o.length !== 3 || !o.every(Number.isFinite)) {
      throw new InvalidValueError(`${where}: an End Site of joint ${site.parent} has OFFSET ${String(o)}`, {
        joint: site.parent,
      });
    }
    if (
      site.label !== undefined &&
      (typeof site.label !== 'string' || /[\r\n{]/.test(site.label) || site.label.trim() !== site.label)
    ) {
      throw new InvalidValueError(
        `${where}: End Site label ${JSON.stringify(site.label)} of joint ${site.parent} cannot be written to a BVH file`,
        { joint: site.parent },
      );
    }
  }
  assertQuatSeries(clip.rotations, 'clip.rotations');
  assertVec3Series(clip.translations, 'clip.translations');
  if (clip.rotations.joints !== J || clip.translations.joints !== J) {
    throw new ShapeError(
      `${where}: skeleton has ${J} joints but rotations have ${clip.rotations.joints} and translations ${clip.translations.joints}`,
    );
  }
  if (clip.rotations.frames !== clip.frames || clip.translations.frames !== clip.frames) {
    throw new ShapeError(
      `${where}: clip.frames is ${clip.frames} but rotations have ${clip.rotations.frames} frames and translations ${clip.translations.frames}`,
    );
  }
  if (!(clip.frameTime > 0) || !Number.isFinite(clip.frameTime)) {
    throw new InvalidValueError(
      `${where}: frameTime must be a positive number of seconds, got ${clip.frameTime}`,
    );
  }
}

/**
 * Writes a {@link Clip} as BVH text.
 *
 * Reproduces the hierarchy (names, OFFSETs at full float64 precision, each joint's CHANNELS in file
 * order, End Sites with their labels), and writes the frame time from `clip.frameTimeText` while it still
 * reads back to `clip.frameTime`. Rotation channels are the Euler angles (degrees) of each local
 * quaternion in the order the joint's rotation channels spell (`clip.orders` for a parsed clip), made
 * continuous from frame to frame by the equivalent-triple Euler filter (as `unrollEulerTriple` applies it), so
 * curves have no ±180° wraps or gimbal branch switches and spins keep counting (joints with fewer than
 * three rotation channels only get whole turns added, so their unwritten angles stay 0). A joint without
 * rotation channels writes no rotation. Position channels are
 * the local translation (`'replace'`) or translation − OFFSET (`'add'`), in the file's units. Motion
 * values are printed with `precision` decimals.
 *
 * Round trip: `parseBvh(writeBvh(clip))` gives back every rotation within 1.5·10^-precision degrees
 * (three rounded angles) and every translation within 0.5·10^-precision.
 *
 * @param options - Defaults in {@link WRITE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on an unknown option or a bad value (a precision outside 0..15, ...).
 * @example
 * const out = writeBvh(parseBvh(text), { precision: 4 });
 */
export function writeBvh(clip: Clip, options: WriteBvhOptions = {}): string {
  const plan = planBvh(clip, options, 'writeBvh');
  const row = new RowWriter();
  writeMotion(clip, plan, row);
  return plan.header + row.take();
}

/**
 * Writes a {@link Clip} as BVH text encoded in UTF-8, the same text as {@link writeBvh} (same options,
 * errors and round trip), without building a string: for writing files, where the string would only be
 * encoded again. The result is a view of the writer's buffer, which may be longer.
 *
 * @param options - Defaults in {@link WRITE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on an unknown option or a bad value (a precision outside 0..15, ...).
 * @example
 * const clip = parseBvh(text);
 * const out = writeBvhBytes(clip); // new TextDecoder().decode(out) === writeBvh(clip)
 */
export function writeBvhBytes(clip: Clip, options: WriteBvhOptions = {}): Uint8Array {
  const plan = planBvh(clip, options, 'writeBvhBytes');
  const row = new RowWriter();
  row.text(plan.header);
  writeMotion(clip, plan, row);
  return row.bytes.subarray(0, row.length);
}

/** Bytes of rows {@link writeBvhChunks} gathers before it hands a chunk over (a chunk ends with a whole row). */
export const BVH_CHUNK_BYTES = 1 << 20;

/**
 * Writes a {@link Clip} as BVH text encoded in UTF-8, in chunks: the bytes of {@link writeBvhBytes} (same
 * options, errors and round trip), cut after whole rows about every {@link BVH_CHUNK_BYTES} bytes, the
 * header in the first chunk. Memory stays at one chunk whatever the clip's length, where
 * {@link writeBvhBytes} holds the whole text, and the chunk's pages are touched once, not once per megabyte
 * written: for writing files (`writeFileAtomic(path, writeBvhChunks(clip))` writes each chunk as it comes).
 *
 * Each chunk is a view of one buffer that the next step of the iteration writes over, and that a later
 * call reuses once the iteration has ended: write or copy it before asking for the next
 * (`Array.from(writeBvhChunks(clip), (c) => c.slice())` keeps them all). The result is a one-shot iterator,
 * like a generator's.
 *
 * Edge cases: the arguments are checked at the call; a non-finite rotation or translation is found when
 * its row is written, and throws from the iteration (naming frame and joint) after the chunks before it.
 *
 * @param options - Defaults in {@link WRITE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on an unknown option or a bad value (a precision outside 0..15, ...).
 * @example
 * const stream = fs.createWriteStream('walk.bvh');
 * for (const chunk of writeBvhChunks(clip)) stream.write(chunk.slice());
 * stream.end();
 */
export function writeBvhChunks(
  clip: Clip,
  options: WriteBvhOptions = {},
): Generator<Uint8Array, void, undefined> {
  const plan = planBvh(clip, options, 'writeBvhChunks');
  return bvhChunks(plan, motionRows(clip, plan));
}

function* bvhChunks(plan: BvhPlan, m: MotionRows): Generator<Uint8Array, void, undefined> {
  // a chunk's room, or the whole text's where that is less (an estimate: a larger text only grows the buffer)
  const room = Math.min(
    BVH_CHUNK_BYTES,
    3 * plan.header.length + m.frames * (m.width * (plan.precision + 7) + plan.nl.length),
  );
  // the buffer the last iteration finished with, when it is large enough: a fresh buffer's pages are
  // zeroed and faulted in on first touch, which costs about as much as writing its text (a batch writes
  // one file after another)
  const spare = spareChunkBuffer;
  const row = new RowWriter(spare !== null && spare.length >= room + m.rowRoom ? spare : undefined);
  if (row.bytes === spare) spareChunkBuffer = null;
  row.reserve(room + m.rowRoom);
  try {
    row.text(plan.header);
    for (;;) {
      writeRows(m, row, BVH_CHUNK_BYTES);
      yield row.bytes.subarray(0, row.length);
      if (m.f >= m.frames) return;
      // the buffer starts again: the texts the rows copied from are gone
      row.length = 0;
      m.lastValue.fill(Number.NaN);
    }
  } finally {
    // handed on once the iteration has ended (its last chunk is valid until then), if it is not too large
    if (row.bytes.length <= 2 * BVH_CHUNK_BYTES) spareChunkBuffer = row.bytes;
  }
}

/** The buffer of a finished {@link writeBvhChunks}, for the next one (see {@link bvhChunks}). */
let spareChunkBuffer: Uint8Array | null = null;

/** Checks the options and the clip and writes the hierarchy and the MOTION header lines. */
function planBvh(clip: Clip, options: WriteBvhOptions, where: string): BvhPlan {
  const o = resolveOptions(where, options, WRITE_BVH_DEFAULTS, WRITE_BVH_SPEC);
  const { precision, indent, newline: nl } = o;
  checkClipShape(clip, where);
  const layout = bvhLayout(clip);
  checkClip(clip, layout, where);
  const positionMode = o.positionMode ?? layout.positionMode;

  const { names, parents } = clip.skeleton;
  const { endSites } = layout;
  const J = names.length;
  const out: string[] = ['HIERARCHY'];
  // filled by push rather than `map`, so these arrays have the same map for every file (see buildClip)
  const children: number[][] = [];
  const sites: number[][] = [];
  for (let j = 0; j < J; j++) {
    children.push([]);
    sites.push([]);
  }
  for (let j = 0; j < J; j++) if (parents[j] >= 0) children[parents[j]].push(j);
  for (let k = 0; k < endSites.length; k++) sites[endSites[k].parent].push(k);
  const hierarchy: HierarchyText = { out, indent, skeleton: clip.skeleton, layout, children, sites };
  for (let j = 0; j < J; j++) if (parents[j] < 0) writeJointText(hierarchy, j);

  const frames = clip.frames;
  const timeText = layout.frameTimeText ?? formatExact(clip.frameTime);
  out.push('MOTION', `Frames: ${frames}`, `Frame Time: ${timeText}`);
  return { header: out.join(nl) + nl, layout, positionMode, precision, nl, where };
}

/** What {@link writeJointText} writes into and from, one object per header. */
interface HierarchyText {
  out: string[];
  indent: string;
  skeleton: Clip['skeleton'];
  layout: BvhLayout;
  /** Child joints and End Sites of each joint. */
  children: number[][];
  sites: number[][];
}

/**
 * Appends the lines of root joint `root`, its descendants and End Sites. A walk with a stack of its own
 * rather than recursion, so that a hierarchy thousands of joints deep (a chain of glTF nodes) is written
 * like any other. A top-level function of one plain object rather than a closure made per header, so
 * that its optimised code, shared by every file of a batch, never meets a new closure.
 */
function writeJointText(h: HierarchyText, root: number): void {
  const { out, indent } = h;
  const { names, parents, restTranslations: offsets } = h.skeleton;
  const { channels, endSites } = h.layout;
  // pairs (entry, depth), the next on top: entry j >= 0 opens joint j (its lines down to CHANNELS, then
  // its children in order), entry ~j < 0 closes it (its End Sites and closing brace)
  const stack: number[] = [root, 0];
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const entry = stack.pop() as number;
    const pad = indent.repeat(depth);
    if (entry < 0) {
      const j = ~entry;
      for (const k of h.sites[j]) {
        const site = endSites[k];
        const inner = pad + indent;
        out.push(`${inner}End Site${site.label ? ` ${site.label}` : ''}`, `${inner}{`);
        out.push(
          `${inner}${indent}${offsetText(site.offset[0], site.offset[1], site.offset[2])}`,
          `${inner}}`,
        );
      }
      out.push(`${pad}}`);
      continue;
    }
    const j = entry;
    out.push(`${pad}${parents[j] < 0 ? 'ROOT' : 'JOINT'} ${names[j]}`, `${pad}{`);
    out.push(`${pad}${indent}${offsetText(offsets[j * 3], offsets[j * 3 + 1], offsets[j * 3 + 2])}`);
    let channelText = `CHANNELS ${channels[j].length}`;
    for (const c of channels[j]) channelText += ` ${c}`;
    out.push(`${pad}${indent}${channelText}`);
    stack.push(~j, depth);
    const children = h.children[j];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i], depth + 1);
  }
}

function offsetText(x: number, y: number, z: number): string {
  return `OFFSET ${formatExact(x)} ${formatExact(y)} ${formatExact(z)}`;
}
