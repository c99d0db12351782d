import { OptionError, ShapeError } from '../errors.js';
import { seededRandom } from '../numeric/random.js';
import {
  FINITE_NUMBER,
  frozenDefaults,
  type OptionSpec,
  OUT_BUFFER,
  orNull,
  resolveOptions,
} from '../options.js';
import { randomFlat } from '../quat/random.js';
import { checkSeriesSize } from './create.js';
import type { FloatArray, QuatSeries } from './types.js';

/** Options of {@link randomQuatSeries}. */
export interface RandomQuatSeriesOptions {
  /** Seed of the generator ({@link seededRandom}): the same seed gives the same series everywhere. */
  seed?: number;
  /** Output buffer of `frames x joints x 4` numbers (Float64 or Float32); allocated as Float64 when null. */
  out?: FloatArray | null;
}

/** Defaults of {@link randomQuatSeries}. */
export const RANDOM_QUAT_SERIES_DEFAULTS: Required<RandomQuatSeriesOptions> = frozenDefaults({
  seed: 1,
  out: null,
});

const RANDOM_QUAT_SERIES_SPEC: OptionSpec = { seed: FINITE_NUMBER, out: orNull(OUT_BUFFER) };

/**
 * A series of independent rotations, each uniform over all rotations (Shoemake's method through
 * `quat.randomFlat`), from a seeded generator: test data, noise floors, Monte-Carlo checks. Every
 * quaternion is unit; signs are random. Frames are filled in order, joints within each frame.
 *
 * @example
 * const s = randomQuatSeries(100, 4, { seed: 42 }); // 100 frames x 4 joints, the same on every run
 * @throws {ShapeError} when `frames` or `joints` is not a whole number >= 0, or `out` has the wrong length.
 * @throws {OptionError} for an unknown option or a non-finite seed.
 */
export function randomQuatSeries(
  frames: number,
  joints: number,
  options: RandomQuatSeriesOptions = {},
): QuatSeries {
  const { seed, out } = resolveOptions(
    'randomQuatSeries',
    options,
    RANDOM_QUAT_SERIES_DEFAULTS,
    RANDOM_QUAT_SERIES_SPEC,
  );
  if (!Number.isInteger(frames) || frames < 0 || !Number.isInteger(joints) || joints < 0) {
    throw new ShapeError(
      `randomQuatSeries: frames ${frames} and joints ${joints} must be whole numbers >= 0`,
    );
  }
  if (typeof seed !== 'number' || !Number.isFinite(seed)) {
    throw new OptionError(`randomQuatSeries: seed must be a finite number, got ${String(seed)}`);
  }
  const n = frames * joints;
  if (!out) checkSeriesSize(frames, joints, 4, 'randomQuatSeries');
  const data = out ?? new Float64Array(n * 4);
  if (data.length !== n * 4) {
    throw new ShapeError(
      `randomQuatSeries: out has ${data.length} numbers, expected ${frames} x ${joints} x 4`,
    );
  }
  const rng = seededRandom(seed);
  for (let i = 0; i < n; i++) randomFlat(data, i * 4, rng);
  return { data, frames, joints };
}
