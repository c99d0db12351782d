#!/usr/bin/env python3
"""Object-space error of an animation in one glTF/GLB file against another, evaluated as a player would.

An evaluator kept apart from rotsig's code (numpy only), for key-reduction comparisons:

    python3 scripts/gltf_object_error.py original.glb reduced.glb --shell 0.03 [--rate 120] [--animation 0]
        [--candidate-animation 0] [--shell-units scene|local]

Both files must hold the same node hierarchy (matched by node index). Every animation channel of the
chosen animation is evaluated by the glTF 2.0 specification (Appendix C): STEP, LINEAR (slerp on the
shorter arc for rotations, lerp otherwise), CUBICSPLINE (Hermite with tangents scaled by the key
interval, rotations normalised); normalised integer outputs (KHR_mesh_quantization) are decoded by the
specification's formulas and rotations normalised; before the first key the first value holds, after the
last the last. At every sample time (the original file's key times of that animation, or a uniform grid
with --rate) it composes world matrices T·R·S from the scene roots and measures six virtual vertices per
node (± each local axis at --shell) between the two files. The shell is in scene units by default, as
rotsig reduce states its bound (object space at the node's rest world scale: along each local axis the
distance divided by the rest world matrix's scale on that axis, so a node under an armature scaled 100 gets
vertices 3 cm away in the scene, not 3 m); --shell-units local puts it in the node's own units. Prints one JSON
object: max and 99th-percentile error, keys and output bytes per file (accessor bytes of the animation's
samplers), and the sample count.
"""
import argparse
import base64
import json
import os
import struct
import sys

import numpy as np

COMPONENT = {5120: ('b', 1), 5121: ('B', 1), 5122: ('h', 2), 5123: ('H', 2), 5125: ('I', 4), 5126: ('f', 4)}
WIDTH = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}


def load(path):
    with open(path, 'rb') as fh:
        data = fh.read()
    base = os.path.dirname(path)
    if data[:4] == b'glTF':
        _, _, _length = struct.unpack_from('<III', data, 0)
        offset = 12
        gltf = None
        bin_chunk = None
        while offset < len(data):
            clen, ctype = struct.unpack_from('<II', data, offset)
            chunk = data[offset + 8: offset + 8 + clen]
            if ctype == 0x4E4F534A:
                gltf = json.loads(chunk.decode('utf8'))
            elif ctype == 0x004E4942:
                bin_chunk = chunk
            offset += 8 + clen
    else:
        gltf = json.loads(data.decode('utf8'))
        bin_chunk = None
    buffers = []
    for b in gltf.get('buffers', []):
        uri = b.get('uri')
        if uri is None:
            buffers.append(bin_chunk)
        elif uri.startswith('data:'):
            buffers.append(base64.b64decode(uri.split(',', 1)[1]))
        else:
            with open(os.path.join(base, uri), 'rb') as fh:
                buffers.append(fh.read())
    return gltf, buffers


def accessor(gltf, buffers, index):
    acc = gltf['accessors'][index]
    fmt, size = COMPONENT[acc['componentType']]
    width = WIDTH[acc['type']]
    count = acc['count']
    out = np.zeros((count, width))
    if 'bufferView' in acc:
        view = gltf['bufferViews'][acc['bufferView']]
        buf = buffers[view['buffer']]
        start = view.get('byteOffset', 0) + acc.get('byteOffset', 0)
        stride = view.get('byteStride', size * width)
        for i in range(count):
            out[i] = struct.unpack_from('<' + fmt * width, buf, start + i * stride)
    if 'sparse' in acc:
        sp = acc['sparse']
        iv = gltf['bufferViews'][sp['indices']['bufferView']]
        ifmt, isize = COMPONENT[sp['indices']['componentType']]
        vv = gltf['bufferViews'][sp['values']['bufferView']]
        for k in range(sp['count']):
            idx = struct.unpack_from('<' + ifmt, buffers[iv['buffer']], iv.get('byteOffset', 0) + sp['indices'].get('byteOffset', 0) + k * isize)[0]
            out[idx] = struct.unpack_from('<' + fmt * width, buffers[vv['buffer']], vv.get('byteOffset', 0) + sp['values'].get('byteOffset', 0) + k * size * width)
    if acc.get('normalized'):
        # glTF 2.0, "Animation samplers" / KHR_mesh_quantization: max(c / (2^(n-1) - 1), -1) for signed
        if fmt == 'b':
            out = np.maximum(out / 127.0, -1.0)
        elif fmt == 'h':
            out = np.maximum(out / 32767.0, -1.0)
        elif fmt == 'B':
            out = out / 255.0
        elif fmt == 'H':
            out = out / 65535.0
    return out


