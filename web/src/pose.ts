import { type Clip, forwardKinematicsFrame, type QuatSeries, quat, type Vec3Series } from 'rotsig';
import { resampleRotations, resampleVectors } from './ops.js';

/** How playback evaluates the clip between frames. */
export type PlayKernel = 'nearest' | 'linear' | 'catmull-rom' | 'cubic6' | 'lanczos3';

/** Frames on each side of the playback position handed to the resampler (more than any kernel's radius). */
const WINDOW = 4;

/** Kernels evaluated by the library's resampler at the display time (the others are direct). */
export const RESAMPLED_KERNELS: PlayKernel[] = ['catmull-rom', 'cubic6', 'lanczos3'];

/**
 * Samples a clip's local pose at any time with any kernel: `'nearest'` and `'linear'` directly (copy, slerp and
 * lerp), the other kernels through `resampleRotations` / `resampleVectors` at one explicit time, writing
 * into preallocated one-frame series.
 */
export class PoseSampler {
  private readonly rot: QuatSeries<Float64Array>;
  private readonly trans: Vec3Series<Float64Array>;
  private readonly times = new Float64Array(1);

  constructor(readonly clip: Clip) {
    const J = clip.skeleton.names.length;
    this.rot = { data: new Float64Array(J * 4), frames: 1, joints: J };
    this.trans = { data: new Float64Array(J * 3), frames: 1, joints: J };
  }

  sample(
    p: number,
    kernel: PlayKernel,
    outRot: Float64Array,
    outTrans: Float64Array,
    outScale: Float64Array | null = null,
  ): void {
    const clip = this.clip;
    if (kernel === 'nearest' || kernel === 'linear' || clip.frames < 2) {
      localPoseAt(clip, p, kernel === 'nearest' ? 'nearest' : 'linear', outRot, outTrans, outScale);
      return;
    }
    // scales (glTF) are lerped; rotations and translations go through the kernel
    if (outScale) scaleAt(clip, p, outScale);
    // evaluate on a window of frames around p (views, no copy): the kernel's taps (radius <= 3) never reach
    // a window edge that is not also a clip edge, so the result equals evaluating the whole clip, and the
    // cost does not grow with the clip's length
    const J = clip.rotations.joints;
    const pc = Math.min(Math.max(p, 0), clip.frames - 1);
    const f0 = Math.max(0, Math.floor(pc) - WINDOW);
    const f1 = Math.min(clip.frames - 1, Math.floor(pc) + WINDOW + 1);
    const n = f1 - f0 + 1;
    const rot = { data: clip.rotations.data.subarray(f0 * J * 4, (f1 + 1) * J * 4), frames: n, joints: J };
    const trans = {
      data: clip.translations.data.subarray(f0 * J * 3, (f1 + 1) * J * 3),
      frames: n,
      joints: J,
    };
    this.times[0] = (pc - f0) / clip.rate;
    const o = { sourceRate: clip.rate, times: this.times, kernel, boundary: 'clamp' as const };
    resampleRotations(rot, { ...o, space: 'log', out: this.rot });
    resampleVectors(trans, { ...o, out: this.trans });
    outRot.set(this.rot.data);
    outTrans.set(this.trans.data);
  }
}

/**
 * Evaluates a clip's local pose at fractional frame position `p` into caller buffers (no allocation):
 * `'nearest'` snaps to the closest frame, `'linear'` slerps rotations and lerps translations between the two
 * frames around `p`.
 */
export function localPoseAt(
  clip: Clip,
  p: number,
  kernel: PlayKernel,
  outRot: Float64Array,
  outTrans: Float64Array,
  outScale: Float64Array | null = null,
): void {
  if (outScale) scaleAt(clip, kernel === 'nearest' ? Math.round(p) : p, outScale);
  const J = clip.skeleton.names.length;
  const last = clip.frames - 1;
  const pc = Math.min(Math.max(p, 0), last);
  const R = clip.rotations.data;
  const T = clip.translations.data;
  if (kernel === 'nearest' || last === 0) {
    const f = Math.round(pc);
    for (let i = 0; i < J * 4; i++) outRot[i] = R[f * J * 4 + i];
    for (let i = 0; i < J * 3; i++) outTrans[i] = T[f * J * 3 + i];
    return;
  }
  const f0 = Math.min(Math.floor(pc), last - 1);
  const f1 = f0 + 1;
  const u = pc - f0;
  for (let j = 0; j < J; j++) {
    quat.slerpFlat(outRot, j * 4, R, (f0 * J + j) * 4, R, (f1 * J + j) * 4, u);
    for (let k = 0; k < 3; k++) {
      const a = T[(f0 * J + j) * 3 + k];
      outTrans[j * 3 + k] = a + (T[(f1 * J + j) * 3 + k] - a) * u;
    }
  }
}

/** Local scales at fractional frame `p`, lerped (the rest scales when the clip animates none). */
export function scaleAt(clip: Clip, p: number, out: Float64Array): void {
  const J = clip.skeleton.names.length;
  const S = clip.scales?.data;
  if (!S || clip.scales!.frames !== clip.frames) {
    out.set(clip.skeleton.restScales.subarray(0, J * 3));
    return;
  }
  const last = clip.frames - 1;
  const pc = Math.min(Math.max(p, 0), last);
  const f0 = Math.min(Math.floor(pc), Math.max(0, last - 1));
  const f1 = Math.min(f0 + 1, last);
  const u = pc - f0;
  for (let i = 0; i < J * 3; i++) {
    const a = S[f0 * J * 3 + i];
    out[i] = a + (S[f1 * J * 3 + i] - a) * u;
  }
}

/**
 * Forward kinematics of one pose with the library's `forwardKinematicsFrame`: `pose` is a one-frame clip on
 * the skeleton whose rotation and translation buffers hold the local pose (filled by a sampler). With
 * `rootMotion` off, roots keep their rest position on the ground plane (their height still moves).
 */
export function posePositions(
  pose: Clip,
  outGlobalRot: Float64Array,
  outPos: Float64Array,
  rootMotion: boolean,
  rootRest: Float64Array,
): void {
  if (!rootMotion) {
    const parents = pose.skeleton.parents;
    const t = pose.translations.data;
    for (let j = 0; j < parents.length; j++) {
      if (parents[j] >= 0) continue;
      t[j * 3] = rootRest[j * 3];
      t[j * 3 + 2] = rootRest[j * 3 + 2];
    }
  }
  forwardKinematicsFrame(pose, 0, outGlobalRot, outPos);
}

/** A one-frame clip on `clip`'s skeleton around caller buffers, for {@link posePositions}. */
export function poseClip(
  clip: Clip,
  rot: Float64Array,
  trans: Float64Array,
  scale: Float64Array | null = null,
): Clip {
  const J = clip.skeleton.names.length;
  const { scales: _, ...rest } = clip;
  return {
    ...rest,
    frames: 1,
    rotations: { data: rot, frames: 1, joints: J },
    translations: { data: trans, frames: 1, joints: J },
    ...(scale ? { scales: { data: scale, frames: 1, joints: J } } : {}),
  };
}
