/**
 * Key playback for optimal down-sampling: the raw-space linear / Catmull-Rom reconstruction of source
 * frames from keys, as sparse taps, and its error measures. Shared by `downsampleOptimal` and its tests;
 * not a public operation itself.
 *
 * @module
 */
import { InvalidValueError } from '../../errors.js';
import { rationalRatio } from '../../numeric/rational.js';
import { catmullRom, type Kernel, tent } from '../kernel/kernels.js';

/** Up-samplers playback may use; both in raw quaternion space (normalised weighted sum, like nlerp). */
export type PlaybackKernel = 'linear' | 'catmull-rom';

/** Reconstruction error of a set of keys against the source. */
export interface PlaybackError {
  /** Mean geodesic angle between played-back and source rotations over frames and joints, radians. */
  meanAngle: number;
  /** Largest such angle, radians. */
  maxAngle: number;
  /**
   * Mean over frames and joints of the squared distance between played-back and source quaternions, the
   * nearer of ±source (the rotation term).
   */
  meanSquared: number;
  /** Mean global position error over frames and joints, clip units (only with `fk`). */
  meanPosition?: number;
  /** Largest global position error, clip units (only with `fk`). */
  maxPosition?: number;
}

/** Taps of the playback reconstruction of every source frame: key indices and weights (≤ 4 each). @internal */
export interface PlaybackTaps {
  keys: number;
  frames: number;
  width: number;
  index: Int32Array;
  weight: Float64Array;
  count: Uint8Array;
  /** Per source frame, the tap with the largest weight (the nearest key): the sign reference. */
  reference: Uint8Array;
}

function playbackKernel(name: PlaybackKernel): Kernel {
  return name === 'linear' ? tent : catmullRom;
}

/**
 * Key grid and playback taps: key j sits at source position `j · sourceRate / targetRate`; source frame
 * i is played back at key position `x = i · targetRate / sourceRate` with the kernel's weights at the keys
 * around x, key indices clamped to the grid. Keys cover the whole source (the last key is on or after
 * the source's last frame). @internal
 */
export function playbackTaps(
  frames: number,
  sourceRate: number,
  targetRate: number,
  playback: PlaybackKernel,
): PlaybackTaps {
  const kernel = playbackKernel(playback);
  const r = Math.ceil(kernel.radius);
  const width = 2 * r;
  const pq = rationalRatio(targetRate, sourceRate);
  const pos = (i: number) => (pq ? (i * pq[0]) / pq[1] : (i * targetRate) / sourceRate);
  const last = frames > 0 ? pos(frames - 1) : 0;
  const nearest = Math.round(last);
  const keys =
    frames > 0 ? (Math.abs(last - nearest) < 1e-9 * Math.max(1, last) ? nearest : Math.ceil(last)) + 1 : 0;
  const index = new Int32Array(frames * width);
  const weight = new Float64Array(frames * width);
  const count = new Uint8Array(frames);
  const reference = new Uint8Array(frames);
  for (let i = 0; i < frames; i++) {
    const x = pos(i);
    const j0 = Math.floor(x);
    let c = 0;
    for (let j = j0 - r + 1; j <= j0 + r; j++) {
      const w = kernel.evaluate(x - j);
      if (w === 0) continue;
      const k = j < 0 ? 0 : j >= keys ? keys - 1 : j;
      // merge clamped duplicates
      let merged = false;
      for (let t = 0; t < c; t++) {
        if (index[i * width + t] === k) {
          weight[i * width + t] += w;
          merged = true;
          break;
        }
      }
      if (!merged) {
        index[i * width + c] = k;
        weight[i * width + c] = w;
        c++;
      }
    }
    count[i] = c;
    let best = 0;
    for (let t = 1; t < c; t++) if (weight[i * width + t] > weight[i * width + best]) best = t;
    reference[i] = best;
  }
  return { keys, frames, width, index, weight, count, reference };
}

/**
 * Plays keys back at the source frames: `normalize(Σ ±wₜ·k_jₜ)` per joint (raw space, nlerp-like: a key
 * on the other hemisphere than the nearest key enters with the opposite sign, as in the shared
 * rotation-blend engine's raw blend). Writes `frames x joints x 4` into `out`; also the norms `|Σ wₜ·k_jₜ|` into
 * `norms` when given. @internal
 */
