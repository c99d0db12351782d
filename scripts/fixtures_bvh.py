"""Independent reference for the BVH reader and forward kinematics.

Parses the shared real BVH files with its own small line-based parser (not rotsig's), computes global
joint rotations and positions with scipy.spatial.transform.Rotation for a few frames per file, and writes
test/fixtures/bvh/fk_<name>.json. Run from the repository root:  python3 scripts/fixtures_bvh.py

Conventions pinned here: each joint's rotation channels, in file order, are an intrinsic Euler sequence
(uppercase in SciPy, 'ZXY' for "Zrotation Xrotation Yrotation"), angles in degrees; global rotation
R_j = R_parent * r_j; global position x_j = x_parent + R_parent.apply(t_j); t_j = OFFSET with position
channels replacing (positionMode 'replace') or added to (positionMode 'add') its components.
"""
import json
import os
import sys

import numpy as np
from scipy.spatial.transform import Rotation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, '..', 'shared', 'data', 'bvh')
OUT = os.path.join(ROOT, 'test', 'fixtures', 'bvh')

FILES = [
    ('cmu/01_01.bvh', 'replace'),
    ('cmu-iclone/005_11.bvh', 'replace'),
    ('cmu-iclone/005_11.bvh', 'add'),
    ('bandai-namco/dataset-1_dance-short_normal_001.bvh', 'replace'),
    ('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh', 'replace'),
    ('axis-neuron/test.bvh', 'replace'),
    ('assimp/Boxing_Toes.bvh', 'replace'),
    ('pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh', 'replace'),
    ('lafan1-resolved/Geno_bind.bvh', 'replace'),
]

# hand-written quirk fixtures of this repository (all six Tait-Bryan orders, 0-6 channels, two roots)
QUIRKS = os.path.join(ROOT, 'test', 'fixtures', 'bvh', 'quirks')
QUIRK_FILES = [('orders.bvh', 'replace'), ('channels.bvh', 'replace'), ('channels.bvh', 'add'), ('multi-root.bvh', 'replace')]


def parse(text):
    """Returns (names, parents, offsets, channels, frame_values (rows x width))."""
    lines = text.replace('\r\n', '\n').replace('\r', '\n').split('\n')
    names, parents, offsets, channels = [], [], [], []
    stack = []  # joint index per open brace (-2 for an End Site)
    pending = None
    i = 0
    while True:
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        word = line.split()[0].upper()
        if word == 'HIERARCHY':
            continue
        if word in ('ROOT', 'JOINT'):
            name = line.split(None, 1)[1].strip()
            parent = next((s for s in reversed(stack) if s >= 0), -1) if word == 'JOINT' else -1
            names.append(name)
            parents.append(parent)
            offsets.append([0.0, 0.0, 0.0])
            channels.append([])
            pending = len(names) - 1
        elif word == 'END':
            pending = -2
        elif word == '{':
            stack.append(pending)
        elif word == '}':
            stack.pop()
        elif word == 'OFFSET':
            vals = [float(v) for v in line.split()[1:4]]
            if stack[-1] >= 0:
                offsets[stack[-1]] = vals
        elif word == 'CHANNELS':
            parts = line.split()
            channels[stack[-1]] = parts[2:2 + int(parts[1])]
        elif word == 'MOTION':
            break
        else:
            raise ValueError('unexpected line %r' % line)
    while not lines[i].strip():
        i += 1
    assert lines[i].strip().lower().startswith('frames')
    i += 1
    assert lines[i].strip().lower().startswith('frame time')
    i += 1
    width = sum(len(c) for c in channels)
    values = np.array([float(v) for v in ' '.join(lines[i:]).split()])
    assert values.size % width == 0
    return names, parents, np.array(offsets), channels, values.reshape(-1, width)


def fk(names, parents, offsets, channels, row, mode):
    J = len(names)
    rots = [None] * J
    pos = np.zeros((J, 3))
    col = 0
    for j in range(J):
        t = offsets[j].copy()
        axes, angles = '', []
        for c in channels[j]:
            v = row[col]
            col += 1
            axis = 'XYZ'.index(c[0].upper())
            if c.lower().endswith('position'):
                t[axis] = t[axis] + v if mode == 'add' else v
            else:
                axes += c[0].upper()
                angles.append(v)
        local = Rotation.from_euler(axes, angles, degrees=True) if axes else Rotation.identity()
        p = parents[j]
        if p < 0:
            rots[j] = local
            pos[j] = t
        else:
            rots[j] = rots[p] * local
            pos[j] = pos[p] + rots[p].apply(t)
    quats = np.array([r.as_quat() for r in rots])  # x, y, z, w
    return quats, pos


