"""Independent reference for rootMotion's heading on the shared BVH files.

Parses each file with the small parser of fixtures_bvh.py (not rotsig's), composes the global rotation of
the chosen root joint with scipy.spatial.transform.Rotation for every frame, takes its twist about the up
axis (y) as 2*atan2(q_y, q_w) wrapped to (-pi, pi], and unwraps it across frames with numpy.unwrap.
Writes test/fixtures/bvh/heading.json. Run from the repository root:
python3 scripts/fixtures_root_motion.py
"""
import json
import os
import sys

import numpy as np
from scipy.spatial.transform import Rotation

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fixtures_bvh import OUT, SHARED, parse  # noqa: E402

FILES = [
    ('cmu/01_01.bvh', 'Hips'),
    ('cmu-iclone/005_11.bvh', None),
    ('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh', 'Hips'),
    ('bandai-namco/dataset-1_dance-short_normal_001.bvh', 'Hips'),
    ('pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh', None),
]


def local_rotations(channels, data, j):
    col = sum(len(c) for c in channels[:j])
    axes, cols = '', []
    for c in channels[j]:
        if c.lower().endswith('rotation'):
            axes += c[0].upper()
            cols.append(col)
        col += 1
    if not axes:
        return Rotation.identity(data.shape[0])
    return Rotation.from_euler(axes, data[:, cols], degrees=True)


def main():
    if not os.path.isdir(SHARED):
        sys.exit('shared BVH folder not found: ' + SHARED)
    out = []
    for rel, root_name in FILES:
        with open(os.path.join(SHARED, rel), newline='') as f:
            names, parents, offsets, channels, data = parse(f.read())
        root = names.index(root_name) if root_name else 0
        chain = []
        j = root
        while j >= 0:
            chain.append(j)
            j = parents[j]
        g = None
        for j in reversed(chain):
            r = local_rotations(channels, data, j)
            g = r if g is None else g * r
        q = g.as_quat()  # x, y, z, w
        twist = 2 * np.arctan2(q[:, 1], q[:, 3])
        twist = (twist + np.pi) % (2 * np.pi) - np.pi
        twist[twist == -np.pi] = np.pi
        heading = np.unwrap(twist)
        out.append({'file': rel, 'root': root, 'up': 'y', 'frames': int(data.shape[0]),
                    'heading': [float(x) for x in heading]})
        print(rel, names[root], 'turn %.1f deg' % np.degrees(heading[-1] - heading[0]))
    with open(os.path.join(OUT, 'heading.json'), 'w') as f:
        json.dump({'files': out}, f)


if __name__ == '__main__':
    main()
