"""Oracle fixtures for the averaging, cost and interpolation tests (SciPy Rotation).

Run from the repository root: python3 scripts/fixtures_average.py
Writes test/fixtures/average.json with full-precision floats (quaternions x, y, z, w, scalar last).

- mean: SciPy `Rotation.mean(weights)` (the chordal L2 mean, Markley et al. 2007) on random sets,
  clustered and uniform, stored inputs in random hemispheres and with non-unit lengths.
- logMean: the reference-relative tangent mean ref * exp(mean_i w_i log(ref^-1 q_i)) built from
  SciPy primitives (inv, rotvec), reference = the first input.
- frobenius: ||R(a) - R(b)||_F from SciPy matrices and the geodesic angle from the relative rotvec.
- slerp: SciPy `Slerp` between pairs at several t.
"""
import json
import os

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures')
rng = np.random.default_rng(20261122)


def floats(a):
    return [float(v) for v in np.asarray(a).ravel()]


def random_set(n, spread):
    if spread is None:
        q = Rotation.random(n, random_state=rng).as_quat()
    else:
        centre = Rotation.random(random_state=rng)
        q = (centre * Rotation.from_rotvec(rng.normal(scale=spread, size=(n, 3)))).as_quat()
    q = np.atleast_2d(q)
    signs = rng.choice([-1.0, 1.0], size=(n, 1))
    lengths = rng.uniform(0.5, 2.0, size=(n, 1))
    return q * signs * lengths


def mean_cases():
    cases = []
    for n in [1, 2, 3, 4, 5, 8, 13, 32, 64]:
        for spread in [None, 0.05, 0.5, 1.5]:
            for weighted in [False, True]:
                q = random_set(n, spread)
                w = rng.uniform(0.05, 3.0, size=n) if weighted else None
                r = Rotation.from_quat(q)
                m = r.mean(weights=w).as_quat()
                cases.append({
                    'n': n,
                    'spread': spread,
                    'quats': floats(q),
                    'weights': None if w is None else floats(w),
                    'mean': floats(m),
                })
    return cases


def log_mean_cases():
    cases = []
    for n in [2, 3, 6, 10]:
        for spread in [0.2, 0.8]:
            q = random_set(n, spread)
            w = rng.uniform(0.1, 2.0, size=n)
            r = Rotation.from_quat(q)
            ref = r[0]
            rel = (ref.inv() * r).as_rotvec()
            v = (w[:, None] * rel).sum(axis=0) / w.sum()
            m = (ref * Rotation.from_rotvec(v)).as_quat()
            cases.append({'quats': floats(q), 'weights': floats(w), 'mean': floats(m)})
    return cases


def frobenius_cases():
    cases = []
    for scale in [1e-6, 1e-3, 0.3, 1.0, 2.5, 3.1]:
        for _ in range(4):
            a = Rotation.random(random_state=rng)
            b = a * Rotation.from_rotvec(rng.normal(size=3) * scale)
            d = np.linalg.norm(a.as_matrix() - b.as_matrix())
            angle = np.linalg.norm((a.inv() * b).as_rotvec())
            cases.append({'a': floats(a.as_quat()), 'b': floats(b.as_quat()), 'frobenius': float(d), 'angle': float(angle)})
    return cases


def slerp_cases():
    cases = []
    ts = [0.0, 0.1, 0.25, 0.5, 0.8, 1.0]
    for scale in [0.1, 1.0, 2.0, 3.0]:
        for _ in range(3):
            a = Rotation.random(random_state=rng)
            b = a * Rotation.from_rotvec(rng.normal(size=3) * scale / np.sqrt(3))
            s = Slerp([0.0, 1.0], Rotation.concatenate([a, b]))
            cases.append({
                'a': floats(a.as_quat()),
                'b': floats(b.as_quat()),
                't': ts,
                'expected': floats(s(ts).as_quat()),
            })
    return cases


def main():
    data = {
        'mean': mean_cases(),
        'logMean': log_mean_cases(),
        'frobenius': frobenius_cases(),
        'slerp': slerp_cases(),
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'average.json'), 'w') as f:
        json.dump(data, f, indent=None, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
