#!/usr/bin/env python3
"""Reference values for kernels and filters (src/ops/kernel/, src/ops/filter/).

Writes test/fixtures/filter.json. Run from the repository root: python3 scripts/fixtures_filter.py
Independent of rotsig: kernel formulas are typed in again from the issue / Holden's article, vector filters
come from scipy.ndimage, and rotation filters are written here with numpy and scipy.spatial.transform
(raw: hemisphere-aligned weighted sum; log: r * exp(sum w log(r^-1 q) / sum w); eigen: numpy.linalg.eigh).
Deterministic for a given SciPy version (seeded generator, full-precision floats).
"""
import json
import os

import numpy as np
import scipy
from scipy.ndimage import gaussian_filter1d
from scipy.spatial.transform import Rotation as R

rng = np.random.default_rng(6)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'test', 'fixtures', 'filter.json')


def sinc(x):
    return np.sinc(x)  # sin(pi x) / (pi x)


def catmull_rom(x):
    a = abs(x)
    if a < 1:
        return 1.5 * a**3 - 2.5 * a**2 + 1
    if a < 2:
        return -0.5 * a**3 + 2.5 * a**2 - 4 * a + 2
    return 0.0


def cubic6(x):
    a = abs(x)
    if a < 1:
        return 4 / 3 * a**3 - 7 / 3 * a**2 + 1
    if a < 2:
        return -7 / 12 * a**3 + 3 * a**2 - 59 / 12 * a + 5 / 2
    if a <= 3:
        return 1 / 12 * a**3 - 2 / 3 * a**2 + 7 / 4 * a - 3 / 2
    return 0.0


def lanczos(x, a):
    return float(sinc(x) * sinc(x / a)) if abs(x) < a else 0.0


def gauss(x, s, radius):
    return float(np.exp(-x * x / (2 * s * s)) / (s * np.sqrt(2 * np.pi))) if abs(x) <= radius else 0.0


xs = [float(x) for x in np.arange(-4, 4.0001, 0.125)] + [0.3, -1.7, 2.9, 1e-9]
kernel_values = {
    'catmullRom': [catmull_rom(x) for x in xs],
    'cubic6': [cubic6(x) for x in xs],
    'lanczos2': [lanczos(x, 2) for x in xs],
    'lanczos3': [lanczos(x, 3) for x in xs],
    'sinc3': [float(sinc(x)) if abs(x) <= 3 else 0.0 for x in xs],
    'gaussian1.5': [gauss(x, 1.5, int(3 * 1.5 + 0.5)) for x in xs],
}

# --- vector filters against scipy.ndimage.gaussian_filter1d -------------------------------------
signal = rng.normal(size=(40, 3)).cumsum(axis=0)
vector_cases = []
for sigma in (1.0, 2.0, 3.5):
    for truncate in (3.0, 4.0):
        for mode, boundary in (('mirror', 'reflect'), ('nearest', 'clamp'), ('wrap', 'wrap')):
            y = gaussian_filter1d(signal, sigma, axis=0, mode=mode, truncate=truncate)
            vector_cases.append(
                {'sigma': sigma, 'truncate': truncate, 'boundary': boundary, 'output': y.ravel().tolist()}
            )


# --- rotation filters -----------------------------------------------------------------------------
def map_frame(i, n, boundary):
    if 0 <= i < n:
        return i
    if boundary == 'clamp':
        return 0 if i < 0 else n - 1
    if boundary == 'wrap':
        return i % n
    if boundary == 'reflect':
        if n == 1:
            return 0
        p = 2 * (n - 1)
        m = i % p
        return p - m if m >= n else m
    return None  # renormalize: dropped


def window(f, n, weights_at, radius, boundary):
    taps = []
    for i in range(f - radius, f + radius + 1):
        w = weights_at(f - i)
        if w == 0:
            continue
        j = map_frame(i, n, boundary)
        if j is None:
            continue
        taps.append((j, w))
    return taps


def filter_rot(q, weights_at, radius, boundary, space):
    n, joints, _ = q.shape
    out = np.zeros_like(q)
    for f in range(n):
        taps = window(f, n, weights_at, radius, boundary)
        ws = np.array([w for _, w in taps])
        W = ws.sum()
        for j in range(joints):
            r = q[f, j]
            samples = np.array([q[i, j] for i, _ in taps])
            if space == 'raw':
                signs = np.where(samples @ r < 0, -1.0, 1.0)
                a = (ws * signs) @ samples
                a = a / np.linalg.norm(a)
            elif space == 'log':
                rel = R.from_quat(r).inv() * R.from_quat(samples)
                mean = (ws @ rel.as_rotvec()) / W
                a = (R.from_quat(r) * R.from_rotvec(mean)).as_quat()
            else:
                M = (samples.T * ws) @ samples / W
                vals, vecs = np.linalg.eigh(M)
                a = vecs[:, np.argmax(vals)]
            if a @ r < 0:
                a = -a
            out[f, j] = a
    return out


frames, joints = 48, 3
rv = np.cumsum(rng.normal(scale=0.08, size=(frames, joints, 3)), axis=0) + rng.normal(scale=0.02, size=(frames, joints, 3))
rot = R.from_rotvec(rv.reshape(-1, 3)).as_quat().reshape(frames, joints, 4)
flips = rng.random((frames, joints)) < 0.3
rot[flips] *= -1  # never unrolled: random signs

sigma = 2.0
radius = int(3 * sigma + 0.5)


def g(x):
    return gauss(x, sigma, radius)


def tent(x):
    return max(0.0, 1 - abs(x))


def unsharp(x):
    return 2.0 * tent(x) - 1.0 * g(x)


rotation_cases = []
for kname, fn in (('gaussian', g), ('unsharp', unsharp)):
    for boundary in ('renormalize', 'clamp', 'reflect', 'wrap'):
        for space in ('raw', 'log', 'eigen'):
            out = filter_rot(rot, fn, radius, boundary, space)
            rotation_cases.append(
                {'kernel': kname, 'boundary': boundary, 'space': space, 'output': out.ravel().tolist()}
            )

doc = {
    'generator': 'scripts/fixtures_filter.py',
    'scipy': scipy.__version__,
    'numpy': np.__version__,
    'kernels': {'x': xs, 'values': kernel_values},
    'vectors': {'frames': 40, 'signal': signal.ravel().tolist(), 'cases': vector_cases},
    'rotations': {
        'frames': frames,
        'joints': joints,
        'sigma': sigma,
        'unsharpAmount': 1.0,
        'input': rot.ravel().tolist(),
        'cases': rotation_cases,
    },
}
with open(OUT, 'w') as fh:
    json.dump(doc, fh)
print('wrote', OUT)
