"""Oracle fixtures for the FFT, spectrum and resampling tests (numpy / scipy).

Run from the repository root: python3 scripts/fixtures_resample.py
Writes test/fixtures/fft.json and test/fixtures/spectrum.json with full-precision floats.
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


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'fft.json'), 'w') as f:
        json.dump({'generator': 'scripts/fixtures_resample.py', 'numpy': np.__version__, 'cases': fft_cases()}, f)
    with open(os.path.join(OUT, 'spectrum.json'), 'w') as f:
        json.dump({'generator': 'scripts/fixtures_resample.py', 'scipy': scipy.__version__, 'cases': spectrum_cases()}, f)


if __name__ == '__main__':
    main()