def accessor_bytes(gltf, index):
    acc = gltf['accessors'][index]
    return acc['count'] * COMPONENT[acc['componentType']][1] * WIDTH[acc['type']]


def slerp(a, b, t):
    d = float(np.dot(a, b))
    if d < 0:
        b = -b
        d = -d
    d = min(1.0, d)
    theta = np.arccos(d)
    if theta < 1e-12:
        q = a * (1 - t) + b * t
    else:
        q = (np.sin((1 - t) * theta) * a + np.sin(t * theta) * b) / np.sin(theta)
    return q / np.linalg.norm(q)


def evaluate(times, values, interpolation, path, t):
    """Value of one sampler at time t, by the glTF 2.0 specification."""
    n = len(times)
    cubic = interpolation == 'CUBICSPLINE'
    vals = values.reshape(n, 3, -1)[:, 1, :] if cubic else values.reshape(n, -1)
    if t <= times[0] or n == 1:
        v = vals[0].copy()
    elif t >= times[-1]:
        v = vals[-1].copy()
    else:
        k = int(np.searchsorted(times, t, side='right')) - 1
        t0, t1 = times[k], times[k + 1]
        u = (t - t0) / (t1 - t0)
        if interpolation == 'STEP':
            v = vals[k].copy()
        elif interpolation == 'LINEAR':
            if path == 'rotation':
                a = vals[k] / np.linalg.norm(vals[k])
                b = vals[k + 1] / np.linalg.norm(vals[k + 1])
                v = slerp(a, b, u)
            else:
                v = vals[k] * (1 - u) + vals[k + 1] * u
        else:
            trip = values.reshape(n, 3, -1)
            td = t1 - t0
            p0, m0 = trip[k, 1], trip[k, 2] * td
            p1, m1 = trip[k + 1, 1], trip[k + 1, 0] * td
            u2, u3 = u * u, u * u * u
            v = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1
    if path == 'rotation':
        v = v / np.linalg.norm(v)
    return v


def quat_matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def rest_trs(node):
    if 'matrix' in node:
        m = np.array(node['matrix']).reshape(4, 4).T
        return ('matrix', m)
    t = np.array(node.get('translation', [0, 0, 0]), dtype=float)
    r = np.array(node.get('rotation', [0, 0, 0, 1]), dtype=float)
    s = np.array(node.get('scale', [1, 1, 1]), dtype=float)
    return ('trs', (t, r, s))


