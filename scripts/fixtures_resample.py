"""Oracle fixtures for the FFT, spectrum and resampling tests (numpy / scipy).

Run from the repository root: python3 scripts/fixtures_resample.py
Writes test/fixtures/fft.json, spectrum.json and resample-vectors.json with full-precision floats.
"""
import json
import os

import numpy as np
import scipy.signal

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures')
rng = np.random.default_rng(20261122)


def floats(a):
    return [float(v) for v in np.asarray(a).ravel()]


def fft_cases():
    cases = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 64, 97, 100, 127, 360, 1000]:
        re = rng.standard_normal(n)
        im = rng.standard_normal(n)
        X = np.fft.fft(re + 1j * im)
        R = np.fft.rfft(re)
        cases.append({
            'n': n,
            're': floats(re),
            'im': floats(im),
            'fftRe': floats(X.real),
            'fftIm': floats(X.imag),
            'rfftRe': floats(R.real),
            'rfftIm': floats(R.imag),
        })
    return cases


def spectrum_cases():
    """Amplitude spectrum with a periodic Hann window, mean removed, one-sided amplitude scaling:
    |X_k| * 2 / sum(w) for 0 < k < N/2, |X_k| / sum(w) at DC and at Nyquist."""
    cases = []
    for n, rate in [(256, 120.0), (301, 29.97), (1000, 60.0)]:
        t = np.arange(n) / rate
        x = 0.7 * np.sin(2 * np.pi * 7.3 * t) + 0.05 * np.cos(2 * np.pi * 21.0 * t) + 0.3 + 0.01 * rng.standard_normal(n)
        for window in ['hann', 'boxcar', 'hamming', 'blackman']:
            w = scipy.signal.get_window(window, n)  # periodic (DFT-even) window
            y = (x - x.mean()) * w
            X = np.fft.rfft(y)
            amp = np.abs(X) / w.sum()
            amp[1:] *= 2
            if n % 2 == 0:
                amp[-1] /= 2
            cases.append({
                'n': n,
                'rate': rate,
                'window': window,
                'x': floats(x),
                'frequencies': floats(np.fft.rfftfreq(n, 1 / rate)),
                'amplitude': floats(amp),
            })
    return cases


def lanczos(x, a):
    x = np.asarray(x, dtype=float)
    return np.where(np.abs(x) < a, np.sinc(x) * np.sinc(x / a), 0.0)


def catmull_rom(x):
    a = np.abs(np.asarray(x, dtype=float))
    return np.where(a < 1, (1.5 * a - 2.5) * a * a + 1, np.where(a < 2, ((-0.5 * a + 2.5) * a - 4) * a + 2, 0.0))


def resample_reference(x, source_rate, target_rate, kernel, radius):
    """Direct evaluation of sum_k K((u - k) / s) x[clamp(k)] / sum_k K((u - k) / s) at u = i * source / target,
    s = max(1, source / target) (anti-aliasing), clamp boundary, M = floor((N - 1) * target / source) + 1."""
    n = len(x)
    m = int(np.floor((n - 1) * target_rate / source_rate + 1e-9)) + 1
    s = max(1.0, source_rate / target_rate)
    out = np.zeros((m,) + x.shape[1:])
    for i in range(m):
        u = i * source_rate / target_rate
        lo = int(np.ceil(u - radius * s))
        hi = int(np.floor(u + radius * s))
        k = np.arange(lo, hi + 1)
        w = kernel((u - k) / s)
        idx = np.clip(k, 0, n - 1)
        out[i] = (w[:, None] * x[idx]).sum(axis=0) / w.sum()
    return out


def resample_cases():
    cases = []
    for n, sr, tr, name in [(91, 30.0, 47.0, 'lanczos3'), (241, 120.0, 50.0, 'lanczos3'), (64, 29.97, 60.0, 'catmull-rom'),
                            (300, 100.0, 30.0, 'catmull-rom')]:
        t = np.arange(n) / sr
        x = np.stack([np.sin(2 * np.pi * 1.7 * t), 0.3 * np.cos(2 * np.pi * 6.1 * t) + t, rng.standard_normal(n) * 0.1],
                     axis=1)
        if name == 'lanczos3':
            y = resample_reference(x, sr, tr, lambda v: lanczos(v, 3), 3)
        else:
            y = resample_reference(x, sr, tr, catmull_rom, 2)
        cases.append({'sourceRate': sr, 'targetRate': tr, 'kernel': name, 'frames': n, 'x': floats(x),
                      'outFrames': int(y.shape[0]), 'y': floats(y)})
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'fft.json'), 'w') as f:
        json.dump({'generator': 'scripts/fixtures_resample.py', 'numpy': np.__version__, 'cases': fft_cases()}, f)
    with open(os.path.join(OUT, 'spectrum.json'), 'w') as f:
        json.dump({'generator': 'scripts/fixtures_resample.py', 'scipy': scipy.__version__, 'cases': spectrum_cases()}, f)
    with open(os.path.join(OUT, 'resample-vectors.json'), 'w') as f:
        json.dump({'generator': 'scripts/fixtures_resample.py', 'numpy': np.__version__, 'cases': resample_cases()}, f)


if __name__ == '__main__':
    main()
