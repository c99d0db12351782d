#!/usr/bin/env python3
"""Baseline filter weights for the cleanClip tests (test/ops/clean/).

Writes test/fixtures/clean.json. Run from the repository root: python3 scripts/fixtures_clean.py
The baselines are what users' smoothing scripts call, per quaternion component:
- scipy.signal.savgol_filter(x, 9, 2) (default mode 'interp'): inside, savgol_coeffs(9, 2); in the first and
  last 4 frames the polynomial fitted to the first or last window, evaluated at the frame's position, i.e.
  savgol_coeffs(9, 2, pos=p, use='dot') for p = 0..8 (row p weights the window's samples in order);
- scipy.ndimage.gaussian_filter1d(x, 4/3) (truncate 4.0 -> radius 5; here truncate 3 -> radius 4, the same
  9-frame window as the Savitzky-Golay filter): the weights read off by filtering a unit impulse.
"""
import json
import os

import numpy as np
import scipy
from scipy.ndimage import gaussian_filter1d
from scipy.signal import savgol_coeffs, savgol_filter

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'test', 'fixtures', 'clean.json')

WINDOW, ORDER = 9, 2
savgol_rows = [savgol_coeffs(WINDOW, ORDER, pos=p, use='dot').tolist() for p in range(WINDOW)]
# check the table against savgol_filter itself on random data
rng = np.random.default_rng(35)
x = rng.normal(size=40)
y = np.empty_like(x)
for f in range(len(x)):
    start = min(max(f - WINDOW // 2, 0), len(x) - WINDOW)
    y[f] = np.dot(savgol_rows[f - start], x[start:start + WINDOW])
assert np.allclose(y, savgol_filter(x, WINDOW, ORDER), atol=1e-12)

SIGMA = 4 / 3
impulse = np.zeros(21)
impulse[10] = 1
gauss = gaussian_filter1d(impulse, SIGMA, truncate=3.0, mode='constant')[6:15].tolist()
x2 = rng.normal(size=40)
reflect = np.concatenate([x2[3::-1], x2, x2[:-5:-1]])
assert np.allclose(np.convolve(reflect, gauss, mode='valid'), gaussian_filter1d(x2, SIGMA, truncate=3.0), atol=1e-12)

with open(OUT, 'w') as f:
    json.dump({
        'scipy': scipy.__version__,
        'savgol': {'window': WINDOW, 'order': ORDER, 'rows': savgol_rows},
        'gaussian': {'sigma': SIGMA, 'truncate': 3.0, 'mode': 'reflect', 'weights': gauss},
    }, f, indent=1)
    f.write('\n')
print('wrote', os.path.relpath(OUT))