class Player:
    def __init__(self, path, animation):
        self.gltf, self.buffers = load(path)
        anims = self.gltf.get('animations', [])
        self.anim = anims[animation]
        self.channels = []
        self.keys = 0
        self.bytes = 0
        seen = set()
        for ch in self.anim['channels']:
            target = ch['target']
            if 'node' not in target or target['path'] == 'weights':
                continue
            sampler = self.anim['samplers'][ch['sampler']]
            times = accessor(self.gltf, self.buffers, sampler['input'])[:, 0]
            values = accessor(self.gltf, self.buffers, sampler['output'])
            self.channels.append((target['node'], target['path'], times, values.reshape(-1), sampler.get('interpolation', 'LINEAR')))
            self.keys += len(times)
            for a in (sampler['input'], sampler['output']):
                if a not in seen:
                    seen.add(a)
                    self.bytes += accessor_bytes(self.gltf, a)
        nodes = self.gltf['nodes']
        self.parent = [-1] * len(nodes)
        for i, n in enumerate(nodes):
            for c in n.get('children', []):
                self.parent[c] = i
        self.order = []
        visit = [i for i in range(len(nodes)) if self.parent[i] < 0]
        while visit:
            i = visit.pop(0)
            self.order.append(i)
            visit.extend(nodes[i].get('children', []))

    def key_times(self):
        ts = set()
        for _, _, times, _, _ in self.channels:
            ts.update(float(t) for t in times)
        return sorted(ts)

    def world(self, t, animated=True):
        nodes = self.gltf['nodes']
        local = {}
        for i, n in enumerate(nodes):
            local[i] = rest_trs(n)
        anim = {}
        for node, path, times, values, interp in self.channels if animated else []:
            anim.setdefault(node, {})[path] = evaluate(times, values, interp, path, t)
        worlds = {}
        for i in self.order:
            kind, data = local[i]
            if kind == 'matrix':
                m = data
            else:
                tr, r, s = data
                a = anim.get(i, {})
                tr = a.get('translation', tr)
                r = a.get('rotation', r)
                s = a.get('scale', s)
                m = np.eye(4)
                m[:3, :3] = quat_matrix(r / np.linalg.norm(r)) * s[None, :]
                m[:3, 3] = tr
            p = self.parent[i]
            worlds[i] = worlds[p] @ m if p >= 0 else m
        return worlds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('original')
    ap.add_argument('candidate')
    ap.add_argument('--shell', type=float, required=True)
    ap.add_argument('--rate', type=float, default=None)
    ap.add_argument('--animation', type=int, default=0)
    ap.add_argument('--candidate-animation', type=int, default=None,
                    help="the candidate's animation index when it differs (a writer that drops empty animations)")
    ap.add_argument('--nodes', default='animated', choices=['animated', 'all'])
    ap.add_argument('--shell-units', default='scene', choices=['scene', 'local'])
    args = ap.parse_args()
    a = Player(args.original, args.animation)
    b = Player(args.candidate, args.animation if args.candidate_animation is None else args.candidate_animation)
    times = a.key_times()
    if args.rate:
        t0, t1 = times[0], times[-1]
        n = int(round((t1 - t0) * args.rate)) + 1
        times = [t0 + k / args.rate for k in range(n)]
    animated = sorted({c[0] for c in a.channels})
    if args.nodes == 'animated':
        # the animated nodes and everything below them: what the animation moves
        moved = set(animated)
        for i in a.order:
            if a.parent[i] in moved:
                moved.add(i)
        targets = [i for i in a.order if i in moved]
    else:
        targets = a.order
    rest = a.world(0.0, animated=False)

    def offsets_of(i):
        vs = []
        for axis in range(3):
            size = args.shell
            if args.shell_units == 'scene':
                size /= float(np.linalg.norm(rest[i][:3, axis]))
            for sign in (1, -1):
                v = np.zeros(4)
                v[axis] = sign * size
                v[3] = 1
                vs.append(v)
        return np.array(vs).T

    offsets = {i: offsets_of(i) for i in targets}
    errors = []
    for t in times:
        wa = a.world(t)
        wb = b.world(t)
        for i in targets:
            d = (wa[i] @ offsets[i] - wb[i] @ offsets[i])[:3]
            errors.append(float(np.max(np.linalg.norm(d, axis=0))))
    errors = np.array(errors)
    print(json.dumps({
        'samples': len(times),
        'nodes': len(targets),
        'maxError': float(errors.max()) if len(errors) else 0.0,
        'p99Error': float(np.percentile(errors, 99)) if len(errors) else 0.0,
        'keys': {'original': a.keys, 'candidate': b.keys},
        'samplerBytes': {'original': a.bytes, 'candidate': b.bytes},
        'fileBytes': {'original': os.path.getsize(args.original), 'candidate': os.path.getsize(args.candidate)},
    }))


if __name__ == '__main__':
    sys.exit(main())
