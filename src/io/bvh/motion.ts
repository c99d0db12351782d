/**
 * BVH frame data to a clip: the converter from raw channel rows to quaternions and translations, the repair
 * of non-finite values, the clip built from the header and the checks of position channels against OFFSETs.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import { simdScratch } from '../../numeric/simd.js';
import { composeEuler, type EulerOrder, type EulerSpec, eulerSpec } from '../../quat/euler.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_TRANSLATION,
  type BvhSource,
  type ChannelName,
  type Clip,
  type EndSite,
  type PositionMode,
} from '../../series/clip.js';
import { BvhParseError, type BvhWarning } from './errors.js';
import type { JointBuild, MotionHeader } from './header.js';
import { quoteToken } from './quote.js';
import { recycledOrNew } from './recycle.js';
import type { FrameData, ScanChannel } from './scan.js';

const DEG = Math.PI / 180;

/** Fills non-finite values by linear interpolation along their channel; throws if a channel has none finite. */
export function repairValues(data: FrameData, width: number, channels: ChannelInfo[], names: string[]): void {
  const { values, rows } = data;
  const columns = new Set<number>();
  for (const index of data.bad) columns.add(index % width);
  for (const col of columns) {
    let previous = -1;
    for (let f = 0; f <= rows; f++) {
      const finite = f < rows && Number.isFinite(values[f * width + col]);
      if (f < rows && !finite) continue;
      // fill the gap (previous, f)
      if (f - previous > 1) {
        if (previous < 0 && f >= rows) {
          const ch = channels[col];
          throw new BvhParseError(
            `channel ${ch.name} of joint ${quoteToken(names[ch.joint])} has no finite value to repair from`,
            1,
            1,
            'bvh-non-finite',
          );
        }
        const a = previous < 0 ? values[f * width + col] : values[previous * width + col];
        const b = f >= rows ? values[previous * width + col] : values[f * width + col];
        for (let g = previous + 1; g < f; g++) {
          const t = previous < 0 || f >= rows ? 0 : (g - previous) / (f - previous);
          values[g * width + col] = a + (b - a) * t;
        }
      }
      previous = f;
    }
  }
}

export type ChannelInfo = ScanChannel;

const ROTATION_AXIS: Partial<Record<ChannelName, number>> = { Xrotation: 0, Yrotation: 1, Zrotation: 2 };
const POSITION_AXIS: Partial<Record<ChannelName, number>> = { Xposition: 0, Yposition: 1, Zposition: 2 };
const AXES = 'XYZ';

/**
 * The intrinsic Euler order (SciPy notation) that a joint's BVH rotation channels spell, in the order
 * listed; with fewer than three rotation channels the missing axes are appended (their angle is 0), and
 * `'ZYX'` stands for a joint without rotation channels. Position channels are ignored wherever they are.
 *
 * @example
 * channelEulerOrder(['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation']); // 'ZXY'
 * channelEulerOrder(['Yrotation']); // 'YXZ'
 */
export function channelEulerOrder(channels: readonly ChannelName[]): EulerOrder {
  if (!Array.isArray(channels))
    throw new OptionError('channelEulerOrder: channels must be an array of channel names');
  let order = '';
  for (const c of channels) {
    const axis = Object.hasOwn(ROTATION_AXIS, c) ? ROTATION_AXIS[c as ChannelName] : undefined;
    if (axis !== undefined) order += AXES[axis];
  }
  if (order === '') return 'ZYX';
  for (const a of AXES) if (!order.includes(a)) order += a;
  return order as EulerOrder;
}

/** Bytes of values (or of quaternions) the WebAssembly converter takes per call. */
const CONVERT_BYTES = 1 << 20;

/**
 * Turns rows of raw channel values into local rotations (quaternions from each joint's Euler channels)
 * and translations (OFFSET with position channels replacing or added), growing its arrays as rows come.
 * Also sums every position channel for {@link checkRootPositions} (non-root joints are its best evidence).
 */
