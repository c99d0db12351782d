/**
 * BVH writer: {@link Clip} in, text out, reproducing the skeleton, each joint's channel layout and Euler
 * order, End Sites and the original frame time string.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { type SimdInstance, simdScratch, simdScratchCalls } from '../../numeric/simd.js';
import { checkClip as checkClipShape } from '../../ops/skeleton/clip-check.js';
import { eulerJointInfo, followTriple } from '../../ops/unroll/unroll-kernels.js';
import { checkOptions } from '../../options.js';
import { decomposeEuler, type EulerOrder, type EulerSpec, eulerSpec } from '../../quat/euler.js';
import type { Clip, PositionMode } from '../../series/clip.js';
import { assertQuatSeries, assertVec3Series } from '../../series/create.js';
import type { FloatArray } from '../../series/types.js';
import { BVH_MAX_DEPTH, type BvhLayout, bvhLayout } from './layout.js';
import { channelEulerOrder } from './parse.js';

/** Options of {@link writeBvh}. */
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

/** Defaults of {@link WriteBvhOptions} (`positionMode` falls back to the clip's). */
export const WRITE_BVH_DEFAULTS: Required<Omit<WriteBvhOptions, 'positionMode'>> = {
  precision: 6,
  indent: '\t',
  newline: '\n',
};

const RAD_TO_DEG = 180 / Math.PI;
/** ASCII bytes to string in one native call where the platform has the (universal) Encoding API. */
const DECODER: { decode(bytes: Uint8Array): string } | undefined =
  typeof TextDecoder === 'function' ? new TextDecoder() : undefined;

/**
 * Writes `s` as UTF-8 into `b` from `at` (room for 3 bytes per UTF-16 unit is the caller's); returns the end.
 * A function of its own so that the first, long header text compiles the loop on the fly (on-stack
 * replacement) without a store after it that the optimised code has never seen.
 */
function encodeUtf8(s: string, b: Uint8Array, at: number): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) b[at++] = c;
    else if (c < 0x800) {
      b[at++] = 0xc0 | (c >> 6);
      b[at++] = 0x80 | (c & 63);
    } else {
      // a surrogate pair is one code point of 4 bytes (2 UTF-16 units, so within the 3-per-unit room)
      const next = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        b[at++] = 0xf0 | (c >> 18);
        b[at++] = 0x80 | ((c >> 12) & 63);
      } else {
        if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // a lone surrogate, as TextEncoder writes it
        b[at++] = 0xe0 | (c >> 12);
      }
      b[at++] = 0x80 | ((c >> 6) & 63);
      b[at++] = 0x80 | (c & 63);
    }
  }
  return at;
}

/**
 * Growable ASCII byte buffer for the motion rows: numbers are written digit by digit, so a 100,000-frame
 * file costs no string per value. Rows become strings one at a time.
 */
class RowWriter {
  bytes: Uint8Array;
  length = 0;
  /** The last `scale` of {@link fixed} and its reciprocal. */
  private scale = 1;
  private inverse = 1;

  /** A writer into `bytes` (default: a new 4 KiB buffer; it grows as needed). */
  constructor(bytes: Uint8Array = new Uint8Array(4096)) {
    this.bytes = bytes;
  }

  /** Makes room for `extra` more bytes at once (one allocation instead of repeated doubling). */
  reserve(extra: number): void {
    this.ensure(extra);
  }

