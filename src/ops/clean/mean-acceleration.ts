import { OptionError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, POSITIVE_NUMBER, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';

/** Options of {@link meanAcceleration}. */
export interface MeanAccelerationOptions {
  /** Clip units per metre (100 for centimetres, 1 for metres). Default 100. */
  unitsPerMeter?: number;
}

/** Defaults of {@link MeanAccelerationOptions}. */
export const MEAN_ACCELERATION_DEFAULTS: Required<MeanAccelerationOptions> = frozenDefaults({
  unitsPerMeter: 100,
});

const MEAN_ACCELERATION_SPEC: OptionSpec = { unitsPerMeter: POSITIVE_NUMBER };

/**
 * Mean joint acceleration of a clip, in millimetres per frame²: the mean over joints and frames
 * `1 … frames − 2` of `|x[f + 1] − 2·x[f] + x[f − 1]|`, with `x` the joints' global positions from
 * {@link forwardKinematics}. The "Accel" figure of pose-estimation papers (Kanazawa et al., "Learning 3D
 * Human Dynamics from Video", CVPR 2019; Kocabas et al., VIBE, CVPR 2020; Zeng et al., SmoothNet, ECCV
 * 2022), there taken as an error against ground truth and here of the clip itself: jitter shows as a high
 * value. Per frame², so it depends on the rate (half the rate, four times the value for the same motion).
 *
 * Edge cases: fewer than 3 frames or no joints gives 0.
 *
 * @throws {OptionError} when `unitsPerMeter` is not a positive finite number; the errors of
 *   `forwardKinematics` on a malformed clip.
 * @example
 * meanAcceleration(parseBvh(text), { unitsPerMeter: 100 }); // e.g. 0.4 mm/frame² for a walk at 120 Hz
 */
export function meanAcceleration(clip: Clip, options: MeanAccelerationOptions = {}): number {
  const where = 'meanAcceleration';
  options = resolveOptions(where, options, MEAN_ACCELERATION_DEFAULTS, MEAN_ACCELERATION_SPEC);
  const units = options.unitsPerMeter ?? MEAN_ACCELERATION_DEFAULTS.unitsPerMeter;
  if (!(units > 0 && units < Infinity))
    throw new OptionError(`${where}: unitsPerMeter must be a positive finite number, got ${units}`);
  const x = forwardKinematics(clip).positions;
  const { frames, joints } = x;
  if (frames < 3 || joints === 0) return 0;
  const d = x.data;
  const stride = joints * 3;
  let sum = 0;
  for (let f = 1; f < frames - 1; f++) {
    for (let i = f * stride; i < (f + 1) * stride; i += 3) {
      const ax = d[i + stride] - 2 * d[i] + d[i - stride];
      const ay = d[i + stride + 1] - 2 * d[i + 1] + d[i - stride + 1];
      const az = d[i + stride + 2] - 2 * d[i + 2] + d[i - stride + 2];
      sum += Math.sqrt(ax * ax + ay * ay + az * az);
    }
  }
  return (sum / ((frames - 2) * joints)) * (1000 / units);
}