export class FrameConverter {
  readonly joints: number;
  readonly offsets: Float64Array;
  readonly parents: Int32Array;
  readonly orders: EulerOrder[] = [];
  rotations: Float64Array;
  translations: Float64Array;
  rows = 0;
  /** Sum over frames of each channel column (filled for root position columns only). */
  readonly sums: Float64Array;
  private capacity = 0;
  /** Rows `Frames:` declared (bounded by what the data can hold, when its size is known). */
  private readonly declaredRows: number;
  /**
   * Rows the first {@link add} allocates at most: all the declared rows by default; fewer when the size of
   * the data is unknown, so that a false `Frames:` costs no memory before rows arrive (the arrays then
   * double up to the declared rows).
   */
  firstRows = Number.POSITIVE_INFINITY;
  /** Per joint, the columns of its 3 Euler angles in `order` (-1 = missing, angle 0) and of X/Y/Z position. */
  private readonly rotColumn: Int32Array;
  private readonly posColumn: Int32Array;
  /** Joints with rotation channels, and those without (identity in every frame). */
  private readonly rotating: Int32Array;
  private readonly still: Int32Array;
  /**
   * Per position channel: its index in a frame's translations (joint * 3 + axis) and its column. A frame's
   * translations start as a copy of the OFFSETs and only these are written over.
   */
  private readonly posTarget: Int32Array;
  private readonly posSource: Int32Array;
  private readonly sumColumns: Int32Array;
  private readonly additive: boolean;
  /** Per joint, its rotation sequence resolved once (not looked up for every frame). */
  private readonly specs: EulerSpec[] = [];
  /**
   * Per joint, the three angles (radians) its last computed quaternion came from; NaN before the first, so
   * that no angle equals them. The previous frame's quaternion is then that of these angles.
   */
  private readonly last: Float64Array;
  /** Per joint, 8 numbers for the WebAssembly converter; and the joints it leaves to `composeEuler`. */
  private readonly desc: Int32Array;
  private readonly proper: Int32Array;
  private readonly positions: Int32Array;

  constructor(
    joints: JointBuild[],
    private readonly width: number,
    capacityRows: number,
    positionMode: PositionMode,
  ) {
    const J = joints.length;
    this.joints = J;
    this.additive = positionMode === 'add';
    this.offsets = new Float64Array(J * 3);
    this.parents = new Int32Array(J);
    this.rotColumn = new Int32Array(J * 3).fill(-1);
    this.last = new Float64Array(J * 3).fill(Number.NaN);
    this.posColumn = new Int32Array(J * 3).fill(-1);
    const hasRotation = new Uint8Array(J);
    this.sums = new Float64Array(width);
    const sumColumns: number[] = [];
    let column = 0;
    for (let j = 0; j < J; j++) {
      const joint = joints[j];
      this.parents[j] = joint.parent;
      this.offsets.set(joint.offset, j * 3);
      const order = channelEulerOrder(joint.channels);
      this.orders.push(order);
      this.specs.push(eulerSpec(order));
      for (const c of joint.channels) {
        const r = ROTATION_AXIS[c];
        if (r !== undefined) {
          this.rotColumn[j * 3 + order.indexOf(AXES[r])] = column;
          hasRotation[j] = 1;
        } else {
          this.posColumn[j * 3 + (POSITION_AXIS[c] as number)] = column;
          sumColumns.push(column);
        }
        column++;
      }
    }
    this.sumColumns = Int32Array.from(sumColumns);
    const rotating: number[] = [];
    const still: number[] = [];
    const posTarget: number[] = [];
    const posSource: number[] = [];
    for (let j = 0; j < J; j++) {
      (hasRotation[j] ? rotating : still).push(j);
      for (let a = 0; a < 3; a++) {
        if (this.posColumn[j * 3 + a] < 0) continue;
        posTarget.push(j * 3 + a);
        posSource.push(this.posColumn[j * 3 + a]);
      }
    }
    this.rotating = Int32Array.from(rotating);
    this.still = Int32Array.from(still);
    // per joint, what the WebAssembly converter needs (see bvhEuler in numeric/simd.wat): kind (0 no rotation,
    // 1 Tait-Bryan, 2 proper: left to composeEuler), the columns of the intrinsic product's angles, the byte
    // offsets of its axes and its parity
    const desc = new Int32Array(J * 8);
    const proper: number[] = [];
    for (let j = 0; j < J; j++) {
      if (!hasRotation[j]) continue;
      const spec = this.specs[j];
      const c = this.rotColumn;
      desc.set(
        [
          spec.proper ? 2 : 1,
          c[j * 3 + (spec.extrinsic ? 2 : 0)],
          c[j * 3 + 1],
          c[j * 3 + (spec.extrinsic ? 0 : 2)],
          spec.i0 * 8,
          spec.i1 * 8,
          spec.i2 * 8,
          spec.sigma,
        ],
        j * 8,
      );
      if (spec.proper) proper.push(j);
    }
    this.desc = desc;
    this.proper = Int32Array.from(proper);
    // and for its translations: per position channel, the byte offsets in the frame's translations and in the row
    this.positions = new Int32Array(posTarget.length * 2);
    for (let k = 0; k < posTarget.length; k++) {
      this.positions[2 * k] = posTarget[k] * 8;
      this.positions[2 * k + 1] = posSource[k] * 8;
    }
    this.posTarget = Int32Array.from(posTarget);
    this.posSource = Int32Array.from(posSource);
    this.declaredRows = Math.max(0, capacityRows);
    // allocated by the first add, through the same branch that grows them: that branch has then always
    // run before add is optimised, and a file longer than it declares costs no deoptimisation
    this.rotations = new Float64Array(0);
    this.translations = new Float64Array(0);
  }

