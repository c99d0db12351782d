#!/usr/bin/env python3
"""Reference values for alignVectors, modified Rodrigues parameters and gimbal-lock flags, from SciPy.

Writes test/fixtures/fit.json. Rerun with `npm run fixtures` (or `python3 scripts/fixtures_fit.py`); the
output is deterministic for a given SciPy version (seeded generator, full-precision floats).
- align: Rotation.align_vectors(a, b, weights) -> rotation (x, y, z, w) and rssd, for noisy marker sets,
  exact fits, weighted sets and two-pair sets;
- mrp: Rotation.as_mrp / from_mrp on random and edge rotations;
- gimbal: which rotations make Rotation.as_euler warn about gimbal lock.
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy.spatial.transform import Rotation as R

rng = np.random.default_rng(20261123)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "fit.json")


def align_cases():
    cases = []
    for n, noise, weighted in [(2, 0.0, False), (3, 0.0, False), (4, 0.01, False), (8, 0.05, True),
                               (20, 0.2, True), (50, 0.0, True), (5, 1.0, False)]:
        for _ in range(4):
            b = rng.normal(size=(n, 3)) * rng.uniform(0.5, 20)
            c = R.random(random_state=rng)
            a = c.apply(b) + rng.normal(size=(n, 3)) * noise
            w = rng.uniform(0.1, 3, size=n) if weighted else None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rot, rssd = R.align_vectors(a, b, weights=w)
            cases.append({
                "a": a.ravel().tolist(),
                "b": b.ravel().tolist(),
                "weights": None if w is None else w.tolist(),
                "quat": rot.as_quat().tolist(),
                "rssd": float(rssd),
            })
    return cases


def mrp_cases():
    q = rng.normal(size=(200, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    s = np.sqrt(0.5)
    edges = np.array([[0, 0, 0, 1], [0, 0, 0, -1], [1e-9, 0, 0, 1], [s, 0, 0, s], [0, s, 0, -s],
                      [0.3, -0.4, 0.5, 1e-12], [0.6, 0, 0.8, -1e-12]], dtype=float)
    edges /= np.linalg.norm(edges, axis=1, keepdims=True)
    q = np.vstack([edges, q])
    p = rng.normal(size=(100, 3)) * np.array([[0.1], [1], [10], [100]]).repeat(25, axis=0)
    return {
        "quats": q.ravel().tolist(),
        "mrp": R.from_quat(q).as_mrp().ravel().tolist(),
        "params": p.ravel().tolist(),
        "fromMrp": R.from_mrp(p).as_quat().ravel().tolist(),
    }


def gimbal_cases():
    out = []
    for order in ["ZYX", "XYZ", "zxy", "ZXZ", "xyx"]:
        proper = order[0].lower() == order[2].lower()
        locks = [0.0, np.pi] if proper else [-np.pi / 2, np.pi / 2]
        angles = []
        for lock in locks:
            for _ in range(3):
                angles.append([rng.uniform(-3, 3), lock, rng.uniform(-3, 3)])
        for _ in range(6):
            angles.append([rng.uniform(-3, 3), rng.uniform(0.2, 1.3) if not proper else rng.uniform(0.3, 2.8),
                           rng.uniform(-3, 3)])
        q = R.from_euler(order, angles).as_quat()
        flags = []
        for qi in q:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                R.from_quat(qi).as_euler(order)
            flags.append(any("Gimbal lock" in str(c.message) for c in caught))
        out.append({"order": order, "quats": q.ravel().tolist(), "locked": flags})
    return out


def main():
    data = {
        "scipy": scipy.__version__,
        "align": align_cases(),
        "mrp": mrp_cases(),
        "gimbal": gimbal_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(data, f)


if __name__ == "__main__":
    main()
