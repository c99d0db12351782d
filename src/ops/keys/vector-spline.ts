/**
 * C² cubic splines through vector keys at uneven times (translations, scales, morph weights), with the
 * same end conditions as the rotation spline ({@link createRotationSpline}): the slope at the first key is
 * the first interval's mean slope and at the last key the last interval's, so a pose track and its rotation
 * track are up-sampled alike.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import type { Track } from '../../series/clip.js';
import { assertTrack } from './track-checks.js';

/**
 * The slopes (first derivatives, units per second) at the keys of the C² cubic spline through
 * `values` (`n × width`, key-major) at `times`: the end slopes are the end intervals' mean slopes
 * (SciPy's `CubicSpline(times, values, bc_type=((1, d₀), (1, dₙ)))` with `d₀`, `dₙ` those means), the
 * interior ones make the second derivative continuous (the tridiagonal system of de Boor, *A Practical
 * Guide to Splines*, ch. IV, solved by the Thomas algorithm, which is stable here: the matrix is
 * diagonally dominant).
 *
 * @internal
 */
export function splineSlopes(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  width: number,
): Float64Array {
  const n = times.length;
  const m = new Float64Array(n * width);
  if (n < 2) return m;
  const h = new Float64Array(n - 1);
  for (let i = 0; i < n - 1; i++) h[i] = times[i + 1] - times[i];
  // ends: the mean slopes; two keys: a straight line
  for (let c = 0; c < width; c++) {
    m[c] = (values[width + c] - values[c]) / h[0];
    m[(n - 1) * width + c] = (values[(n - 1) * width + c] - values[(n - 2) * width + c]) / h[n - 2];
  }
  if (n === 2) return m;
  // interior rows i = 1..n-2: h[i]·m[i-1] + 2(h[i-1]+h[i])·m[i] + h[i-1]·m[i+1] = 3(h[i]·δ[i-1] + h[i-1]·δ[i])
  const inner = n - 2;
  const diag = new Float64Array(inner);
  const upper = new Float64Array(inner);
  const rhs = new Float64Array(inner);
  for (let c = 0; c < width; c++) {
    for (let r = 0; r < inner; r++) {
      const i = r + 1;
      const dPrev = (values[i * width + c] - values[(i - 1) * width + c]) / h[i - 1];
      const dNext = (values[(i + 1) * width + c] - values[i * width + c]) / h[i];
      let b = 3 * (h[i] * dPrev + h[i - 1] * dNext);
      if (r === 0) b -= h[i] * m[c];
      if (r === inner - 1) b -= h[i - 1] * m[(n - 1) * width + c];
      diag[r] = 2 * (h[i - 1] + h[i]);
      upper[r] = h[i - 1];
      rhs[r] = b;
    }
    // forward sweep (the lower diagonal of row r is h[r + 1])
    for (let r = 1; r < inner; r++) {
      const w = h[r + 1] / diag[r - 1];
      diag[r] -= w * upper[r - 1];
      rhs[r] -= w * rhs[r - 1];
    }
    let next = rhs[inner - 1] / diag[inner - 1];
    m[inner * width + c] = next;
    for (let r = inner - 2; r >= 0; r--) {
      next = (rhs[r] - upper[r] * next) / diag[r];
      m[(r + 1) * width + c] = next;
    }
  }
  return m;
}

/**
 * Evaluates a vector track (translation, scale or weights) at `times` on the C² cubic spline through its
 * key values (see {@link splineSlopes} for the end conditions): the vector counterpart of
 * {@link rotationSplineTrack}, for up-sampling sparse keys smoothly. The track's key values are used (for
 * `'cubicspline'`, each key's value, not its tangents); times before the first key or after the last
 * hold the end key, as glTF players do. One key gives that key at every time; two keys a straight line.
 *
 * Checked against SciPy's `CubicSpline` with the same clamped ends (`scripts/fixtures_vector_spline.py`).
 *
 * @param track a `'translation'`, `'scale'` or `'weights'` track (any interpolation).
 * @param times evaluation times in seconds, finite.
 * @param out `times.length × track.width` numbers to write into; a new Float64Array without it.
 * @returns `times.length × track.width` numbers, time-major.
 * @throws {ShapeError} when the track is not a valid vector track or `out` has the wrong length.
 * @throws {InvalidValueError} on a non-finite time.
 * @example
 * const track = {
 *   joint: 0, path: 'translation', interpolation: 'linear', width: 3,
 *   times: Float32Array.of(0, 0.5, 2),
 *   values: Float32Array.of(0, 0, 0, 1, 0, 0, 1, 2, 0),
 * } as const;
 * const grid = Float64Array.from({ length: 61 }, (_, f) => f / 30);
 * const positions = vectorSplineTrack(track, grid); // 61 × 3, C² through the three keys
 */
export function vectorSplineTrack(
  track: Track,
  times: ArrayLike<number>,
  out?: Float64Array | Float32Array,
): Float64Array | Float32Array {
  assertTrack(track, 'vectorSplineTrack: track');
  if (track.path === 'rotation')
    throw new ShapeError("vectorSplineTrack: track path is 'rotation'; use rotationSplineTrack");
  if (times === null || typeof times !== 'object' || typeof times.length !== 'number')
    throw new ShapeError('vectorSplineTrack: times must be an array of numbers');
  const width = track.width;
  const n = track.times.length;
  const result = out ?? new Float64Array(times.length * width);
  if (result.length !== times.length * width)
    throw new ShapeError(
      `vectorSplineTrack: out must hold ${times.length * width} numbers, got ${result.length}`,
    );
  const perKey = track.interpolation === 'cubicspline' ? 3 : 1;
  const at = perKey === 3 ? width : 0;
  const values = new Float64Array(n * width);
  for (let k = 0; k < n; k++)
    for (let c = 0; c < width; c++) values[k * width + c] = track.values[k * perKey * width + at + c];
  const slopes = splineSlopes(track.times, values, width);
  const first = track.times[0];
  const end = track.times[n - 1];
  let i = 0;
  for (let p = 0; p < times.length; p++) {
    const x = times[p];
    if (!Number.isFinite(x))
      throw new InvalidValueError(`vectorSplineTrack: time ${p} is ${x}`, { index: p });
    const o = p * width;
    if (n === 1 || x <= first) {
      for (let c = 0; c < width; c++) result[o + c] = values[c];
      continue;
    }
    if (x >= end) {
      for (let c = 0; c < width; c++) result[o + c] = values[(n - 1) * width + c];
      continue;
    }
    // the interval holding x: walk from the last one (times usually increase), else search
    if (!(track.times[i] <= x && x < track.times[i + 1])) {
      let lo = 0;
      let hi = n - 1;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (track.times[mid] <= x) lo = mid;
        else hi = mid;
      }
      i = lo;
    }
    const t0 = track.times[i];
    const dt = track.times[i + 1] - t0;
    const s = (x - t0) / dt;
    // cubic Hermite basis
    const s2 = s * s;
    const s3 = s2 * s;
    const h00 = 2 * s3 - 3 * s2 + 1;
    const h10 = s3 - 2 * s2 + s;
    const h01 = -2 * s3 + 3 * s2;
    const h11 = s3 - s2;
    const a = i * width;
    const b = a + width;
    for (let c = 0; c < width; c++)
      result[o + c] =
        h00 * values[a + c] + h10 * dt * slopes[a + c] + h01 * values[b + c] + h11 * dt * slopes[b + c];
  }
  return result;
}