  /** Converts `rowCount` rows of `values` (`width` per row) into the next frames. */
  add(values: Float64Array, rowCount: number): void {
    const J = this.joints;
    const width = this.width;
    if (this.rows + rowCount > this.capacity) {
      // the declared rows first; past them, more rows than `Frames:` said: grow by at least an eighth so a
      // long tail stays linear
      // (both sizes read on every call, so neither property read is new to the optimised code)
      const declared = this.declaredRows;
      const first = Math.min(declared, this.firstRows);
      const grown =
        this.capacity < declared
          ? Math.min(declared, 2 * this.capacity)
          : this.capacity + Math.max(1024, this.capacity >> 3);
      const capacity = Math.max(this.rows + rowCount, this.rows === 0 ? first : grown);
      const rotations = recycledOrNew(capacity * J * 4);
      rotations.set(this.rotations.subarray(0, this.rows * J * 4));
      const translations = recycledOrNew(capacity * J * 3);
      translations.set(this.translations.subarray(0, this.rows * J * 3));
      this.rotations = rotations;
      this.translations = translations;
      this.capacity = capacity;
    }
    // rotations and translations of all rows by the WebAssembly converter where there is one; else the loop below
    const converted = this.convertRows(values, rowCount);
    const { rotations, translations, rotColumn, rotating, still, posTarget, posSource, offsets, specs } =
      this;
    const { sums, sumColumns, last } = this;
    const add = this.additive;
    for (let r = 0; r < rowCount; r++) {
      const row = r * width;
      const f = this.rows + r;
      const q0 = f * J * 4;
      if (!converted) {
        for (let k = 0; k < rotating.length; k++) {
          const j = rotating[k];
          const q = q0 + j * 4;
          const c0 = rotColumn[j * 3];
          const c1 = rotColumn[j * 3 + 1];
          const c2 = rotColumn[j * 3 + 2];
          const a0 = c0 < 0 ? 0 : values[row + c0] * DEG;
          const a1 = c1 < 0 ? 0 : values[row + c1] * DEG;
          const a2 = c2 < 0 ? 0 : values[row + c2] * DEG;
          const l = j * 3;
          // the same three angles as the joint's last frame (a still joint, common in real files) give the
          // same quaternion: copied, bit for bit, without trig. Zeros must match in sign too (a -0 angle may
          // give a -0 component), which 1 / a tells apart.
          if (
            a0 === last[l] &&
            a1 === last[l + 1] &&
            a2 === last[l + 2] &&
            (a0 * a1 * a2 !== 0 ||
              (1 / a0 === 1 / last[l] && 1 / a1 === 1 / last[l + 1] && 1 / a2 === 1 / last[l + 2]))
          ) {
            const p = q - 4 * J;
            rotations[q] = rotations[p];
            rotations[q + 1] = rotations[p + 1];
            rotations[q + 2] = rotations[p + 2];
            rotations[q + 3] = rotations[p + 3];
            continue;
          }
          last[l] = a0;
          last[l + 1] = a1;
          last[l + 2] = a2;
          // three +0 angles compose to exactly (0, 0, 0, 1): no trig. A -0 among them may give a -0
          // component, so that case (1/-0 = -Infinity) takes the full path.
          if (!(a0 === 0 && a1 === 0 && a2 === 0 && 1 / a0 + 1 / a1 + 1 / a2 > 0)) {
            composeEuler(rotations, q, specs[j], a0, a1, a2);
          } else {
            rotations[q] = 0;
            rotations[q + 1] = 0;
            rotations[q + 2] = 0;
            rotations[q + 3] = 1;
          }
        }
        for (let k = 0; k < still.length; k++) rotations[q0 + still[k] * 4 + 3] = 1;
        // the OFFSETs, then the position channels over them (most joints have none)
        const t0 = f * J * 3;
        translations.set(offsets, t0);
        for (let k = 0; k < posTarget.length; k++) {
          const v = values[row + posSource[k]];
          translations[t0 + posTarget[k]] = add ? offsets[posTarget[k]] + v : v;
        }
      }
      for (let k = 0; k < sumColumns.length; k++) sums[sumColumns[k]] += values[row + sumColumns[k]];
    }
    this.rows += rowCount;
  }