export function playback(
  taps: PlaybackTaps,
  keys: Float64Array,
  joints: number,
  out: Float64Array,
  norms?: Float64Array,
): void {
  const { frames, width, index, weight, count, reference } = taps;
  for (let i = 0; i < frames; i++) {
    const c = count[i];
    const base = i * width;
    for (let a = 0; a < joints; a++) {
      const ro = (index[base + reference[i]] * joints + a) * 4;
      const rx = keys[ro];
      const ry = keys[ro + 1];
      const rz = keys[ro + 2];
      const rw = keys[ro + 3];
      let x = 0;
      let y = 0;
      let z = 0;
      let w = 0;
      for (let t = 0; t < c; t++) {
        const o = (index[base + t] * joints + a) * 4;
        // keys on the other hemisphere than the nearest key count with the opposite sign (shortest arc)
        const d = rx * keys[o] + ry * keys[o + 1] + rz * keys[o + 2] + rw * keys[o + 3];
        const wt = d < 0 ? -weight[base + t] : weight[base + t];
        x += wt * keys[o];
        y += wt * keys[o + 1];
        z += wt * keys[o + 2];
        w += wt * keys[o + 3];
      }
      const n = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(n > 1e-12)) {
        throw new InvalidValueError(
          `downsampleOptimal: played-back rotation vanished at frame ${i}, joint ${a}`,
          {
            frame: i,
            joint: a,
          },
        );
      }
      const o = (i * joints + a) * 4;
      out[o] = x / n;
      out[o + 1] = y / n;
      out[o + 2] = z / n;
      out[o + 3] = w / n;
      if (norms) norms[i * joints + a] = n;
    }
  }
}

/** Error of played-back rotations (and positions) against the source. @internal */
export function measurePlayback(
  played: Float64Array,
  source: Float64Array,
  count: number,
  positions?: Float64Array,
  target?: Float64Array,
): PlaybackError {
  let sumA = 0;
  let maxA = 0;
  let sumSq = 0;
  for (let n = 0; n < count; n++) {
    const o = n * 4;
    const sg =
      played[o] * source[o] +
        played[o + 1] * source[o + 1] +
        played[o + 2] * source[o + 2] +
        played[o + 3] * source[o + 3] <
      0
        ? -1
        : 1;
    const dx = played[o] - sg * source[o];
    const dy = played[o + 1] - sg * source[o + 1];
    const dz = played[o + 2] - sg * source[o + 2];
    const dw = played[o + 3] - sg * source[o + 3];
    sumSq += dx * dx + dy * dy + dz * dz + dw * dw;
    const d = Math.abs(
      played[o] * source[o] +
        played[o + 1] * source[o + 1] +
        played[o + 2] * source[o + 2] +
        played[o + 3] * source[o + 3],
    );
    const ang = 2 * Math.acos(Math.min(1, d));
    sumA += ang;
    if (ang > maxA) maxA = ang;
  }
  const e: PlaybackError = {
    meanAngle: count > 0 ? sumA / count : 0,
    maxAngle: maxA,
    meanSquared: count > 0 ? sumSq / count : 0,
  };
  if (positions && target) {
    let sp = 0;
    let mp = 0;
    for (let n = 0; n < count; n++) {
      const d = Math.hypot(
        positions[n * 3] - target[n * 3],
        positions[n * 3 + 1] - target[n * 3 + 1],
        positions[n * 3 + 2] - target[n * 3 + 2],
      );
      sp += d;
      if (d > mp) mp = d;
    }
    e.meanPosition = count > 0 ? sp / count : 0;
    e.maxPosition = mp;
  }
  return e;
}

/**
 * The normal equations `(BᵀB)·K = Bᵀ·X` of least-squares keys for a player whose taps are `taps` (B, from
 * `K` keys to the source frames): `BᵀB` in band storage (`ab`, half-bandwidth `b = taps.width − 1`, see
 * `numeric/banded.ts`) and `BᵀX` (`rhs`, `K x channels`) for a frame-major signal `src` of `channels`
 * values per frame. One matrix serves every channel.
 */
export function playbackNormalEquations(
  taps: PlaybackTaps,
  frames: number,
  K: number,
  src: ArrayLike<number>,
  channels: number,
): { ab: Float64Array; rhs: Float64Array; b: number } {
  const b = taps.width - 1;
  const ab = new Float64Array(K * (b + 1));
  const rhs = new Float64Array(K * channels);
  const { index, weight, count, width } = taps;
  for (let i = 0; i < frames; i++) {
    const base = i * width;
    for (let t = 0; t < count[i]; t++) {
      const kt = index[base + t];
      const wt = weight[base + t];
      for (let u = 0; u < count[i]; u++) {
        const ku = index[base + u];
        if (ku > kt) continue;
        ab[kt * (b + 1) + (ku - kt + b)] += wt * weight[base + u];
      }
      const so = i * channels;
      const ro = kt * channels;
      for (let c = 0; c < channels; c++) rhs[ro + c] += wt * src[so + c];
    }
  }
  return { ab, rhs, b };
}
