"""SciPy CubicSpline oracle for rotsig's vector spline (test/fixtures/vector-spline.json).

Run: python3 scripts/fixtures_vector_spline.py  (numpy and scipy installed). The JSON records the
SciPy and NumPy versions that wrote it. Each case gives key times (uneven), key vectors, evaluation times
(before the first key, the keys, times between them, after the last key) and SciPy's values there: a
`CubicSpline` whose end slopes are the end intervals' mean slopes (`bc_type=((1, d0), (1, dn))`), the
end conditions of SciPy's `RotationSpline` for rotations, held at the end keys outside the key range as
glTF players hold them.
"""

import json
import pathlib

import numpy as np
import scipy
from scipy.interpolate import CubicSpline

OUT = pathlib.Path(__file__).resolve().parent.parent / "test" / "fixtures" / "vector-spline.json"


def case(name, times, values, per_interval=4):
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    d0 = (values[1] - values[0]) / (times[1] - times[0])
    dn = (values[-1] - values[-2]) / (times[-1] - times[-2])
    spline = CubicSpline(times, values, bc_type=((1, d0), (1, dn)))
    fractions = np.array([0.11, 0.37, 0.5, 0.83])[:per_interval]
    at = list(times)
    for a, b in zip(times[:-1], times[1:]):
        at.extend(a + (b - a) * fractions)
    at = np.sort(np.array(at))
    inside = spline(at)
    before = times[0] - 0.25
    after = times[-1] + 0.4
    return {
        "name": name,
        "times": times.tolist(),
        "keys": values.tolist(),
        "at": [before] + at.tolist() + [after],
        "values": [values[0].tolist()] + inside.tolist() + [values[-1].tolist()],
    }


def main():
    rng = np.random.default_rng(20261205)
    cases = []
    times = np.cumsum(np.concatenate([[0.0], rng.uniform(0.03, 0.7, 9)]))
    cases.append(case("uneven-translation", times, rng.normal(size=(10, 3)) * 0.4))
    cases.append(case("two-keys", [0.2, 1.3], [[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]]))
    cases.append(case("three-keys-scale", [0.0, 0.1, 1.0], [[1, 1, 1], [1.5, 0.8, 1], [0.9, 1.2, 2.0]]))
    times = np.cumsum(np.concatenate([[0.5], rng.uniform(0.005, 0.2, 39)]))
    cases.append(case("weights-40", times, rng.uniform(0, 1, size=(40, 2)), per_interval=2))
    OUT.write_text(
        json.dumps(
            {
                "generator": "scripts/fixtures_vector_spline.py",
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