  /**
   * The quaternions and translations of rows `this.rows ..` from `rowCount` rows of `values`, by the
   * WebAssembly converter (`bvhEuler`, `bvhTranslations`: the same bits as the loop in {@link add}), a block
   * of rows at a time; the joints and angles it leaves (proper Euler orders, half angles beyond ±π/2,
   * non-finite values) by `composeEuler`. False, converting nothing, where there is no WebAssembly.
   */
  private convertRows(values: Float64Array, rowCount: number): boolean {
    const J = this.joints;
    const width = this.width;
    if (rowCount === 0 || J === 0) return false;
    const block = Math.max(1, Math.min(rowCount, Math.floor(CONVERT_BYTES / Math.max(width * 8, J * 32))));
    const descAt = 256;
    const valuesAt = descAt + J * 32;
    const outAt = valuesAt + ((block * width * 8 + 15) & ~15);
    const flagsAt = outAt + block * J * 32;
    const offsetsAt = flagsAt + block * J * 8;
    const positionsAt = offsetsAt + J * 24;
    const translationsAt = positionsAt + ((this.positions.length * 4 + 15) & ~15);
    const instance = simdScratch(translationsAt + block * J * 24);
    if (instance === null) return false;
    const buffer = instance.buffer;
    new Int32Array(buffer, descAt, J * 8).set(this.desc);
    new Float64Array(buffer, offsetsAt, J * 3).set(this.offsets);
    new Int32Array(buffer, positionsAt, this.positions.length).set(this.positions);
    const translationsOut = new Float64Array(buffer, translationsAt, block * J * 3);
    const positionCount = this.positions.length / 2;
    const additive = this.additive ? 1 : 0;
    const valuesIn = new Float64Array(buffer, valuesAt, block * width);
    const out = new Float64Array(buffer, outAt, block * J * 4);
    const flags = new Int32Array(buffer, flagsAt, block * J * 2);
    const proper = this.proper;
    for (let r0 = 0; r0 < rowCount; r0 += block) {
      const n = Math.min(block, rowCount - r0);
      valuesIn.set(values.subarray(r0 * width, (r0 + n) * width));
      const left = instance.kernels.bvhEuler(valuesAt, n, width, descAt, J, outAt, flagsAt);
      this.rotations.set(n === block ? out : out.subarray(0, n * J * 4), (this.rows + r0) * J * 4);
      for (let i = 0; i < left; i++) this.convertOne(values, r0 + flags[2 * i], flags[2 * i + 1]);
      for (let r = r0; r < r0 + n; r++)
        for (let k = 0; k < proper.length; k++) this.convertOne(values, r, proper[k]);
      instance.kernels.bvhTranslations(
        valuesAt,
        n,
        width,
        offsetsAt,
        J * 3,
        positionsAt,
        positionCount,
        additive,
        translationsAt,
      );
      this.translations.set(
        n === block ? translationsOut : translationsOut.subarray(0, n * J * 3),
        (this.rows + r0) * J * 3,
      );
    }
    // the loop's memory of each joint's last angles no longer describes the frame before
    this.last.fill(Number.NaN);
    return true;
  }

