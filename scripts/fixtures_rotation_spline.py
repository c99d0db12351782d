"""SciPy RotationSpline oracle for rotsig's rotation spline (test/fixtures/rotation-spline.json).

Run: python3 scripts/fixtures_rotation_spline.py  (numpy and scipy installed). The JSON records the
SciPy and NumPy versions that wrote it. Each case gives key times (uneven), key quaternions (x, y, z, w),
evaluation times (the keys and times between them), and SciPy's rotations (x, y, z, w, w >= 0),
angular rates (rad/s) and angular accelerations (rad/s^2) there.
"""

import json
import pathlib

import numpy as np
import scipy
from scipy.spatial.transform import Rotation, RotationSpline

OUT = pathlib.Path(__file__).resolve().parent.parent / "test" / "fixtures" / "rotation-spline.json"


def between(times, per_interval):
    """The key times and `per_interval` uneven times inside each interval."""
    out = list(times)
    fractions = np.array([0.13, 0.29, 0.5, 0.71, 0.94])[:per_interval]
    for a, b in zip(times[:-1], times[1:]):
        out.extend(a + (b - a) * fractions)
    return np.sort(np.array(out))


def case(name, times, rotations, per_interval=5):
    times = np.asarray(times, dtype=float)
    spline = RotationSpline(times, rotations)
    at = between(times, per_interval)
    quats = spline(at).as_quat()
    quats[quats[:, 3] < 0] *= -1
    return {
        "name": name,
        "times": times.tolist(),
        "keys": rotations.as_quat().tolist(),
        "at": at.tolist(),
        "rotations": quats.tolist(),
        "rates": spline(at, 1).tolist(),
        "accelerations": spline(at, 2).tolist(),
    }


def main():
    rng = np.random.default_rng(20261204)
    cases = []
    # SciPy's own docstring example
    cases.append(
        case(
            "scipy-docstring",
            [0, 10, 20, 40],
            Rotation.from_euler("XYZ", [[-10, 20, 30], [0, 15, 40], [-30, 45, 30], [20, 45, 90]], degrees=True),
        )
    )
    # uneven key times, turns up to about 120 degrees between keys
    times = np.cumsum(np.concatenate([[0.0], rng.uniform(0.05, 0.6, 8)]))
    steps = Rotation.from_rotvec(rng.normal(size=(8, 3)) * 0.9)
    keys = [Rotation.random(random_state=rng)]
    for s in steps:
        keys.append(keys[-1] * s)
    cases.append(case("uneven-large", times, Rotation.concatenate(keys)))
    # uneven key times, small turns (below the 1e-4 series branch in some intervals)
    times = np.array([0.0, 0.01, 0.035, 0.04, 0.1, 0.13])
    steps = Rotation.from_rotvec(rng.normal(size=(5, 3)) * np.array([[1e-5], [3e-2], [2e-5], [0.2], [5e-5]]))
    keys = [Rotation.random(random_state=rng)]
    for s in steps:
        keys.append(keys[-1] * s)
    cases.append(case("uneven-small", times, Rotation.concatenate(keys)))
    # two keys: a cubic with the mean rate at both ends
    cases.append(case("two-keys", [0.5, 1.75], Rotation.random(2, random_state=rng)))
    # many keys, irregular, random rotations (turns up to 180 degrees between keys)
    times = np.cumsum(np.concatenate([[0.0], rng.uniform(0.02, 0.3, 24)]))
    cases.append(case("random-25", times, Rotation.random(25, random_state=rng), per_interval=2))
    OUT.write_text(
        json.dumps(
            {
                "generator": "scripts/fixtures_rotation_spline.py",
                "scipy": scipy.__version__,
                "numpy": np.__version__,
                "cases": cases,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
