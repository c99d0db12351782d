#!/usr/bin/env python3
"""High-precision references for alignVectors at extreme weight ratios and near 180 degrees.

Writes test/fixtures/align-precision.json. Rerun with `npm run fixtures` (or
`python3 scripts/fixtures_align_precision.py`); the output is deterministic (seeded generator).

The reference rotation solves the weighted Wahba problem in 60-digit arithmetic (mpmath): Davenport's
4x4 matrix K is built from the float64 inputs exactly, and its dominant eigenvector (mpmath.eigsy) is the
optimal quaternion. Each case also records SciPy's own error (Rotation.align_vectors in float64) against
that reference, in radians, so a test can hold rotsig to a multiple of SciPy's accuracy.
"""
import json
import os
import warnings

import mpmath as mp
import numpy as np
import scipy
from scipy.spatial.transform import Rotation as R

mp.mp.dps = 60
rng = np.random.default_rng(20261204)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "align-precision.json")


def reference(a, b, w):
    """The optimal quaternion (x, y, z, w), w >= 0, from Davenport's K in 60-digit arithmetic."""
    B = mp.zeros(3, 3)
    for i in range(len(w)):
        wi = mp.mpf(float(w[i]))
        for r in range(3):
            for c in range(3):
                B[r, c] += wi * mp.mpf(float(a[i][r])) * mp.mpf(float(b[i][c]))
    sigma = B[0, 0] + B[1, 1] + B[2, 2]
    S = B + B.T
    z = [B[2, 1] - B[1, 2], B[0, 2] - B[2, 0], B[1, 0] - B[0, 1]]
    K = mp.zeros(4, 4)
    for r in range(3):
        for c in range(3):
            K[r, c] = S[r, c] - (sigma if r == c else 0)
        K[r, 3] = z[r]
        K[3, r] = z[r]
    K[3, 3] = sigma
    values, vectors = mp.eigsy(K)
    k = max(range(4), key=lambda i: values[i])
    gap = sorted(values)[-1] - sorted(values)[-2]
    q = [vectors[i, k] for i in range(4)]
    n = mp.sqrt(sum(x * x for x in q))
    q = [x / n for x in q]
    if q[3] < 0:
        q = [-x for x in q]
    return q, gap


def angle(q_ref, q):
    """Angle in radians between two unit quaternions, computed in 60-digit arithmetic."""
    qq = [mp.mpf(float(x)) for x in q]
    n = mp.sqrt(sum(x * x for x in qq))
    d = abs(sum(x * y / n for x, y in zip(q_ref, qq)))
    # 2·asin(‖q_ref⁻¹q‖ vector part) = 2·atan2(sqrt(1 − d²), d): accurate at small angles.
    return float(2 * mp.atan2(mp.sqrt(max(mp.mpf(0), 1 - d * d)), d))


def case(name, a, b, w):
    q_ref, gap = reference(a, b, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rot, _ = R.align_vectors(a, b, weights=w)
    return {
        "name": name,
        "a": np.asarray(a, dtype=float).ravel().tolist(),
        "b": np.asarray(b, dtype=float).ravel().tolist(),
        "weights": np.asarray(w, dtype=float).tolist(),
        "quat": [float(x) for x in q_ref],
        "scipyError": angle(q_ref, rot.as_quat()),
    }


def ratio_cases():
    cases = []
    for exponent in [0, 3, 5, 7, 8, 9, 10]:
        for k in range(4):
            n = 2 + k
            b = rng.normal(size=(n, 3)) * rng.uniform(0.5, 3)
            c = R.random(random_state=rng)
            a = c.apply(b) + rng.normal(size=(n, 3)) * 0.05
            w = rng.uniform(0.5, 2, size=n)
            w[0] *= 10.0 ** exponent
            cases.append(case(f"weight ratio 1e{exponent}, {n} pairs", a, b, w))
    return cases


def half_turn_cases():
    cases = []
    for k, eps in enumerate([0, 1e-12, 1e-9, 1e-7, 1e-5, 1e-3]):
        n = 2 + (k % 3)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        c = R.from_rotvec(axis * (np.pi - eps))
        b = rng.normal(size=(n, 3))
        a = c.apply(b) + (rng.normal(size=(n, 3)) * 1e-3 if k % 2 else 0)
        w = rng.uniform(0.5, 2, size=n)
        cases.append(case(f"{np.pi - eps!r} rad, {n} pairs", a, b, w))
    # Heavy weights near a half turn.
    for exponent in [6, 10]:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        c = R.from_rotvec(axis * (np.pi - 1e-6))
        b = rng.normal(size=(3, 3))
        a = c.apply(b) + rng.normal(size=(3, 3)) * 0.01
        w = np.array([10.0 ** exponent, 1.0, 1.0])
        cases.append(case(f"near a half turn, weight ratio 1e{exponent}", a, b, w))
    return cases


data = {
    "scipy": scipy.__version__,
    "mpmath": mp.__version__,
    "cases": ratio_cases() + half_turn_cases(),
}
with open(OUT, "w") as f:
    json.dump(data, f, indent=1)
    f.write("\n")
worst = max(data["cases"], key=lambda c: c["scipyError"])
print(f"wrote {len(data['cases'])} cases; SciPy's largest error {worst['scipyError']:.3g} rad ({worst['name']})")
