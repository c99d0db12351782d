/**
 * What `rotsig info` reports about a clip: frame rate as written and as a rational guess, position-channel
 * semantics, discontinuities per joint, peak angular speed per joint, and the frequency content (the
 * frequency below which most energy lies and the lowest sample rate that keeps it).
 *
 * @module
 */
import { InvalidValueError, OptionError } from '../../errors.js';
import {
  frozenDefaults,
  integerIn,
  numberIn,
  type OptionSpec,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { angle } from '../../quat/core.js';
import type { Clip, PositionMode } from '../../series/clip.js';
import { animatedPaths, bvhSourceOf } from '../../series/clip-create.js';
import { checkClip } from '../skeleton/clip-check.js';
import { clipSpectrum } from '../spectrum/clip-spectrum.js';
import { type Discontinuity, findDiscontinuities } from './find-discontinuities.js';
import { guessRate, type RateGuess } from './rate.js';

export { guessRate, type RateGuess } from './rate.js';

/** Options of {@link analyzeClip}. */
export interface AnalyzeClipOptions {
  /** Share of the spectral energy the reported frequency keeps, in (0, 1). Default 0.99. */
  share?: number;
  /** How many worst discontinuities to list per joint. Default 3. */
  worst?: number;
  /** Plausible maximum angular speed (rad/s) above which a frame step is a jump; see `findDiscontinuities`. Default 25. */
  maxAngularSpeed?: number;
}

/** Defaults of {@link AnalyzeClipOptions}. */
export const ANALYZE_CLIP_DEFAULTS: Required<AnalyzeClipOptions> = frozenDefaults({
  share: 0.99,
  worst: 3,
  maxAngularSpeed: 25,
});

const ANALYZE_CLIP_SPEC: OptionSpec = {
  share: numberIn(0, 1, true),
  worst: integerIn(0),
  maxAngularSpeed: POSITIVE_NUMBER,
};

/** Which position-channel semantics a clip's data suggests (see `PositionMode`). */
export interface PositionGuess {
  /** `'replace'`, `'add'`, `'either'` (offsets are zero, both read the same) or `'none'` (no position channels). */
  guess: 'replace' | 'add' | 'either' | 'none';
  /** How the clip was read. */
  readAs: PositionMode;
  /**
   * `'high'` when non-root joints with position channels decided (bones do not stretch, so their channels
   * either restate the OFFSET or sit near zero); `'low'` when only a root did (a capture can also stand
   * away from its rest position); `'none'` for the guesses `'either'` and `'none'`.
   */
  confidence: 'high' | 'low' | 'none';
  /** One sentence with the evidence. */
  reason: string;
}

/**
 * Guesses whether a clip's position channels restate the OFFSET (`'replace'`) or move relative to it
 * (`'add'`): for every joint with position channels and a non-zero OFFSET component, compares the median
 * channel value with the OFFSET and with zero. Channels that sit near the OFFSET mean "replace" (Blender,
 * 6-channel exports); channels much smaller than a large OFFSET mean "add" (some CMU conversions).
 * Non-root joints decide when they have position channels (Blender writes them on every joint not
 * connected to its parent, on the OFFSET), with confidence `'high'`; a root alone decides with `'low'`.
 *
 * @example
 * guessPositionSemantics(parseBvh(text)).guess; // 'add' for the iClone CMU re-export 005_11
 */
export function guessPositionSemantics(clip: Clip): PositionGuess {
  checkClip(clip, 'guessPositionSemantics');
  const { skeleton, translations, frames } = clip;
  const J = skeleton.names.length;
  // Each component votes with its distance to the OFFSET and to zero, so tiny OFFSET components (1e-5)
  // do not outvote a large one.
  let toOffset = 0;
  let toZero = 0;
  let limbToOffset = 0;
  let limbToZero = 0;
  let limbVotes = 0;
  let anyChannel = false;
  let anyOffset = false;
  let evidence = '';
  let evidenceWeight = -1;
  const column = new Float64Array(frames);
  const source = bvhSourceOf(clip);
  const readAs: PositionMode = source?.positionMode ?? 'replace';
  if (source === undefined)
    return { guess: 'none', readAs, confidence: 'none', reason: 'not read from BVH: no position channels' };
  for (let j = 0; j < J; j++) {
    const ch = source.channels[j];
    for (let c = 0; c < 3; c++) {
      const name = (['Xposition', 'Yposition', 'Zposition'] as const)[c];
      if (!ch.includes(name)) continue;
      anyChannel = true;
      const off = skeleton.restTranslations[j * 3 + c];
      if (Math.abs(off) < 1e-9 || frames === 0) continue;
      anyOffset = true;
      for (let f = 0; f < frames; f++) {
        const t = translations.data[(f * J + j) * 3 + c];
        column[f] = readAs === 'add' ? t - off : t;
      }
      const med = median(column);
      toOffset += Math.abs(med - off);
      toZero += Math.abs(med);
      if (skeleton.parents[j] >= 0 && Math.abs(off) >= 1e-3) {
        limbToOffset += Math.abs(med - off);
        limbToZero += Math.abs(med);
        limbVotes++;
      }
      if (Math.abs(off) > evidenceWeight) {
        evidenceWeight = Math.abs(off);
        evidence = `${skeleton.names[j]} ${name}: median channel ${fmt(med)}, OFFSET ${fmt(off)}`;
      }
    }
  }
  if (!anyChannel) return { guess: 'none', readAs, confidence: 'none', reason: 'no position channels' };
  if (!anyOffset)
    return {
      guess: 'either',
      readAs,
      confidence: 'none',
      reason: 'OFFSETs of joints with position channels are zero',
    };
  if (limbVotes > 0) {
    const basis = `${limbVotes} position channel(s) of non-root joints, which do not stretch`;
    if (limbToOffset <= limbToZero)
      return {
        guess: 'replace',
        readAs,
        confidence: 'high',
        reason: `channels sit on the OFFSETs (${basis})`,
      };
    return {
      guess: 'add',
      readAs,
      confidence: 'high',
      reason: `channels are small next to the OFFSETs (${basis})`,
    };
  }
  const alone =
    'judged from the root alone: a capture that stands away from its rest position looks the same';
  if (toOffset <= toZero)
    return {
      guess: 'replace',
      readAs,
      confidence: 'low',
      reason: `channels sit near the OFFSET (${evidence}); ${alone}`,
    };
  return {
    guess: 'add',
    readAs,
    confidence: 'low',
    reason: `channels are small next to the OFFSET (${evidence}); ${alone}`,
  };
}

function median(values: Float64Array): number {
  const s = Float64Array.from(values).sort();
  const n = s.length;
  return n % 2 ? s[(n - 1) >> 1] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

function fmt(x: number): string {
  return Number(x.toPrecision(5)).toString();
}

/**
 * Peak angular speed per joint in rad/s: the largest geodesic angle between consecutive frames times the
 * rate, with the later frame of that pair (as `findDiscontinuities` numbers its entries). Sign flips between frames count as no motion (the angle is
 * sign-invariant). Steps larger than `maxStep` radians (jumps: glitches, cuts, a T-pose first frame) are
 * skipped when it is given. Clips of fewer than 2 frames give zeros.
 *
 * @example
 * const { speed, frame } = peakAngularSpeeds(clip); // rad/s between frame[j] - 1 and frame[j]
 */
export function peakAngularSpeeds(
  clip: Clip,
  maxStep = Number.POSITIVE_INFINITY,
): { speed: Float64Array; frame: Int32Array } {
  checkClip(clip, 'peakAngularSpeeds');
  if (typeof maxStep !== 'number' || Number.isNaN(maxStep))
    throw new OptionError(`peakAngularSpeeds: maxStep must be a number of radians, got ${String(maxStep)}`);
  const { data, frames, joints } = clip.rotations;
  const speed = new Float64Array(joints);
  const frame = new Int32Array(joints);
  for (let f = 0; f + 1 < frames; f++) {
    for (let j = 0; j < joints; j++) {
      const a = (f * joints + j) * 4;
      const b = a + joints * 4;
      const step = angle(data.subarray(a, a + 4), data.subarray(b, b + 4));
      if (step > maxStep) continue;
      const s = step * clip.rate;
      if (s > speed[j]) {
        speed[j] = s;
        frame[j] = f + 1;
      }
    }
  }
  for (let j = 0; j < joints; j++) {
    if (!Number.isFinite(speed[j]))
      throw new InvalidValueError(`peakAngularSpeeds: the speed of joint ${j} overflows`, { joint: j });
  }
  return { speed, frame };
}

/** Per joint facts in a {@link ClipAnalysis}. */
export interface JointAnalysis {
  name: string;
  parent: number;
  channels: string[];
  /** Intrinsic Euler order of the rotation channels (SciPy notation). */
  order: string;
  /** Largest angular speed between consecutive frames, rad/s, and the later frame of that pair. */
  peakSpeed: number;
  peakFrame: number;
  /** The same without the steps counted as jumps: the fastest plausible motion of the joint. */
  motionPeakSpeed: number;
  motionPeakFrame: number;
  /** Quaternion sign flips between consecutive frames (in a BVH file: an Euler channel wrapping ±180°). */
  signFlips: number;
  /** Steps faster than the plausible maximum angular speed (glitches, cuts, T-pose frames). */
  jumps: number;
  /** The largest discontinuities of this joint (jumps first, then by angle), at most `worst`. */
  worst: Discontinuity[];
}

/** What {@link analyzeClip} returns. */
export interface ClipAnalysis {
  joints: number;
  frames: number;
  /** Seconds from the first to the last frame. */
  duration: number;
  /** Total channel count of the skeleton. */
  channels: number;
  rate: RateGuess;
  positions: PositionGuess;
  /** Totals over all joints and the step angle (radians) above which a step counts as a jump. */
  discontinuities: { signFlips: number; jumps: number; jumpThreshold: number };
  /**
   * Frequency content of the continuous rotation channels (`clipSpectrum`): the frequency below which
   * `share` of the energy lies and twice it, the lowest sample rate that keeps it. Null for a clip of
   * fewer than 2 frames.
   */
  spectrum: { share: number; energyFrequency: number; safeRate: number; peakDb: number } | null;
  perJoint: JointAnalysis[];
  /**
   * The first jump when it comes within the first tenth of the clip (a T-pose first frame, a cut-in):
   * `frame` is the later frame of the step (the first frame to keep when trimming), `joints` how many
   * joints jump there, `joint`/`angle` (radians) the largest of those steps. Null otherwise. Smoothing
   * and resampling with `segments: 'jumps'` (the CLI's default) split there.
   */
  leadingJump: { frame: number; joints: number; joint: string; angle: number } | null;
}

/**
 * Inspects a clip: skeleton and channels, rate (as written and as a rational guess), duration,
 * position-channel semantics, discontinuities per joint (quaternion sign flips, which in a BVH file are
 * Euler wraps, and jumps faster than `maxAngularSpeed`, via `findDiscontinuities`), peak angular speed per
 * joint, and the frequency below which `share` of the rotation energy lies with the lowest sample rate
 * that keeps it (`clipSpectrum`). This is what `rotsig info` prints.
 *
 * @example
 * const a = analyzeClip(parseBvh(text));
 * a.rate.guessHz; // 120 for CMU's `.0083333`
 */
export function analyzeClip(clip: Clip, options: AnalyzeClipOptions = {}): ClipAnalysis {
  checkClip(clip, 'analyzeClip');
  const o = resolveOptions('analyzeClip', options, ANALYZE_CLIP_DEFAULTS, ANALYZE_CLIP_SPEC);
  if (!Number.isSafeInteger(o.worst) || o.worst < 0)
    throw new OptionError(`analyzeClip: worst must be a non-negative integer, got ${String(o.worst)}`);
  if (typeof o.maxAngularSpeed !== 'number' || !(o.maxAngularSpeed > 0))
    throw new OptionError(
      `analyzeClip: maxAngularSpeed must be a positive number of rad/s, got ${String(o.maxAngularSpeed)}`,
    );
  if (!(o.share > 0 && o.share < 1))
    throw new OptionError(`analyzeClip: share must be in (0, 1), got ${String(o.share)}`);
  const { skeleton } = clip;
  const J = skeleton.names.length;
  const peaks = peakAngularSpeeds(clip);
  const jumpThreshold = Math.min(Math.PI, o.maxAngularSpeed / clip.rate);
  const motionPeaks = peakAngularSpeeds(clip, jumpThreshold);
  const found = findDiscontinuities(clip.rotations, { rate: clip.rate, maxAngularSpeed: o.maxAngularSpeed });
  const byJoint: Discontinuity[][] = Array.from({ length: J }, () => []);
  for (const d of found) byJoint[d.joint].push(d);
  let signFlips = 0;
  let jumps = 0;
  const perJoint: JointAnalysis[] = [];
  let channels = 0;
  const source = bvhSourceOf(clip);
  for (let j = 0; j < J; j++) {
    const jointChannels: string[] = source ? [...source.channels[j]] : animatedPaths(clip.animated[j]);
    channels += jointChannels.length;
    const list = byJoint[j];
    const flips = list.filter((d) => d.kind === 'sign-flip').length;
    signFlips += flips;
    jumps += list.length - flips;
    const worst = [...list]
      .sort((a, b) => (a.kind === 'jump' ? 0 : 1) - (b.kind === 'jump' ? 0 : 1) || b.angle - a.angle)
      .slice(0, o.worst);
    perJoint.push({
      name: skeleton.names[j],
      parent: skeleton.parents[j],
      channels: jointChannels,
      order: clip.orders[j],
      peakSpeed: peaks.speed[j],
      peakFrame: peaks.frame[j],
      motionPeakSpeed: motionPeaks.speed[j],
      motionPeakFrame: motionPeaks.frame[j],
      signFlips: flips,
      jumps: list.length - flips,
      worst,
    });
  }
  return {
    joints: J,
    frames: clip.frames,
    duration: Math.max(0, clip.frames - 1) * clip.frameTime,
    channels,
    // the frame time as the file wrote it (the reader may have read `.0083333` as 1/120 s)
    rate: ((text) => guessRate(text === undefined ? clip.frameTime : Number(text), text))(
      frameTimeTextOf(clip),
    ),
    positions: guessPositionSemantics(clip),
    discontinuities: { signFlips, jumps, jumpThreshold },
    spectrum: spectrumSummary(clip, o.share),
    perJoint,
    leadingJump: leadingJumpOf(found, clip),
  };
}

function leadingJumpOf(found: Discontinuity[], clip: Clip): ClipAnalysis['leadingJump'] {
  let first = -1;
  for (const d of found) if (d.kind === 'jump' && (first < 0 || d.frame < first)) first = d.frame;
  if (first < 0 || first > Math.max(1, Math.floor(0.1 * clip.frames))) return null;
  let joints = 0;
  let worst: Discontinuity | null = null;
  for (const d of found) {
    if (d.kind !== 'jump' || d.frame !== first) continue;
    joints++;
    if (worst === null || d.angle > worst.angle) worst = d;
  }
  if (worst === null) return null;
  return { frame: first, joints, joint: clip.skeleton.names[worst.joint], angle: worst.angle };
}

function spectrumSummary(clip: Clip, share: number): ClipAnalysis['spectrum'] {
  if (clip.frames < 2) return null;
  const s = clipSpectrum(clip, { energyShare: share });
  let peakDb = Number.NEGATIVE_INFINITY;
  for (let i = 1; i < s.maxDb.length; i++) peakDb = Math.max(peakDb, s.maxDb[i]);
  return { share, energyFrequency: s.energyFrequency, safeRate: s.recommendedRate, peakDb };
}

/** The frame time as the source wrote it, while it still reads back to the clip's frame time. */
/**
 * The `Frame Time:` text of a clip read from BVH, while the clip still has the frame time it was read
 * with; undefined otherwise.
 *
 * @example
 * frameTimeTextOf(parseBvh(cmu0101Text)); // '.0083333'
 */
export function frameTimeTextOf(clip: Clip): string | undefined {
  const source = bvhSourceOf(clip);
  const text = source?.frameTimeText;
  // the reader may have read the text as the standard rate it stands for (`.0083333` as 1/120 s)
  return text !== undefined && (Number(text) === clip.frameTime || source?.frameTime === clip.frameTime)
    ? text
    : undefined;
}
