#!/usr/bin/env python3
"""Reference outputs for the streaming filters (src/ops/live/).

Writes test/fixtures/live.json with:
- one_euro: a scalar test signal at irregular timestamps (sine, step, ramp and noise) and the output of the
  1€ filter transcribed from the paper's pseudocode (Casiez, Roussel, Vogel, "1€ Filter: A Simple
  Speed-based Low-pass Filter for Noisy Input in Interactive Systems", CHI 2012, Algorithm 1) for several
  parameter sets, in both derivative variants: 'output' is the pseudocode as printed (the speed from the
  previous filtered value, `hatxprev`), 'input' replaces that one line by the previous raw value, as the
  authors' 2012 reference code does. The vector One Euro filter of width 1 must match both to 1e-12.
- damper: the same signal through Holden's exact critically damped spring (`critical_spring_damper_exact`,
  with the goal velocity set to 0) and exact exponential damper (`damper_exact`), from "Spring-It-On: The
  Game Developer's Spring-Roll-Call" (2021), with the spring's damping chosen so that the half-life is exact
  (d = 2u/halflife, (1 + u) exp(-u) = 1/2).
- rotations: a noisy rotation signal with random quaternion signs at irregular timestamps, filtered by the
  same two filters written independently on SciPy's Rotation (rotation vectors, composition), the
  tangent-space form the rotation filters document: One Euro with the step `from_rotvec(alpha d) * y` and the
  damper in the log space of the goal.

Rerun with `npm run fixtures` (or `python3 scripts/fixtures_live.py`); deterministic (seeded).
"""
import json
import math
import os

import numpy as np
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation as R

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "fixtures", "live.json")
rng = np.random.default_rng(21)


# ---- the paper's Algorithm 1, transcribed ---------------------------------------------------------------
class LowPassFilter:
    def __init__(self):
        self.first_time = True
        self.hatxprev = None

    def filter(self, x, alpha):
        if self.first_time:
            self.first_time = False
            self.hatxprev = x
        hatx = alpha * x + (1 - alpha) * self.hatxprev
        self.hatxprev = hatx
        return hatx


class OneEuroFilter:
    def __init__(self, rate, mincutoff, beta, dcutoff, derivative):
        self.first_time = True
        self.rate = rate
        self.mincutoff = mincutoff
        self.beta = beta
        self.dcutoff = dcutoff
        self.derivative = derivative
        self.xfilt = LowPassFilter()
        self.dxfilt = LowPassFilter()
        self.last_time = None
        self.xprev = None

    def alpha(self, cutoff):
        tau = 1.0 / (2 * math.pi * cutoff)
        te = 1.0 / self.rate
        return 1.0 / (1.0 + tau / te)

    def filter(self, x, timestamp):
        if self.last_time is not None:
            self.rate = 1.0 / (timestamp - self.last_time)
        self.last_time = timestamp
        if self.first_time:
            self.first_time = False
            dx = 0.0
        elif self.derivative == "output":
            dx = (x - self.xfilt.hatxprev) * self.rate
        else:
            dx = (x - self.xprev) * self.rate
        self.xprev = x
        edx = self.dxfilt.filter(dx, self.alpha(self.dcutoff))
        cutoff = self.mincutoff + self.beta * abs(edx)
        return self.xfilt.filter(x, self.alpha(cutoff))


# ---- Holden's exact dampers (scalar) ---------------------------------------------------------------------
U = brentq(lambda u: (1 + u) * math.exp(-u) - 0.5, 1.0, 2.0, xtol=1e-16)


def critical_spring(xs, ts, halflife):
    d = 2 * U / halflife
    y = d / 2
    x, v = xs[0], 0.0
    out = [x]
    for k in range(1, len(xs)):
        dt = ts[k] - ts[k - 1]
        g = xs[k]
        j0 = x - g
        j1 = v + j0 * y
        eydt = math.exp(-y * dt)
        x = eydt * (j0 + j1 * dt) + g
        v = eydt * (v - j1 * y * dt)
        out.append(x)
    return out


def exponential_damper(xs, ts, halflife):
    x = xs[0]
    out = [x]
    for k in range(1, len(xs)):
        dt = ts[k] - ts[k - 1]
        x = x + (xs[k] - x) * (1 - 2 ** (-dt / halflife))
        out.append(x)
    return out