  /** Appends `s` encoded as UTF-8 (the header: joint names may be any Unicode). */
  text(s: string): void {
    this.ensure(3 * s.length);
    this.length = encodeUtf8(s, this.bytes, this.length);
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + extra));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(c: number): void {
    this.ensure(1);
    this.bytes[this.length++] = c;
  }

  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.bytes[this.length++] = s.charCodeAt(i);
  }

  /**
   * Writes `v` with `places` decimals like `toFixed`: scaled and rounded once (half away from zero), which
   * can differ from `toFixed` only in the last digit of a value within a rounding error of a tie. Negative
   * values that round to zero print without a sign. `scale` is `10 ** places`.
   */
  fixed(v: number, places: number, scale: number): void {
    const scaled = Math.round(Math.abs(v) * scale);
    if (scaled < 2147483648 && scale < 2147483648) {
      // angles and positions of real files (|v| < 2147 at 6 decimals) take this path
      this.ensure(places + 20);
      const b = this.bytes;
      let at = this.length;
      if (v < 0 && scaled !== 0) b[at++] = 45;
      if (scale !== this.scale) {
        this.scale = scale;
        this.inverse = 1 / scale;
      }
      at = writeFixed32(b, at, scaled, places, scale, this.inverse);
      this.length = at;
      return;
    }
    this.fixedLarge(v, places, scale, scaled);
  }

  /** {@link fixed} for values whose scaled integer does not fit in 31 bits. */
  private fixedLarge(v: number, places: number, scale: number, scaled: number): void {
    if (!(scaled < 9007199254740992)) {
      this.ascii(v.toFixed(places));
      return;
    }
    this.ensure(places + 20);
    const b = this.bytes;
    let at = this.length;
    if (v < 0 && scaled !== 0) b[at++] = 45;
    let int = Math.floor(scaled / scale);
    let frac = scaled - int * scale;
    if (frac < 0) {
      int -= 1;
      frac += scale;
    }
    let digits = 1;
    for (let t = int; t >= 10; t = Math.floor(t / 10)) digits++;
    for (let k = digits - 1; k >= 0; k--) {
      b[at + k] = 48 + (int % 10);
      int = Math.floor(int / 10);
    }
    at += digits;
    if (places > 0) {
      b[at++] = 46;
      for (let k = places - 1; k >= 0; k--) {
        b[at + k] = 48 + (frac % 10);
        frac = Math.floor(frac / 10);
      }
      at += places;
    }
    this.length = at;
  }

  /** The buffered bytes as a string, then empties the buffer. */
  take(): string {
    if (DECODER !== undefined) {
      const text = DECODER.decode(this.bytes.subarray(0, this.length));
      this.length = 0;
      return text;
    }
    let out = '';
    // without TextDecoder: 8 KiB at a time, under engines' argument-count limits
    for (let i = 0; i < this.length; i += 8192) {
      const end = Math.min(this.length, i + 8192);
      out += String.fromCharCode.apply(null, this.bytes.subarray(i, end) as unknown as number[]);
    }
    this.length = 0;
    return out;
  }
}

/** ASCII digit triples "000" to "999": three digits per table read (3 kB, stays in cache). */
const DIGIT_TRIPLES = new Uint8Array(3000);
for (let k = 0; k < 1000; k++) {
  DIGIT_TRIPLES[3 * k] = 48 + Math.floor(k / 100);
  DIGIT_TRIPLES[3 * k + 1] = 48 + (Math.floor(k / 10) % 10);
  DIGIT_TRIPLES[3 * k + 2] = 48 + (k % 10);
}

/**
 * Writes `scaled / scale` (both below 2^31, `scale = 10^places`, `inverse = 1 / scale`) with `places`
 * decimals into `b` at `at`; returns the end. Exact integer arithmetic throughout:
 * - the quotient by `scale` taken through `inverse` is within 2^31 · 2^-52 < 1 of the true one, and one
 *   step corrects it either way;
 * - a quotient by 10 or 1000 is `(x * 0.1) | 0` or `(x * 0.001) | 0`, which for 0 <= x < 2^31 is exactly
 *   ⌊x / 10⌋ (⌊x / 1000⌋): the double nearest 0.1 (0.001) is above it, so a multiple cannot fall below its
 *   quotient, and the product's error (under 10^-8) is far from the next integer for the others.
 * Digits go three at a time through a table, so a value costs few dependent multiplications.
 */
