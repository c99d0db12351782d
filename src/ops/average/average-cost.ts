import { ShapeError } from '../../errors.js';
import type { QuatLike } from '../../quat/types.js';
import { checkQuats, checkWeights } from './average-checks.js';

/**
 * The objective the eigen average minimises: `Σ wᵢ sin²(θᵢ/2)`, θᵢ being the geodesic angle between the
 * rotation `q` and the i-th rotation of `quats` (n x 4, x y z w). Weights default to 1 and are used as
 * given (not divided by their sum), so the cost of equal unit weights is n times the mean.
 *
 * `sin(θ/2)` is `quat.chordalDistance`. For unit quaternions `sin²(θ/2) = 1 − (q·qᵢ)²`, so the cost is
 * `Σ wᵢ − qᵀ M q` with `M = Σ wᵢ qᵢ qᵢᵀ`, which is why the dominant eigenvector of M minimises it. In
 * matrix terms, `‖R(a) − R(b)‖²_F = 2·tr(I − R(a)ᵀR(b)) = 2·(3 − (1 + 2 cos θ)) = 8 sin²(θ/2)`, so
 * `‖R(a) − R(b)‖_F = 2√2 · sin(θ/2)`: the eigen average is also the rotation whose matrix is closest, in
 * summed squared Frobenius distance, to the input matrices (`Σ wᵢ ‖R − Rᵢ‖²_F = 8 · cost`).
 * Inputs need not be unit (each is normalised first). Accurate for tiny angles: `sin(θ/2)` is evaluated
 * as `|a − b|·|a + b| / 2` on hemisphere-aligned unit quaternions, not as `1 − dot²`.
 *
 * Sources: Markley et al., "Averaging Quaternions" (JGCD 2007); Hartley et al., "Rotation Averaging"
 * (IJCV 2013); Daniel Holden, "Quaternion Weighted Average" (2023).
 *
 * @param q - the candidate rotation (4 numbers).
 * @param quats - n x 4 flat array, n ≥ 1.
 * @param weights - n finite weights; default all 1. Their sum must not vanish.
 * @returns Σ wᵢ sin²(θᵢ/2), in [0, Σ wᵢ] for non-negative weights.
 * @throws {ShapeError} on a length that is not a positive multiple of 4 or mismatching weights.
 * @throws {InvalidValueError} naming the index of a non-finite or zero quaternion or weight.
 * @example
 * averageCost([0, 0, 0, 1], [0, 0, 0, 1, 1, 0, 0, 0]); // 0 + sin²(90°) = 1
 */
export function averageCost(q: QuatLike, quats: QuatLike, weights?: ArrayLike<number> | null): number {
  const where = 'averageCost';
  if (!isArrayLike(quats) || !isArrayLike(q))
    throw new ShapeError(`${where}: q and quats must be arrays of numbers`);
  if (quats.length === 0 || quats.length % 4 !== 0) {
    throw new ShapeError(`${where}: quats has ${quats.length} numbers, expected a positive multiple of 4`);
  }
  const n = quats.length / 4;
  if (q.length < 4) throw new ShapeError(`${where}: q must have 4 numbers`);
  checkQuats(q, 1, `${where} (q)`);
  checkQuats(quats, n, where);
  if (weights !== undefined && weights !== null) checkWeights(weights, n, where);
  const qn = 1 / Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const ax = q[0] * qn;
  const ay = q[1] * qn;
  const az = q[2] * qn;
  const aw = q[3] * qn;
  let cost = 0;
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const x = quats[o];
    const y = quats[o + 1];
    const z = quats[o + 2];
    const w = quats[o + 3];
    let s = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    if (ax * x + ay * y + az * z + aw * w < 0) s = -s;
    const bx = x * s;
    const by = y * s;
    const bz = z * s;
    const bw = w * s;
    const m2 = (ax - bx) ** 2 + (ay - by) ** 2 + (az - bz) ** 2 + (aw - bw) ** 2;
    const p2 = (ax + bx) ** 2 + (ay + by) ** 2 + (az + bz) ** 2 + (aw + bw) ** 2;
    const chord = 0.5 * Math.sqrt(m2 * p2);
    cost += (weights ? weights[i] : 1) * chord * chord;
  }
  return cost;
}

function isArrayLike(a: unknown): a is ArrayLike<number> {
  return a !== null && typeof a === 'object' && typeof (a as ArrayLike<number>).length === 'number';
}