  /** Joint `j` of row `r` of `values` (frame `this.rows + r`), as the loop in {@link add} computes it. */
  private convertOne(values: Float64Array, r: number, j: number): void {
    const row = r * this.width;
    const c = this.rotColumn;
    const c0 = c[j * 3];
    const c1 = c[j * 3 + 1];
    const c2 = c[j * 3 + 2];
    composeEuler(
      this.rotations,
      ((this.rows + r) * this.joints + j) * 4,
      this.specs[j],
      c0 < 0 ? 0 : values[row + c0] * DEG,
      c1 < 0 ? 0 : values[row + c1] * DEG,
      c2 < 0 ? 0 : values[row + c2] * DEG,
    );
  }

  /** Trims the arrays to the rows read (copies only when the file had fewer or more rows than declared). */
  finish(): void {
    const J = this.joints;
    if (this.capacity !== this.rows) {
      this.rotations = this.rotations.slice(0, this.rows * J * 4);
      this.translations = this.translations.slice(0, this.rows * J * 3);
      this.capacity = this.rows;
    }
  }
}

export function buildClip(
  joints: JointBuild[],
  endSites: EndSite[],
  header: MotionHeader,
  converter: FrameConverter,
  positionMode: PositionMode,
): Clip {
  const J = joints.length;
  const frames = converter.rows;
  // filled by push rather than `map`, whose result's element kind varies between calls: code that reads
  // these arrays (the writer, FK) would otherwise meet several array maps and be compiled again
  const names: string[] = [];
  const channels: ChannelName[][] = [];
  for (const joint of joints) {
    names.push(joint.name);
    channels.push(joint.channels);
  }
  const animated = new Uint8Array(J);
  for (let j = 0; j < J; j++) {
    for (const c of channels[j])
      animated[j] |= c.endsWith('rotation') ? ANIMATED_ROTATION : ANIMATED_TRANSLATION;
  }
  const restRotations = new Float64Array(J * 4);
  for (let j = 0; j < J; j++) restRotations[j * 4 + 3] = 1;
  const source: BvhSource = {
    format: 'bvh',
    channels,
    endSites,
    positionMode,
    frameTimeText: header.frameTimeText,
    frameTime: header.frameTime,
  };
  return {
    skeleton: {
      names,
      parents: converter.parents,
      restTranslations: converter.offsets,
      restRotations,
      restScales: new Float64Array(J * 3).fill(1),
    },
    frameTime: header.frameTime,
    rate: header.rate ?? 1 / header.frameTime,
    frames,
    rotations: { data: converter.rotations, frames, joints: J },
    translations: { data: converter.translations, frames, joints: J },
    animated,
    orders: converter.orders,
    source,
  };
}

/**
 * Warns when a root's position channels look like they were meant for the other position mode: in
 * `'replace'` mode, channels that sit near zero while the OFFSET is far from zero (an additive file such
 * as CMU-via-iClone `OFFSET 0 105 0` with channels of a few units); in `'add'` mode, channels that sit on
 * the OFFSET (adding would double it). Only OFFSET components of at least a quarter of the largest one
 * take part, and all of them must agree.
 *
 * A root alone is weak evidence: a capture can stand away from its rest position. Non-root joints with
 * position channels are strong evidence, since bones do not stretch: in Blender's exports (position
 * channels on every joint that is not connected to its parent) they sit exactly on their OFFSETs, which
 * says `'replace'` whatever the root does. So a root that looks like the other mode is not reported when
 * other joints' channels confirm the mode read, and the message says which evidence it rests on (the root
 * alone, or other joints that agree).
 */
