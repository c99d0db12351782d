#!/usr/bin/env python3
"""Reference curves for the unrolling operations (src/ops/unroll/).

Writes test/fixtures/unroll.json. For each of the 24 Euler sequences, a smooth multi-turn Euler curve
("truth": the first angle turns about 1.75 times, the middle angle leaves the principal range, crossing
+-90 degrees for Tait-Bryan and 0 / 180 degrees for proper Euler sequences, but never comes within 2e-3 rad
of a gimbal lock), and what SciPy makes of it:
- quats: Rotation.from_euler(order, truth).as_quat() (x, y, z, w), the input of eulerFromQuatSeries;
- wrapped: Rotation.as_euler(order), principal values, the input of unrollEuler;
- unwrapped: numpy.unwrap(wrapped, axis=0), the classic per-channel filter (unrollEuler mode 'wrap').
unrollEuler mode 'equivalent' seeded with truth[0] must give truth back: the truth is continuous and every
frame is far closer to its predecessor than the other Euler triple of the same rotation.

Rerun with `npm run fixtures` (or `python3 scripts/fixtures_unroll.py`); deterministic (seeded).
"""
import json
import os

import numpy as np
import scipy
from scipy.spatial.transform import Rotation as R

rng = np.random.default_rng(5)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "unroll.json")

TAIT_BRYAN = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
PROPER = ["XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"]
ORDERS = TAIT_BRYAN + PROPER + [s.lower() for s in TAIT_BRYAN + PROPER]
FRAMES = 90


def truth_curve(proper):
    t = np.linspace(0.0, 1.0, FRAMES)
    while True:
        a0, c0, phase = rng.uniform(-np.pi, np.pi, 3)
        a = a0 + 3.5 * np.pi * t
        c = c0 - 2.0 * np.pi * t + 0.5 * np.sin(2 * np.pi * 1.3 * t + phase)
        if proper:
            b = 1.6 + 1.8 * np.sin(2 * np.pi * 0.9 * t + phase)
            locks = np.minimum(np.abs(b), np.abs(b - np.pi))
        else:
            b = 0.5 + 1.15 * np.sin(2 * np.pi * 0.9 * t + phase)
            locks = np.minimum(np.abs(b - np.pi / 2), np.abs(b + np.pi / 2))
        crosses = np.any(np.diff(np.sign(b - (0 if proper else np.pi / 2))) != 0) or np.any(
            np.diff(np.sign(b - np.pi)) != 0
        )
        if locks.min() > 2e-3 and crosses:
            return np.stack([a, b, c], axis=1)


def flat(a):
    return [float(v) for v in np.asarray(a).ravel()]


cases = []
for order in ORDERS:
    proper = order[0].lower() == order[2].lower()
    truth = truth_curve(proper)
    rot = R.from_euler(order, truth)
    wrapped = rot.as_euler(order)
    cases.append(
        {
            "order": order,
            "frames": FRAMES,
            "truth": flat(truth),
            "quats": flat(rot.as_quat()),
            "wrapped": flat(wrapped),
            "unwrapped": flat(np.unwrap(wrapped, axis=0)),
        }
    )

with open(OUT, "w") as f:
    json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "cases": cases}, f)
    f.write("\n")
print(f"wrote {OUT}: {len(cases)} sequences x {FRAMES} frames")