function writeFixed32(
  b: Uint8Array,
  at: number,
  scaled: number,
  places: number,
  scale: number,
  inverse: number,
): number {
  let int = Math.floor(scaled * inverse);
  let frac = scaled - int * scale;
  if (frac < 0) {
    int--;
    frac += scale;
  } else if (frac >= scale) {
    int++;
    frac -= scale;
  }
  // integer part: up to 10 digits
  if (int < 10) b[at++] = 48 + int;
  else if (int < 100) {
    const t = 3 * int;
    b[at] = DIGIT_TRIPLES[t + 1];
    b[at + 1] = DIGIT_TRIPLES[t + 2];
    at += 2;
  } else if (int < 1000) {
    const t = 3 * int;
    b[at] = DIGIT_TRIPLES[t];
    b[at + 1] = DIGIT_TRIPLES[t + 1];
    b[at + 2] = DIGIT_TRIPLES[t + 2];
    at += 3;
  } else at = writeInteger(b, at, int);
  if (places === 0) return at;
  b[at] = 46;
  // fraction: `places` digits with leading zeros, from the last group back
  let k = at + 1 + places;
  let left = places;
  while (left >= 3) {
    const q = (frac * 0.001) | 0;
    const t = 3 * (frac - q * 1000);
    b[k - 3] = DIGIT_TRIPLES[t];
    b[k - 2] = DIGIT_TRIPLES[t + 1];
    b[k - 1] = DIGIT_TRIPLES[t + 2];
    k -= 3;
    frac = q;
    left -= 3;
  }
  while (left > 0) {
    const q = (frac * 0.1) | 0;
    b[--k] = 48 + frac - q * 10;
    frac = q;
    left--;
  }
  return at + 1 + places;
}

/** Writes the decimal digits of an integer from 1,000 to 2^31 − 1 (see {@link writeFixed32}). */
function writeInteger(b: Uint8Array, at: number, int: number): number {
  let digits = 4;
  for (let t = 10000; t <= int && digits < 10; t *= 10) digits++;
  let k = at + digits;
  while (int >= 1000) {
    const q = (int * 0.001) | 0;
    const t = 3 * (int - q * 1000);
    b[k - 3] = DIGIT_TRIPLES[t];
    b[k - 2] = DIGIT_TRIPLES[t + 1];
    b[k - 1] = DIGIT_TRIPLES[t + 2];
    k -= 3;
    int = q;
  }
  while (k > at) {
    const q = (int * 0.1) | 0;
    b[--k] = 48 + int - q * 10;
    int = q;
  }
  return at + digits;
}