export function checkRootPositions(
  clip: Clip,
  joints: JointBuild[],
  converter: FrameConverter,
  positionMode: PositionMode,
  warn: (w: BvhWarning) => void,
): void {
  if (clip.frames === 0) return;
  const limbs = limbEvidence(joints, converter, clip.frames);
  let column = 0;
  for (let j = 0; j < joints.length; j++) {
    const joint = joints[j];
    const start = column;
    column += joint.channels.length;
    if (joint.parent !== -1) continue;
    const off = joint.offset;
    const largest = Math.max(Math.abs(off[0]), Math.abs(off[1]), Math.abs(off[2]));
    if (largest === 0) continue;
    let considered = 0;
    let suspicious = 0;
    joint.channels.forEach((c, k) => {
      const axis = POSITION_AXIS[c];
      if (axis === undefined || Math.abs(off[axis]) < 0.25 * largest) return;
      const mean = converter.sums[start + k] / clip.frames;
      considered++;
      const fromOffset = Math.abs(mean - off[axis]);
      const fromZero = Math.abs(mean);
      if (positionMode === 'replace' && fromOffset > 0.5 * Math.abs(off[axis]) && fromZero < fromOffset)
        suspicious++;
      if (positionMode === 'add' && fromOffset < 0.1 * Math.abs(off[axis])) suspicious++;
    });
    if (considered > 0 && suspicious === considered) {
      const other = positionMode === 'replace' ? 'add' : 'replace';
      // other joints sitting on their OFFSETs confirm 'replace' (Blender's exports); near zero, 'add'
      const confirmed = positionMode === 'replace' ? limbs.onOffset : limbs.nearZero;
      const against = positionMode === 'replace' ? limbs.nearZero : limbs.onOffset;
      if (confirmed > against) continue;
      const basis =
        against > 0
          ? `; ${against} position channel(s) of other joints agree`
          : '; judged from the root alone (no other joint has position channels), so it may also be a capture that stands away from its rest position';
      warn({
        code: 'position-offset',
        message:
          positionMode === 'replace'
            ? `the position channels of root ${quoteToken(joint.name)} sit far from its OFFSET (${off.join(' ')}) and near zero; the file may be meant for positionMode '${other}'${basis}`
            : `the position channels of root ${quoteToken(joint.name)} sit on its OFFSET (${off.join(' ')}); adding doubles it, the file may be meant for positionMode '${other}'${basis}`,
        line: joint.line,
        column: joint.column,
      });
    }
  }
}

/**
 * How the position channels of non-root joints relate to their OFFSETs, counted per component with an
 * OFFSET of at least 1e-3 file units: the mean channel value within 10% of the OFFSET (`onOffset`: the
 * channel restates it, 'replace') or within 10% of the OFFSET's size from zero (`nearZero`: 'add').
 * The means are of the channel values as written (the converter sums them before any OFFSET is added).
 */
function limbEvidence(
  joints: JointBuild[],
  converter: FrameConverter,
  frames: number,
): { onOffset: number; nearZero: number } {
  let onOffset = 0;
  let nearZero = 0;
  let column = 0;
  for (let j = 0; j < joints.length; j++) {
    const joint = joints[j];
    const start = column;
    column += joint.channels.length;
    if (joint.parent === -1) continue;
    joint.channels.forEach((c, k) => {
      const axis = POSITION_AXIS[c];
      if (axis === undefined) return;
      const off = joint.offset[axis];
      if (Math.abs(off) < 1e-3) return;
      const mean = converter.sums[start + k] / frames;
      if (Math.abs(mean - off) <= 0.1 * Math.abs(off)) onOffset++;
      else if (Math.abs(mean) <= 0.1 * Math.abs(off)) nearZero++;
    });
  }
  return { onOffset, nearZero };
}

export function checkAddedTranslations(translations: Float64Array, joints: JointBuild[], line: number): void {
  const J = joints.length;
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i])) {
      const item = Math.floor(i / 3);
      const joint = joints[item % J];
      throw new BvhParseError(
        `OFFSET + position channel of joint ${quoteToken(joint.name)} at frame ${Math.floor(item / J)} overflows to ${translations[i]}`,
        line,
        1,
      );
    }
  }
}
