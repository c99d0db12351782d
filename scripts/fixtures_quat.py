#!/usr/bin/env python3
"""Reference values for the single-rotation kernels (src/quat), computed with SciPy.

Writes test/fixtures/quat.json. Rerun with `npm run fixtures` (or `python3 scripts/fixtures_quat.py`);
the output is deterministic for a given SciPy version (seeded generator, full-precision floats).
Tests compare rotations up to sign and Euler triples by the rotation they produce where not unique.
"""
import json
import os

import numpy as np
import scipy
from scipy.linalg import polar
from scipy.spatial.transform import Rotation as R
from scipy.spatial.transform import Slerp

rng = np.random.default_rng(20261122)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "quat.json")

TAIT_BRYAN = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
PROPER = ["XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"]
ORDERS = TAIT_BRYAN + PROPER + [s.lower() for s in TAIT_BRYAN + PROPER]


def edge_quats():
    """Rotations at the places kernels break: identity, 180 degrees, tiny angles, near pi."""
    out = [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, -1]]
    s = np.sqrt(0.5)
    out += [[s, s, 0, 0], [0, s, s, 0], [s, 0, 0, s], [0, 0, s, -s]]
    for ang in [1e-12, 1e-9, 1e-6, 1e-3, np.pi - 1e-9, np.pi - 1e-6, np.pi]:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        out.append(list(R.from_rotvec(axis * ang).as_quat()))
    return np.array(out, dtype=float)


def random_quats(n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def main():
    quats = np.vstack([edge_quats(), random_quats(200)])
    rots = R.from_quat(quats)
    data = {"scipy": scipy.__version__, "quats": quats.tolist()}

    # Euler: angles -> quaternion for random angles (incl. the full range and gimbal configurations),
    # and quaternion -> angles for the quats above, for all 24 sequences.
    euler = {}
    for order in ORDERS:
        proper = order.upper()[0] == order.upper()[2]
        angles = np.column_stack(
            [
                rng.uniform(-np.pi, np.pi, 60),
                rng.uniform(0, np.pi, 60) if proper else rng.uniform(-np.pi / 2, np.pi / 2, 60),
                rng.uniform(-np.pi, np.pi, 60),
            ]
        )
        # gimbal lock and its neighbourhood
        mids = [0.0, np.pi, 1e-9, np.pi - 1e-9] if proper else [np.pi / 2, -np.pi / 2, np.pi / 2 - 1e-9, -np.pi / 2 + 1e-7]
        for m in mids:
            angles = np.vstack([angles, [rng.uniform(-np.pi, np.pi), m, rng.uniform(-np.pi, np.pi)]])
        euler[order] = {
            "angles": angles.tolist(),
            "fromEuler": R.from_euler(order, angles).as_quat().tolist(),
            "toEuler": rots.as_euler(order).tolist(),
        }
    data["euler"] = euler

    data["matrix"] = rots.as_matrix().reshape(-1, 9).tolist()
    # Non-orthogonal matrices: the nearest rotation (orthogonal polar factor) is the oracle.
    noisy = []
    for m in rots.as_matrix()[:40]:
        a = m + rng.normal(scale=1e-3, size=(3, 3))
        u, _ = polar(a)
        noisy.append({"matrix": a.reshape(9).tolist(), "nearest": R.from_matrix(u).as_quat().tolist()})
    data["nonOrthogonal"] = noisy

    data["rotvec"] = rots.as_rotvec().tolist()
    vecs = np.vstack([rng.normal(size=(40, 3)) * 2.0, [[0, 0, 0], [1e-12, 0, 0], [0, np.pi, 0], [0, 0, 5 * np.pi]]])
    data["fromRotvec"] = {"vectors": vecs.tolist(), "quats": R.from_rotvec(vecs).as_quat().tolist()}

    a = random_quats(60)
    b = random_quats(60)
    data["products"] = {"a": a.tolist(), "b": b.tolist(), "ab": (R.from_quat(a) * R.from_quat(b)).as_quat().tolist()}
    data["inverse"] = rots.inv().as_quat().tolist()

    v = rng.normal(size=(len(quats), 3))
    data["apply"] = {"vectors": v.tolist(), "rotated": rots.apply(v).tolist()}

    ts = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
    slerps = []
    for i in range(40):
        pair = R.from_quat([a[i], b[i]])
        s = Slerp([0, 1], pair)
        slerps.append({"a": a[i].tolist(), "b": b[i].tolist(), "t": ts, "q": s(ts).as_quat().tolist()})
    data["slerp"] = slerps

    magnitudes = rots.magnitude()
    data["magnitude"] = magnitudes.tolist()

    with open(OUT, "w") as f:
        json.dump(data, f)
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT)} ({len(quats)} rotations, {len(ORDERS)} Euler sequences)")


if __name__ == "__main__":
    main()