def main():
    if not os.path.isdir(SHARED):
        sys.exit('shared BVH folder not found: ' + SHARED)
    os.makedirs(OUT, exist_ok=True)
    jobs = [(SHARED, rel, mode) for rel, mode in FILES] + [(QUIRKS, rel, mode) for rel, mode in QUIRK_FILES]
    for base, rel, mode in jobs:
        with open(os.path.join(base, rel), newline='') as f:
            text = f.read()
        names, parents, offsets, channels, data = parse(text)
        rows = data.shape[0]
        picks = sorted(set([0, rows // 3, (2 * rows) // 3, rows - 1]))
        frames = []
        for fr in picks:
            q, p = fk(names, parents, offsets, channels, data[fr], mode)
            frames.append({
                'frame': fr,
                'rotations': [float(x) for x in q.ravel()],
                'positions': [float(x) for x in p.ravel()],
            })
        out = {
            'file': rel,
            'positionMode': mode,
            'joints': len(names),
            'frames': rows,
            'names': names,
            'parents': parents,
            'samples': frames,
        }
        stem = os.path.splitext(os.path.basename(rel))[0]
        prefix = 'fk_quirk_' if base == QUIRKS else 'fk_'
        name = '%s%s%s.json' % (prefix, stem, '_add' if mode == 'add' else '')
        with open(os.path.join(OUT, name), 'w') as f:
            json.dump(out, f)  # json writes floats with repr: full precision
        print(name, len(names), 'joints', rows, 'rows, frames', picks)


def arrays_fixture():
    """Local rotations of a few frames of the walk-turn file as quaternion, 6D, rotation vector and Euler."""
    rel = 'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh'
    with open(os.path.join(SHARED, rel), newline='') as f:
        names, parents, offsets, channels, data = parse(f.read())
    picks = [0, 50, 101]
    out = {'file': rel, 'joints': len(names), 'frames': picks, 'quaternion': [], '6d': [], 'rotation-vector': [], 'euler': [], 'orders': []}
    for j in range(len(names)):
        out['orders'].append(''.join(c[0].upper() for c in channels[j] if c.lower().endswith('rotation')))
    for fr in picks:
        row = data[fr]
        col = 0
        rows = {k: [] for k in ('quaternion', '6d', 'rotation-vector', 'euler')}
        for j in range(len(names)):
            axes, angles = '', []
            for c in channels[j]:
                if c.lower().endswith('rotation'):
                    axes += c[0].upper()
                    angles.append(row[col])
                col += 1
            r = Rotation.from_euler(axes, angles, degrees=True)
            m = r.as_matrix()
            rows['quaternion'] += [float(x) for x in r.as_quat()]
            rows['6d'] += [float(x) for x in list(m[:, 0]) + list(m[:, 1])]
            rows['rotation-vector'] += [float(x) for x in r.as_rotvec()]
            rows['euler'] += [float(x) for x in r.as_euler(axes)]
        for k, v in rows.items():
            out[k].append(v)
    with open(os.path.join(OUT, 'arrays_walk.json'), 'w') as f:
        json.dump(out, f)
    print('arrays_walk.json', len(names), 'joints, frames', picks)


def npy_fixture():
    """numpy.save bytes of small arrays, so the .npy writer can be compared byte for byte."""
    import base64
    import io
    cases = []
    specs = [
        ('<f8', (2, 3)), ('<f4', (4,)), ('<f8', ()), ('<f4', (0,)), ('<i4', (2, 2, 2)),
        ('|u1', (3,)), ('<f8', (3, 5, 4)), ('<f4', (2, 1, 6)), ('<u2', (5,)), ('|i1', (4,)),
    ]
    for dtype, shape in specs:
        n = int(np.prod(shape)) if shape else 1
        kind = np.dtype(dtype).kind
        values = np.arange(n) / 7.0 - 0.25 if kind == 'f' else (np.arange(n) * 3 - (2 if kind == 'i' else 0))
        arr = np.asarray(values).astype(dtype).reshape(shape)
        buf = io.BytesIO()
        np.save(buf, arr)
        cases.append({
            'dtype': dtype,
            'shape': list(shape),
            'values': [float(v) if kind == 'f' else int(v) for v in arr.ravel()],
            'npy': base64.b64encode(buf.getvalue()).decode('ascii'),
        })
    with open(os.path.join(ROOT, 'test', 'fixtures', 'npy.json'), 'w') as f:
        json.dump({'numpy': np.__version__, 'cases': cases}, f)
    print('npy.json', len(cases), 'cases')


if __name__ == '__main__':
    main()
    arrays_fixture()
    npy_fixture()
