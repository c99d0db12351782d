/** Seeded random rotations for the averaging and blending tests (deterministic, so failures reproduce). */
import { gauss, rng } from './random.js';

export { gauss, rng };

/**
 * n unit quaternions (x, y, z, w) in one flat array. `spread` 0: uniform on SO(3); otherwise Gaussian
 * noise of that size added to a random centre before normalising. Each is stored in a random hemisphere.
 */
export function randomQuats(r: () => number, n: number, spread = 0): Float64Array {
  const out = new Float64Array(n * 4);
  const c = [gauss(r), gauss(r), gauss(r), gauss(r)];
  const cn = Math.hypot(...c);
  for (let i = 0; i < n; i++) {
    const q =
      spread === 0 ? [gauss(r), gauss(r), gauss(r), gauss(r)] : c.map((v) => v / cn + spread * gauss(r));
    const len = Math.hypot(...q) * (r() < 0.5 ? -1 : 1);
    for (let k = 0; k < 4; k++) out[i * 4 + k] = q[k] / len;
  }
  return out;
}

/** Geodesic angle in radians between the rotations of two quaternions (any length, any sign). */
export function rotationAngle(a: ArrayLike<number>, b: ArrayLike<number>, ao = 0, bo = 0): number {
  const na = Math.hypot(a[ao], a[ao + 1], a[ao + 2], a[ao + 3]);
  const nb = Math.hypot(b[bo], b[bo + 1], b[bo + 2], b[bo + 3]);
  let d = 0;
  for (let k = 0; k < 4; k++) d += (a[ao + k] / na) * (b[bo + k] / nb);
  const s = d < 0 ? -1 : 1;
  let m = 0;
  let p = 0;
  for (let k = 0; k < 4; k++) {
    const x = a[ao + k] / na;
    const y = (s * b[bo + k]) / nb;
    m += (x - y) ** 2;
    p += (x + y) ** 2;
  }
  return 4 * Math.atan2(Math.sqrt(m), Math.sqrt(p));
}

/** Quaternion (x, y, z, w) of a rotation by `angle` radians about a unit `axis`. */
export function axisAngle(axis: readonly number[], angle: number): Float64Array {
  const n = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / n;
  return Float64Array.of(axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2));
}

/** Hamilton product a ⊗ b, independent of the library (for building test inputs). */
export function mul(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const [ax, ay, az, aw] = [a[0], a[1], a[2], a[3]];
  const [bx, by, bz, bw] = [b[0], b[1], b[2], b[3]];
  return Float64Array.of(
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  );
}

/** Concatenates quaternions into one flat n x 4 array. */
export function flat(...qs: ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(qs.length * 4);
  qs.forEach((q, i) => {
    out.set(Array.from(q).slice(0, 4), i * 4);
  });
  return out;
}