# ---- the scalar test signal ------------------------------------------------------------------------------
N = 400
ts = np.cumsum(np.r_[0.0, (1 / 60) * (1 + rng.uniform(-0.3, 0.3, N - 1))])
xs = (
    np.sin(2 * np.pi * 0.7 * ts)
    + 0.5 * (ts > 2.0)
    + 0.8 * np.clip(ts - 4.0, 0, 1.5)
    + 0.05 * rng.standard_normal(N)
)
params = [
    {"minCutoff": 1.0, "beta": 0.0, "dCutoff": 1.0},
    {"minCutoff": 1.0, "beta": 0.5, "dCutoff": 1.0},
    {"minCutoff": 0.5, "beta": 2.0, "dCutoff": 2.5},
]
one_euro = []
for p in params:
    for derivative in ["output", "input"]:
        f = OneEuroFilter(60.0, p["minCutoff"], p["beta"], p["dCutoff"], derivative)
        one_euro.append({**p, "derivative": derivative, "output": [f.filter(float(x), float(t)) for x, t in zip(xs, ts)]})

dampers = []
for h in [0.05, 0.2]:
    dampers.append({"response": "critical", "halfLife": h, "output": critical_spring(list(xs), list(ts), h)})
    dampers.append({"response": "exponential", "halfLife": h, "output": exponential_damper(list(xs), list(ts), h)})

# ---- rotations (SciPy) -----------------------------------------------------------------------------------
M = 240
rts = np.cumsum(np.r_[0.0, (1 / 90) * (1 + rng.uniform(-0.3, 0.3, M - 1))])
truth = R.from_rotvec(np.stack([1.2 * np.sin(2.1 * rts), 0.8 * rts, 0.6 * np.cos(1.3 * rts)], axis=1))
noise = R.from_rotvec(0.02 * rng.standard_normal((M, 3)))
rin = noise * truth
quats = rin.as_quat()
quats *= rng.choice([-1.0, 1.0], size=(M, 1))


def one_euro_rot(q, t, mincutoff, beta, dcutoff):
    rots = R.from_quat(q)
    y = rots[0]
    prev = rots[0]
    e = np.zeros(3)
    out = [y]
    for k in range(1, len(q)):
        dt = t[k] - t[k - 1]
        x = rots[k]
        d = (x * y.inv()).as_rotvec()
        s = (x * prev.inv()).as_rotvec() / dt
        ad = 1 / (1 + 1 / (2 * math.pi * dcutoff * dt))
        e = ad * s + (1 - ad) * e
        cutoff = mincutoff + beta * np.linalg.norm(e)
        a = 1 / (1 + 1 / (2 * math.pi * cutoff * dt))
        y = R.from_rotvec(a * d) * y
        prev = x
        out.append(y)
    return out


def damper_rot(q, t, halflife, response):
    rots = R.from_quat(q)
    x = rots[0]
    v = np.zeros(3)
    d = 2 * U / halflife
    yy = d / 2
    out = [x]
    for k in range(1, len(q)):
        dt = t[k] - t[k - 1]
        g = rots[k]
        j = (x * g.inv()).as_rotvec()
        if response == "critical":
            j1 = v + j * yy
            e = math.exp(-yy * dt)
            jn = e * (j + j1 * dt)
            v = e * (v - j1 * yy * dt)
        else:
            jn = 2 ** (-dt / halflife) * j
        x = R.from_rotvec(jn) * g
        out.append(x)
    return out


def as_w_positive(rs):
    a = np.array([r.as_quat() for r in rs])
    a[a[:, 3] < 0] *= -1
    return [float(v) for v in a.ravel()]


rotations = {
    "times": [float(v) for v in rts],
    "quats": [float(v) for v in quats.ravel()],
    "oneEuro": {"minCutoff": 1.0, "beta": 0.8, "dCutoff": 1.0,
                "output": as_w_positive(one_euro_rot(quats, rts, 1.0, 0.8, 1.0))},
    "dampers": [
        {"response": r, "halfLife": 0.08, "output": as_w_positive(damper_rot(quats, rts, 0.08, r))}
        for r in ["critical", "exponential"]
    ],
}

with open(OUT, "w") as fh:
    json.dump(
        {
            "criticalHalfLifeRoot": U,
            "times": [float(v) for v in ts],
            "signal": [float(v) for v in xs],
            "oneEuro": one_euro,
            "dampers": dampers,
            "rotations": rotations,
        },
        fh,
    )
print(f"wrote {OUT}: u = {U!r}")
