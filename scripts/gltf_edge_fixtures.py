"""Small glTF files for content the shared files do not have: a KHR_animation_pointer channel and sparse
animation accessors, with the dense values a reader must get, decoded here from the glTF 2.0
specification alone (section 3.6.2.3 "Sparse Accessors": start from the base buffer view, or zeros
without one, then element indices[i] takes values[i]; sparse indices and values views carry their own
byteOffset, 0 when absent, independent of the accessor's byteOffset).

Run from the repository root: python3 scripts/gltf_edge_fixtures.py
Writes test/fixtures/gltf/edge/pointer.gltf, sparse.gltf and sparse-expected.json; the buffers are
embedded as data URIs, so each .gltf is one file.
"""
import base64
import json
import math
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures', 'gltf', 'edge')
FLOAT, UBYTE, USHORT = 5126, 5121, 5123


def data_uri(blob):
    return 'data:application/octet-stream;base64,' + base64.b64encode(blob).decode('ascii')


def pad4(blob):
    return blob + b'\0' * (-len(blob) % 4)


def quat_axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([axis * math.sin(angle / 2), [math.cos(angle / 2)]])


def pointer_file():
    """Node 0 rotates (a plain channel); node 1's translation moves through KHR_animation_pointer."""
    times = np.array([0, 1, 2], dtype='<f4')
    rot = np.stack([quat_axis_angle([0, 1, 0], a) for a in (0, math.pi / 2, math.pi)]).astype('<f4')
    trans = np.array([[0, 1, 0], [0, 2, 0], [0, 1, 0]], dtype='<f4')
    parts = [times.tobytes(), rot.tobytes(), trans.tobytes()]
    offsets = np.cumsum([0] + [len(p) for p in parts])[:-1]
    blob = b''.join(parts)
    gltf = {
        'asset': {'version': '2.0', 'generator': 'rotsig scripts/gltf_edge_fixtures.py'},
        'extensionsUsed': ['KHR_animation_pointer'],
        'scene': 0,
        'scenes': [{'nodes': [0, 1]}],
        'nodes': [{'name': 'spinner'}, {'name': 'lifter', 'translation': [0, 1, 0]}],
        'buffers': [{'byteLength': len(blob), 'uri': data_uri(blob)}],
        'bufferViews': [
            {'buffer': 0, 'byteOffset': int(o), 'byteLength': len(p)} for o, p in zip(offsets, parts)
        ],
        'accessors': [
            {'bufferView': 0, 'componentType': FLOAT, 'count': 3, 'type': 'SCALAR', 'min': [0], 'max': [2]},
            {'bufferView': 1, 'componentType': FLOAT, 'count': 3, 'type': 'VEC4'},
            {'bufferView': 2, 'componentType': FLOAT, 'count': 3, 'type': 'VEC3'},
        ],
        'animations': [
            {
                'name': 'lift',
                'samplers': [
                    {'input': 0, 'output': 1, 'interpolation': 'LINEAR'},
                    {'input': 0, 'output': 2, 'interpolation': 'LINEAR'},
                ],
                'channels': [
                    {'sampler': 0, 'target': {'node': 0, 'path': 'rotation'}},
                    {
                        'sampler': 1,
                        'target': {
                            'path': 'pointer',
                            'extensions': {'KHR_animation_pointer': {'pointer': '/nodes/1/translation'}},
                        },
                    },
                ],
            }
        ],
    }
    return gltf


def sparse_file():
    """A rotation output on a base view (at an accessor byteOffset) with two keys replaced sparsely, and
    a translation output without a base view (zeros) with two keys given sparsely."""
    n = 5
    times = np.array([0, 0.5, 1, 1.5, 2], dtype='<f4')
    base = np.tile(np.array([0, 0, 0, 1], dtype='<f4'), (n, 1))
    rot_idx = np.array([1, 3], dtype='<u1')
    rot_val = np.stack([quat_axis_angle([0, 1, 0], math.pi / 2), quat_axis_angle([1, 0, 0], math.pi / 2)])
    rot_val = rot_val.astype('<f4')
    tr_idx = np.array([0, 4], dtype='<u2')
    tr_val = np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4')
    lead = np.full(4, 7, dtype='<f4')  # 16 bytes before the base data: the accessor's byteOffset
    parts = [
        pad4(times.tobytes()),
        lead.tobytes() + base.tobytes(),
        pad4(rot_idx.tobytes()),
        rot_val.tobytes(),
        pad4(tr_idx.tobytes()),
        tr_val.tobytes(),
    ]
    offsets = np.cumsum([0] + [len(p) for p in parts])[:-1]
    blob = b''.join(parts)
    views = [{'buffer': 0, 'byteOffset': int(o), 'byteLength': len(p)} for o, p in zip(offsets, parts)]
    views[2]['byteLength'] = 2
    views[4]['byteLength'] = 4
    gltf = {
        'asset': {'version': '2.0', 'generator': 'rotsig scripts/gltf_edge_fixtures.py'},
        'scene': 0,
        'scenes': [{'nodes': [0]}],
        'nodes': [{'name': 'mover'}],
        'buffers': [{'byteLength': len(blob), 'uri': data_uri(blob)}],
        'bufferViews': views,
        'accessors': [
            {'bufferView': 0, 'componentType': FLOAT, 'count': n, 'type': 'SCALAR', 'min': [0], 'max': [2]},
            {
                'bufferView': 1,
                'byteOffset': 16,
                'componentType': FLOAT,
                'count': n,
                'type': 'VEC4',
                'sparse': {
                    'count': 2,
                    'indices': {'bufferView': 2, 'componentType': UBYTE},
                    'values': {'bufferView': 3},
                },
            },
            {
                'componentType': FLOAT,
                'count': n,
                'type': 'VEC3',
                'sparse': {
                    'count': 2,
                    'indices': {'bufferView': 4, 'componentType': USHORT},
                    'values': {'bufferView': 5},
                },
            },
        ],
        'animations': [
            {
                'name': 'sparse',
                'samplers': [
                    {'input': 0, 'output': 1, 'interpolation': 'LINEAR'},
                    {'input': 0, 'output': 2, 'interpolation': 'STEP'},
                ],
                'channels': [
                    {'sampler': 0, 'target': {'node': 0, 'path': 'rotation'}},
                    {'sampler': 1, 'target': {'node': 0, 'path': 'translation'}},
                ],
            }
        ],
    }
    # the dense outputs, by the specification's rule
    rotation = base.astype(np.float64).copy()
    rotation[rot_idx] = rot_val
    translation = np.zeros((n, 3))
    translation[tr_idx] = tr_val
    expected = {
        'times': times.astype(np.float64).tolist(),
        'rotation': rotation.ravel().tolist(),
        'translation': translation.ravel().tolist(),
    }
    return gltf, expected


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'pointer.gltf'), 'w') as f:
        json.dump(pointer_file(), f, indent=1)
        f.write('\n')
    gltf, expected = sparse_file()
    with open(os.path.join(OUT, 'sparse.gltf'), 'w') as f:
        json.dump(gltf, f, indent=1)
        f.write('\n')
    with open(os.path.join(OUT, 'sparse-expected.json'), 'w') as f:
        json.dump(expected, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