/** Shortest text that reads back to the same float64, `-0` included. */
function formatExact(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

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
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on a precision outside 0..15.
 * @example
 * const text = writeBvh(parseBvh(input), { precision: 4 });
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
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on a precision outside 0..15.
 * @example
 * const bytes = writeBvhBytes(parseBvh(input)); // new TextDecoder().decode(bytes) === writeBvh(clip)
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
 * @throws {ShapeError} when the skeleton, rotations and translations do not fit together, or joints are
 * nested 1000 levels deep or more (more than `parseBvh` reads).
 * @throws {InvalidValueError} on a non-finite value (naming frame and joint) or an unwritable joint name.
 * @throws {OptionError} on a precision outside 0..15.
 * @example
 * for (const chunk of writeBvhChunks(clip)) stream.write(chunk.slice());
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

interface BvhPlan {
  header: string;
  layout: BvhLayout;
  positionMode: PositionMode;
  precision: number;
  nl: string;
  /** The public function's name, for error messages. */
  where: string;
}

/** Checks the options and the clip and writes the hierarchy and the MOTION header lines. */
function planBvh(clip: Clip, options: WriteBvhOptions, where: string): BvhPlan {
  options = checkOptions(options, WRITE_BVH_DEFAULTS, where, ['positionMode']);
  const precision = options.precision ?? WRITE_BVH_DEFAULTS.precision;
  if (!Number.isInteger(precision) || precision < 0 || precision > 15) {
    throw new OptionError(`${where}: precision must be an integer from 0 to 15, got ${precision}`);
  }
  const indent = options.indent ?? WRITE_BVH_DEFAULTS.indent;
  const nl = options.newline ?? WRITE_BVH_DEFAULTS.newline;
  if (nl !== '\n' && nl !== '\r\n') throw new OptionError(`${where}: newline must be '\\n' or '\\r\\n'`);
  if (typeof indent !== 'string' || /[^ \t]/.test(indent))
    throw new OptionError(`${where}: indent must be a string of spaces and tabs`);
  checkClipShape(clip, where);
  const layout = bvhLayout(clip);
  checkClip(clip, layout, where);
  const positionMode = options.positionMode ?? layout.positionMode;
  if (positionMode !== 'replace' && positionMode !== 'add') {
    throw new OptionError(`${where}: positionMode must be 'replace' or 'add', got '${String(positionMode)}'`);
  }

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

/**
 * The Euler angles (radians) of frame `f`'s rotating joints into `euler` (3 per joint), continuous with
 * the last frame's (which `euler` holds on entry) through the equivalent-triple filter of
 * `unrollEulerTriple`. Its own function, called once per frame, so that the engine optimises it early and
 * small, and a rare branch met late (a wrap, a branch switch, a gimbal lock) recompiles only this.
 *
 * A joint whose quaternion is bit for bit the last frame's keeps its angles (a still joint, common in real
 * files): decomposing it again gives the same raw triple, and following a raw triple to the angles it
 * gave last frame returns them exactly (each angle moves by the same whole turns, the same branch
 * is nearest at distance 0), except at a gimbal lock, where the outer angles are re-split arithmetically.
 * `reuse[j]` is 1 while that holds: after a frame that was followed and not locked.
 *
 * A Tait-Bryan triple within a quarter turn of the last frame's in each angle, away from gimbal lock, is
 * one the filter keeps as it is (see {@link near}): the common case of smooth motion skips the filter.
 */
function eulerRow(
  euler: Float64Array,
  previous: Float64Array,
  rot: ArrayLike<number>,
  f: number,
  J: number,
  rotating: Uint8Array,
  specs: readonly EulerSpec[],
  info: Int8Array,
  reuse: Uint8Array,
  taitBryan: Uint8Array,
  where: string,
): void {
  for (let j = 0; j < J; j++) {
    if (!rotating[j]) continue;
    const q = (f * J + j) * 4;
    const p = q - 4 * J;
    if (
      reuse[j] === 1 &&
      rot[q] === rot[p] &&
      rot[q + 1] === rot[p + 1] &&
      rot[q + 2] === rot[p + 2] &&
      rot[q + 3] === rot[p + 3]
    ) {
      continue;
    }
    if (
      !(
        Number.isFinite(rot[q]) &&
        Number.isFinite(rot[q + 1]) &&
        Number.isFinite(rot[q + 2]) &&
        Number.isFinite(rot[q + 3])
      )
    ) {
      throw new InvalidValueError(`${where}: non-finite rotation at frame ${f}, joint ${j}`, {
        frame: f,
        joint: j,
      });
    }
    const e = j * 3;
    decomposeEuler(euler, e, rot, q, specs[j]);
    // with fewer than 3 rotation channels the unlisted angles must stay 0 (they are not written), so only
    // whole turns may be added (the equivalent triple would move them to π)
    let branch = 3;
    if (f > 0 && taitBryan[j] === 1 && near(euler, previous, e)) branch = 0;
    else if (f > 0)
      branch = followTriple(
        euler,
        e,
        euler[e],
        euler[e + 1],
        euler[e + 2],
        previous,
        e,
        info,
        e,
        rotating[j] === 3,
      );
    reuse[j] = branch === 3 ? 0 : 1;
    previous[e] = euler[e];
    previous[e + 1] = euler[e + 1];
    previous[e + 2] = euler[e + 2];
  }
}

/** A quarter turn, the largest step per angle that {@link near} lets through. */
const QUARTER_TURN = 0.25 * Math.PI;
/** |middle angle| below this is more than 0.17 rad from a Tait-Bryan gimbal lock at ±π/2. */
const CLEAR_OF_LOCK = 1.4;

/**
 * True when the raw Tait-Bryan triple at `euler[e..e+3]` is what `followTriple` (equivalent-triple mode or
 * whole turns only) returns for it unchanged, with branch 0, given the previous frame's `previous[e..e+3]`:
 * each angle within a quarter turn of the previous one and the middle angle clear of gimbal lock. Then
 * - the lock test fails: the middle angle is more than 0.17 rad from ±π/2 (the lock tolerance is 1e-12);
 * - each angle's nearest whole turn to the previous one is 0 turns (|Δ| / 2π < 1/8 rounds to 0), so the
 *   first candidate is the triple itself;
 * - the equivalent triple (a + π, π − b, c + π, each moved by whole turns) is at least 3π/4 away in the
 *   first and third angles, a squared distance of at least 2·(3π/4)² ≈ 11.1 against at most 3·(π/4)²
 *   ≈ 1.85 for the triple itself, so it is never chosen.
 */
function near(euler: Float64Array, previous: Float64Array, e: number): boolean {
  return (
    Math.abs(euler[e] - previous[e]) < QUARTER_TURN &&
    Math.abs(euler[e + 1] - previous[e + 1]) < QUARTER_TURN &&
    Math.abs(euler[e + 2] - previous[e + 2]) < QUARTER_TURN &&
    Math.abs(euler[e + 1]) < CLEAR_OF_LOCK
  );
}

/** Per channel of the file row: kind 0..2 = position axis, 3..5 = rotation slot in the joint's order. */
function channelPlan(layout: BvhLayout): {
  joint: Int32Array;
  kind: Int32Array;
  orders: EulerOrder[];
  rotating: Uint8Array;
} {
  const { channels } = layout;
  const J = channels.length;
  const joint: number[] = [];
  const kind: number[] = [];
  const orders: EulerOrder[] = [];
  const rotating = new Uint8Array(J);
  for (let j = 0; j < J; j++) {
    // the channel layout is what the file will say, so it decides the order
    const order = channelEulerOrder(channels[j]);
    orders.push(order);
    for (const c of channels[j]) {
      joint.push(j);
      const axis = c.charCodeAt(0) - 88;
      if (c.endsWith('position')) kind.push(axis);
      else {
        kind.push(3 + order.indexOf(c[0]));
        rotating[j]++;
      }
    }
  }
  return { joint: Int32Array.from(joint), kind: Int32Array.from(kind), orders, rotating };
}

/**
 * Texts of the integer part of a value below 1000 followed by its decimal point, packed little-endian in a
 * 32-bit word ("7." then two bytes that the fraction overwrites, "42.", "999."), and their lengths: one
 * unaligned store per integer part.
 */
const INT_POINT = new Uint32Array(1000);
const INT_POINT_LENGTH = new Uint8Array(1000);
/** "ddd" and "ddd " (three digits, then a byte the next store overwrites or a space), little-endian. */
const TRIPLE = new Uint32Array(1000);
const TRIPLE_SPACE = new Uint32Array(1000);
for (let k = 0; k < 1000; k++) {
  const d0 = DIGIT_TRIPLES[3 * k];
  const d1 = DIGIT_TRIPLES[3 * k + 1];
  const d2 = DIGIT_TRIPLES[3 * k + 2];
  TRIPLE[k] = d0 | (d1 << 8) | (d2 << 16);
  TRIPLE_SPACE[k] = (d0 | (d1 << 8) | (d2 << 16) | (32 << 24)) >>> 0;
  if (k < 10) {
    INT_POINT[k] = d2 | (46 << 8);
    INT_POINT_LENGTH[k] = 2;
  } else if (k < 100) {
    INT_POINT[k] = d1 | (d2 << 8) | (46 << 16);
    INT_POINT_LENGTH[k] = 3;
  } else {
    INT_POINT[k] = (d0 | (d1 << 8) | (d2 << 16) | (46 << 24)) >>> 0;
    INT_POINT_LENGTH[k] = 4;
  }
}

/**
 * The WebAssembly writer of six-decimal rows (`bvhSixRow` in `numeric/simd.wat`) for one {@link writeMotion}
 * call: the row's values go in its memory ({@link SixRowKernel.values}), {@link SixRowKernel.row} writes
 * their text, the same bytes as the loop in `writeMotion` (writing the eight shared captures took 24.6 ms
 * instead of 32.8, Euler angles included). Memory: the tables at 0, the values at 13,056, the text after them.
 */
class SixRowKernel {
  readonly values: Float64Array;
  private readonly bytes: Uint8Array;
  private readonly kernels: SimdInstance['kernels'];
  private readonly width: number;
  private readonly outAt: number;

  private constructor(instance: SimdInstance, width: number) {
    const buffer = instance.buffer;
    this.kernels = instance.kernels;
    this.width = width;
    new Uint32Array(buffer, 0, 1000).set(INT_POINT);
    new Uint32Array(buffer, 4000, 1000).set(TRIPLE);
    new Uint32Array(buffer, 8000, 1000).set(TRIPLE_SPACE);
    new Uint8Array(buffer, 12000, 1000).set(INT_POINT_LENGTH);
    this.values = new Float64Array(buffer, VALUES_AT, width);
    this.outAt = VALUES_AT + width * 8;
    this.bytes = new Uint8Array(buffer, this.outAt, width * 12 + 16);
  }

  /** A kernel for rows of `width` values, or null where there is no WebAssembly (the loop writes them). */
  static create(width: number): SixRowKernel | null {
    const instance = simdScratch(VALUES_AT + width * 20 + 16);
    return instance === null ? null : new SixRowKernel(instance, width);
  }

  /** Writes the text of {@link values}: its length, or −1 when a value is 1000 or more (or not finite). */
  row(): number {
    return this.kernels.bvhSixRow(VALUES_AT, this.width, this.outAt, 0);
  }

  /** The first `length` bytes of the text the last {@link row} wrote. */
  text(length: number): Uint8Array {
    return this.bytes.subarray(0, length);
  }
}

/** Where {@link SixRowKernel} keeps a row's values, after its tables. */
const VALUES_AT = 13056;

/** A view of `b` for the motion rows' multi-byte stores. */
function viewOf(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * Everything the motion rows of one clip need, resolved once: the channel plan, each joint's Euler sequence,
 * the scratch of the Euler filter and of the text copies, and the frame to write next. Writing the rows in
 * pieces ({@link writeRows}, once per chunk of {@link writeBvhChunks}) keeps all of it between pieces.
 */
interface MotionRows {
  J: number;
  frames: number;
  rot: FloatArray;
  tra: FloatArray;
  where: string;
  precision: number;
  width: number;
  joint: Int32Array;
  rotating: Uint8Array;
  specs: EulerSpec[];
  info: Int8Array;
  taitBryan: Uint8Array;
  source: Int32Array;
  position: Uint8Array;
  subtracted: Float64Array;
  subtract: boolean;
  euler: Float64Array;
  previous: Float64Array;
  reuse: Uint8Array;
  scale: number;
  inverse: number;
  six: boolean;
  crlf: boolean;
  rowRoom: number;
  lastValue: Float64Array;
  lastAt: Int32Array;
  lastLength: Int32Array;
  kernel: SixRowKernel | null;
  /** {@link simdScratchCalls} when `kernel` was made: another user of the scratch memory since means a new one. */
  epoch: number;
  /** The row's values when there is no `kernel` (with one, they go in its memory). */
  values: Float64Array;
  /** The next frame to write. */
  f: number;
}

/** The {@link MotionRows} of `clip` under `plan`, at frame 0. */
function motionRows(clip: Clip, plan: BvhPlan): MotionRows {
  const { positionMode, precision, nl, where } = plan;
  const J = clip.skeleton.names.length;
  const frames = clip.frames;
  const offsets = clip.skeleton.restTranslations;
  const { joint, kind, orders, rotating } = channelPlan(plan.layout);
  const width = joint.length;
  // each joint's sequence resolved once, by push (see buildClip in the parser)
  const specs: EulerSpec[] = [];
  for (let j = 0; j < J; j++) specs.push(eulerSpec(orders[j]));
  const info = eulerJointInfo(orders, J, where);
  const taitBryan = new Uint8Array(J);
  for (let j = 0; j < J; j++) taitBryan[j] = specs[j].proper ? 0 : 1;
  // per channel: where its value is, in the frame's Euler angles (rotations) or in the frame's
  // translations (positions), and the OFFSET that `'add'` subtracts (0 otherwise: v − 0 is v)
  const source = new Int32Array(width);
  const position = new Uint8Array(width);
  const subtracted = new Float64Array(width);
  const subtract = positionMode === 'add';
  for (let c = 0; c < width; c++) {
    const j = joint[c];
    const k = kind[c];
    position[c] = k < 3 ? 1 : 0;
    source[c] = k < 3 ? j * 3 + k : j * 3 + k - 3;
    if (k < 3 && subtract) subtracted[c] = offsets[j * 3 + k];
  }
  const euler = new Float64Array(J * 3);
  const previous = new Float64Array(J * 3);
  const reuse = new Uint8Array(J);
  const scale = 10 ** precision;
  const inverse = 1 / scale;
  // six decimals (the default) of a value below 1000 take stores of whole digit groups
  const six = precision === 6;
  const crlf = nl === '\r\n';
  // room for a row of values on the 31-bit path: sign, 10 integer digits, point, decimals and a space each
  const rowRoom = width * (precision + 13) + 2;
  // per channel, the value it printed last and where that text is: a value equal to it (a joint that holds
  // still, a position channel that restates its OFFSET) prints the same text, copied instead of formatted
  // (+0 and -0 print alike: a value that rounds to zero has no sign); six decimals below 1000 are
  // formatted as fast as they would be copied, so only the other values keep their text
  const lastValue = new Float64Array(width).fill(Number.NaN);
  const lastAt = new Int32Array(width);
  const lastLength = new Int32Array(width);
  // at six decimals, each row's text by the WebAssembly kernel where there is one (the same bytes); the
  // row's values are computed first, in its memory or, without it, in `values`
  const kernel = six && width > 0 ? SixRowKernel.create(width) : null;
  const values = new Float64Array(width);
  return {
    J,
    frames,
    rot: clip.rotations.data,
    tra: clip.translations.data,
    where,
    precision,
    width,
    joint,
    rotating,
    specs,
    info,
    taitBryan,
    source,
    position,
    subtracted,
    subtract,
    euler,
    previous,
    reuse,
    scale,
    inverse,
    six,
    crlf,
    rowRoom,
    lastValue,
    lastAt,
    lastLength,
    kernel,
    epoch: simdScratchCalls(),
    values,
    f: 0,
  };
}

/** The motion rows, each ended by `nl`. */
function writeMotion(clip: Clip, plan: BvhPlan, row: RowWriter): void {
  const m = motionRows(clip, plan);
  // one allocation for all rows: a value takes up to (sign, 4 integer digits, point, precision, space)
  // characters; a larger value only makes the buffer grow, an overestimate only costs address space
  row.reserve(m.frames * (m.width * (plan.precision + 7) + plan.nl.length));
  writeRows(m, row, Number.POSITIVE_INFINITY);
}

/**
 * Appends the rows of `m` from frame `m.f` on, until every frame is written or `row` holds `limit` bytes or
 * more, and advances `m.f`. Its own function, called once per clip or per chunk, so that its loop is
 * optimised once for the whole file.
 */
function writeRows(m: MotionRows, row: RowWriter, limit: number): void {
  const { J, frames, rot, tra, where, precision, width, joint, rotating, specs, info, taitBryan } = m;
  const { source, position, subtracted, subtract, euler, previous, reuse, scale, inverse, six, crlf } = m;
  const { rowRoom, lastValue, lastAt, lastLength } = m;
  if (m.kernel !== null && m.epoch !== simdScratchCalls()) {
    // another user of the scratch memory came between two chunks: its tables may be gone
    m.kernel = SixRowKernel.create(width);
    m.epoch = simdScratchCalls();
  }
  const kernel = m.kernel;
  const values = kernel !== null ? kernel.values : m.values;
  let b = row.bytes;
  let view = viewOf(b);
  let f = m.f;
  for (; f < frames && row.length < limit; f++) {
    eulerRow(euler, previous, rot, f, J, rotating, specs, info, reuse, taitBryan, where);
    row.reserve(rowRoom);
    if (row.bytes !== b) {
      b = row.bytes;
      view = viewOf(b);
    }
    let at = row.length;
    const t0 = f * J * 3;
    for (let c = 0; c < width; c++) {
      let v: number;
      if (position[c] === 1) {
        v = tra[t0 + source[c]];
        if (!Number.isFinite(v)) {
          const j = joint[c];
          throw new InvalidValueError(`${where}: non-finite translation at frame ${f}, joint ${j}`, {
            frame: f,
            joint: j,
          });
        }
        if (subtract) v -= subtracted[c];
      } else {
        v = euler[source[c]] * RAD_TO_DEG;
      }
      values[c] = v;
    }
    const length = kernel !== null ? kernel.row() : -1;
    if (length >= 0) {
      b.set(kernel!.text(length), at);
      at += length;
    }
    // every value is followed by a space; the row's last space becomes its line ending
    for (let c = length >= 0 ? width : 0; c < width; c++) {
      const v = values[c];
      // scaled and rounded once, half away from zero (see RowWriter.fixed)
      const scaled = Math.round(Math.abs(v) * scale);
      if (six && scaled < 1e9) {
        // the sign byte is always stored and kept only for a negative value that does not round to 0
        const m = scaled | 0;
        b[at] = 45;
        at += ((v < 0) as unknown as number) & ((m !== 0) as unknown as number);
        // exact: quotients of integers below 2^31 by constants, truncated
        const int = (m / 1000000) | 0;
        const frac = m - int * 1000000;
        const high = (frac / 1000) | 0;
        view.setUint32(at, INT_POINT[int], true);
        at += INT_POINT_LENGTH[int];
        view.setUint32(at, TRIPLE[high], true);
        view.setUint32(at + 3, TRIPLE_SPACE[frac - high * 1000], true);
        at += 7;
        continue;
      }
      if (v === lastValue[c]) {
        const from = lastAt[c];
        const length = lastLength[c];
        for (let n = 0; n < length; n++) b[at + n] = b[from + n];
        lastAt[c] = at;
        at += length;
        b[at++] = 32;
        continue;
      }
      const start = at;
      if (scaled < 2147483648 && scale < 2147483648) {
        if (v < 0 && scaled !== 0) b[at++] = 45;
        at = writeFixed32(b, at, scaled, precision, scale, inverse);
        // only texts of the 31-bit paths are copied: they fit the room reserved per value
        lastValue[c] = v;
        lastAt[c] = start;
        lastLength[c] = at - start;
        b[at++] = 32;
      } else {
        row.length = at;
        row.fixed(v, precision, scale);
        row.byte(32);
        row.reserve(rowRoom);
        if (row.bytes !== b) {
          b = row.bytes;
          view = viewOf(b);
        }
        at = row.length;
      }
    }
    if (width === 0) {
      if (crlf) b[at++] = 13;
      b[at++] = 10;
    } else if (crlf) {
      b[at - 1] = 13;
      b[at++] = 10;
    } else b[at - 1] = 10;
    row.length = at;
  }
  m.f = f;
}
