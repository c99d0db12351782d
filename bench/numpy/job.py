"""The batch job of `rotsig process --unroll --smooth gaussian:2f --resample 30`, written as a NumPy and
SciPy user would write it: the reference `bench/cli.js --numpy` times rotsig against.

Usage: python3 bench/numpy/job.py <input folder> <output folder>

For every .bvh under the input folder (recursively), written to the same relative path under the output:
- parse the hierarchy's channel layout and the motion rows (numpy);
- rotations to quaternions per joint in the joint's own Euler order (scipy Rotation.from_euler);
- unroll: flip each quaternion into the hemisphere of the previous one (cumulative sign product);
- smooth: Gaussian, sigma 2 frames (`gaussian:2f`), on quaternion components and positions (scipy gaussian_filter1d,
  `nearest` boundary), quaternions renormalised;
- resample to 30 Hz: polyphase anti-aliased resampling (scipy resample_poly) at the rational ratio of the
  rates, quaternions renormalised;
- back to the joint's Euler order in degrees, written with the input's hierarchy text unchanged.
"""

import os
import resource
import warnings
import sys
import time
from fractions import Fraction

import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.signal import resample_poly
from scipy.spatial.transform import Rotation

TARGET_RATE = 30.0
SIGMA = 2.0


def channel_layout(header):
    """Per joint with channels: (first column, [channel names])."""
    tokens = header.split()
    joints = []
    column = 0
    i = 0
    while i < len(tokens):
        if tokens[i] == 'CHANNELS':
            n = int(tokens[i + 1])
            names = tokens[i + 2 : i + 2 + n]
            joints.append((column, names))
            column += n
            i += 2 + n
        else:
            i += 1
    return joints, column


def process(src, dst):
    with open(src, 'r', encoding='latin-1') as f:
        text = f.read()
    cut = text.index('MOTION')
    header = text[:cut]
    motion = text[cut:].split('\n')
    frame_time = float(next(l for l in motion if l.strip().startswith('Frame Time')).split(':')[1])
    start = next(i for i, l in enumerate(motion) if l.strip().startswith('Frame Time')) + 1
    joints, width = channel_layout(header)
    values = np.array(' '.join(motion[start:]).split(), dtype=np.float64)
    frames = values.size // width
    data = values[: frames * width].reshape(frames, width)

    rate = 1.0 / frame_time
    ratio = Fraction(TARGET_RATE / rate).limit_denominator(1000)
    out = None
    for column, names in joints:
        rot = [k for k, n in enumerate(names) if n.lower().endswith('rotation')]
        pos = [k for k, n in enumerate(names) if n.lower().endswith('position')]
        cols = None
        if pos:
            p = data[:, [column + k for k in pos]]
            p = gaussian_filter1d(p, SIGMA, axis=0, mode='nearest')
            p = resample_poly(p, ratio.numerator, ratio.denominator, axis=0, padtype='line')
            cols = {column + k: p[:, j] for j, k in enumerate(pos)}
        if rot:
            order = ''.join(names[k][0].upper() for k in rot)
            q = Rotation.from_euler(order, data[:, [column + k for k in rot]], degrees=True).as_quat()
            d = np.einsum('ij,ij->i', q[1:], q[:-1])
            sign = np.concatenate(([1.0], np.cumprod(np.where(d < 0, -1.0, 1.0))))
            q *= sign[:, None]
            q = gaussian_filter1d(q, SIGMA, axis=0, mode='nearest')
            q /= np.linalg.norm(q, axis=1, keepdims=True)
            q = resample_poly(q, ratio.numerator, ratio.denominator, axis=0, padtype='line')
            q /= np.linalg.norm(q, axis=1, keepdims=True)
            e = Rotation.from_quat(q).as_euler(order, degrees=True)
            cols = cols or {}
            for j, k in enumerate(rot):
                cols[column + k] = e[:, j]
        if cols:
            if out is None:
                out = np.zeros((len(next(iter(cols.values()))), width))
            for c, v in cols.items():
                out[:, c] = v
    if out is None:
        out = np.zeros((0, width))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, 'w') as f:
        f.write(header)
        f.write(f'MOTION\nFrames: {out.shape[0]}\nFrame Time: {1.0 / TARGET_RATE:.7f}\n')
        np.savetxt(f, out, fmt='%.6f')


def main():
    warnings.filterwarnings("ignore", message="Gimbal lock")
    src_root, dst_root = sys.argv[1], sys.argv[2]
    count = 0
    for folder, _, names in sorted(os.walk(src_root)):
        for name in sorted(names):
            if name.lower().endswith('.bvh'):
                src = os.path.join(folder, name)
                process(src, os.path.join(dst_root, os.path.relpath(src, src_root)))
                count += 1
    print(count)
    # CPU seconds of this process from its start (imports included), for the bench's CPU ratio
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    print(f'numpy-cpu {time.process_time():.3f} faults {faults}', file=sys.stderr)


if __name__ == '__main__':
    main()
