/**
 * Exact positions on rate grids: rate ratios as small fractions, so that positions computed from an index
 * land on exact integers wherever two grids share an instant.
 *
 * @module
 */

/**
 * The ratio `a / b` as a fraction `p / q` with small terms (q ≤ 2²⁰) when one lies within a few ulps of
 * it (continued fractions), so that positions `i·p / q` come out as exact integers wherever the grids
 * share an instant, also for decimal rates (29.97 / 59.94 = 1/2, 29.97 / 60 = 999/2000). Null otherwise.
 *
 * @example
 * rationalRatio(29.97, 60); // [999, 2000]
 */
export function rationalRatio(a: number, b: number): [number, number] | null {
  const x = a / b;
  let h0 = 0;
  let h1 = 1;
  let k0 = 1;
  let k1 = 0;
  let r = x;
  for (let step = 0; step < 40; step++) {
    const ai = Math.floor(r);
    const h2 = ai * h1 + h0;
    const k2 = ai * k1 + k0;
    if (k2 > 1 << 20) return null;
    h0 = h1;
    h1 = h2;
    k0 = k1;
    k1 = k2;
    if (Math.abs(h1 / k1 - x) <= 4 * Number.EPSILON * x) return [h1, k1];
    const frac = r - ai;
    if (frac === 0) return null;
    r = 1 / frac;
  }
  return null;
}

/**
 * Fills `positions[i] = i · sourceRate / rate`, as `i·p / q` (one rounding) when the ratio is a simple
 * fraction p/q, so shared instants are exact integers.
 */
export function fillPositions(positions: Float64Array, sourceRate: number, rate: number): void {
  const pq = rationalRatio(sourceRate, rate);
  const m = positions.length;
  if (pq !== null && (m - 1) * pq[0] < Number.MAX_SAFE_INTEGER) {
    const [p, q] = pq;
    for (let i = 0; i < m; i++) positions[i] = (i * p) / q;
  } else {
    for (let i = 0; i < m; i++) positions[i] = (i * sourceRate) / rate;
  }
}
