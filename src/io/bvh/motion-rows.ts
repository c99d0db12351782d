/**
 * The MOTION rows of a BVH file: each frame's rotations as continuous Euler angles in degrees (through the
 * equivalent-triple filter) and its position channels, written as fixed-point text, whole or chunk by chunk.
 *
 * @module
 */
import { InvalidValueError } from '../../errors.js';
import { type SimdInstance, simdScratch, simdScratchCalls } from '../../numeric/simd.js';
import { eulerJointInfo, followTriple } from '../../ops/unroll/unroll-kernels.js';
import { decomposeEuler, type EulerOrder, type EulerSpec, eulerSpec } from '../../quat/euler.js';
import type { Clip, PositionMode } from '../../series/clip.js';
import type { FloatArray } from '../../series/types.js';
import type { BvhLayout } from './layout.js';
import { DIGIT_TRIPLES, type RowWriter, writeFixed32 } from './number-text.js';
import { channelEulerOrder } from './parse.js';

const RAD_TO_DEG = 180 / Math.PI;

export interface BvhPlan {
  header: string;
  layout: BvhLayout;
  positionMode: PositionMode;
  precision: number;
  nl: string;
  /** The public function's name, for error messages. */
  where: string;
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
export interface MotionRows {
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
export function motionRows(clip: Clip, plan: BvhPlan): MotionRows {
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
export function writeMotion(clip: Clip, plan: BvhPlan, row: RowWriter): void {
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
export function writeRows(m: MotionRows, row: RowWriter, limit: number): void {
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
