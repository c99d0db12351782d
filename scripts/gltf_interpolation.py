"""Oracle fixtures for keyed-track evaluation: glTF 2.0 STEP, LINEAR and CUBICSPLINE, written from the
specification text alone (glTF 2.0, Appendix C "Animation Sampler Interpolation Modes", and section 3.11
"Animations" for the clamping outside the key range), in plain Python floats, independent of the
TypeScript implementation.

Run from the repository root: python3 scripts/gltf_interpolation.py
Writes test/fixtures/gltf-interpolation.json with full-precision floats (repr round-trips doubles):
random tracks, and the channels of the Khronos interpolation test (read with struct from its .bin, when
../shared/data/gltf is present).

Definitions used (Appendix C): n keys, t_k key times, v_k values; for t_k < t_c < t_{k+1}:
  t_d = t_{k+1} - t_k,  t = (t_c - t_k) / t_d
  STEP:    v_t = v_k
  LINEAR:  v_t = (1 - t) v_k + t v_{k+1}                                   (not rotation)
  SLERP:   a = arccos(|v_k . v_{k+1}|),  s = (v_k . v_{k+1}) / |v_k . v_{k+1}|
           v_t = sin(a (1 - t)) / sin(a) v_k + s sin(a t) / sin(a) v_{k+1}   (rotation, LINEAR)
  CUBIC:   v_t = (2t^3 - 3t^2 + 1) v_k + t_d (t^3 - 2t^2 + t) b_k + (-2t^3 + 3t^2) v_{k+1} + t_d (t^3 - t^2) a_{k+1}
           with a_k, v_k, b_k the in-tangent, value and out-tangent of key k; rotations normalised after.
A requested time equal to a key time takes that key's value as-is; before the first key and after the
last, the value is clamped to the first / last key (section 3.11). Choices the text leaves open, made
here and stated: s = +1 when the dot product is exactly 0 (s is 0/0 there); when a = 0 exactly the slerp
weights are taken as their limit (1 - t, t); CUBICSPLINE rotation results are normalised at key times
and outside the range too (the normalisation requirement applies to every value applied to a node).
"""
import json
import math
import os
import random
import struct

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures')
rng = random.Random(20261123)


def key_value(values, width, interp, k, part=1):
    """Value (part 1), in-tangent (part 0) or out-tangent (part 2) of key k."""
    if interp == 'cubicspline':
        o = (3 * k + part) * width
    else:
        o = k * width
    return values[o:o + width]


def normalize(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def slerp_spec(vk, vk1, t):
    d = sum(a * b for a, b in zip(vk, vk1))
    a = math.acos(min(1.0, abs(d)))
    s = 1.0 if d == 0 else d / abs(d)
    if a == 0:
        return [(1 - t) * x + s * t * y for x, y in zip(vk, vk1)]
    sa = math.sin(a)
    w0 = math.sin(a * (1 - t)) / sa
    w1 = s * math.sin(a * t) / sa
    return [w0 * x + w1 * y for x, y in zip(vk, vk1)]


def evaluate(times, values, width, interp, path, tc):
    n = len(times)
    rotation_cubic = path == 'rotation' and interp == 'cubicspline'

    def finish(v):
        return normalize(v) if rotation_cubic else list(v)

    if tc <= times[0]:
        return finish(key_value(values, width, interp, 0))
    if tc >= times[n - 1]:
        return finish(key_value(values, width, interp, n - 1))
    for k in range(n):
        if times[k] == tc:
            return finish(key_value(values, width, interp, k))
    k = max(i for i in range(n) if times[i] < tc)
    td = times[k + 1] - times[k]
    t = (tc - times[k]) / td
    if interp == 'step':
        return list(key_value(values, width, interp, k))
    if interp == 'linear':
        vk = key_value(values, width, interp, k)
        vk1 = key_value(values, width, interp, k + 1)
        if path == 'rotation':
            return slerp_spec(vk, vk1, t)
        return [(1 - t) * x + t * y for x, y in zip(vk, vk1)]
    vk = key_value(values, width, interp, k, 1)
    bk = key_value(values, width, interp, k, 2)
    vk1 = key_value(values, width, interp, k + 1, 1)
    ak1 = key_value(values, width, interp, k + 1, 0)
    t2 = t * t
    t3 = t2 * t
    h00 = 2 * t3 - 3 * t2 + 1
    h10 = td * (t3 - 2 * t2 + t)
    h01 = -2 * t3 + 3 * t2
    h11 = td * (t3 - t2)
    v = [h00 * p + h10 * m0 + h01 * p1 + h11 * m1 for p, m0, p1, m1 in zip(vk, bk, vk1, ak1)]
    return finish(v)


def random_unit_quat():
    v = [rng.gauss(0, 1) for _ in range(4)]
    return normalize(v)


def random_track(path, interp, n, width, f32):
    t = rng.uniform(-1.0, 2.0)
    times = [t]
    for _ in range(n - 1):
        # non-uniform spacing over two orders of magnitude
        t += 10 ** rng.uniform(-2.5, -0.3)
        times.append(t)
    values = []
    per_key = 3 if interp == 'cubicspline' else 1
    prev = random_unit_quat()
    for _ in range(n):
        for part in range(per_key):
            if path == 'rotation':
                if per_key == 1 or part == 1:
                    # a random walk on the sphere with random sign flips, so the shortest path matters
                    step = [x + 0.6 * rng.gauss(0, 1) for x in prev]
                    q = normalize(step)
                    prev = q
                    sign = -1.0 if rng.random() < 0.4 else 1.0
                    values.extend(sign * x for x in q)
                else:
                    values.extend(0.8 * rng.gauss(0, 1) for _ in range(4))
            elif path == 'scale':
                values.extend(rng.uniform(0.2, 3.0) for _ in range(width))
            else:
                values.extend(rng.uniform(-5.0, 5.0) for _ in range(width))
    if f32:
        times = [float(x) for x in np.asarray(times, dtype=np.float32)]
        values = [float(x) for x in np.asarray(values, dtype=np.float32)]
        # float32 rounding can merge two close times; spread them again
        for i in range(1, len(times)):
            if times[i] <= times[i - 1]:
                times[i] = float(np.nextafter(np.float32(times[i - 1]), np.float32(np.inf)))
    return times, values


def queries_for(times):
    n = len(times)
    qs = list(times)  # every key time exactly
    qs += [times[0] - 0.5, times[0] - 1e-9, times[-1] + 1e-9, times[-1] + 0.75]
    for k in range(n - 1):
        a, b = times[k], times[k + 1]
        qs += [0.5 * (a + b), a + 0.1 * (b - a), a + 0.97 * (b - a)]
    lo, hi = times[0] - 0.2, times[-1] + 0.2
    qs += [rng.uniform(lo, hi) for _ in range(6)]
    return qs


def cases():
    out = []
    widths = {'translation': 3, 'rotation': 4, 'scale': 3, 'weights': None}
    for path in ['translation', 'rotation', 'scale', 'weights']:
        for interp in ['step', 'linear', 'cubicspline']:
            for n in [1, 2, 3, 7, 20]:
                if interp == 'cubicspline' and n < 2:
                    continue
                for f32 in [False, True]:
                    width = widths[path] or rng.randint(1, 5)
                    times, values = random_track(path, interp, n, width, f32)
                    qs = queries_for(times)
                    expected = []
                    for q in qs:
                        expected.extend(evaluate(times, values, width, interp, path, q))
                    out.append({
                        'path': path,
                        'interpolation': interp,
                        'width': width,
                        'float32': f32,
                        'times': times,
                        'values': values,
                        'queries': qs,
                        'expected': expected,
                    })
    return out


SAMPLE = os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'data', 'gltf', 'khronos-samples',
                      'interpolation_test.gltf')
COMPONENTS = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4}


def read_float_accessor(doc, binary, index):
    """A FLOAT (5126) accessor as a flat list, read with struct from the .bin (no glTF library)."""
    acc = doc['accessors'][index]
    assert acc['componentType'] == 5126 and 'sparse' not in acc
    view = doc['bufferViews'][acc['bufferView']]
    width = COMPONENTS[acc['type']]
    stride = view.get('byteStride', 4 * width)
    base = view.get('byteOffset', 0) + acc.get('byteOffset', 0)
    out = []
    for i in range(acc['count']):
        out.extend(struct.unpack_from(f'<{width}f', binary, base + i * stride))
    return out, width


def sample_file_cases():
    """The Khronos interpolation test: every animation's one channel, evaluated at its keys, between
    them and outside the range (the model is CC-BY 4.0, see the data README; only its numbers go in)."""
    if not os.path.exists(SAMPLE):
        print(f'skipping {SAMPLE}: not found')
        return []
    with open(SAMPLE) as f:
        doc = json.load(f)
    with open(os.path.join(os.path.dirname(SAMPLE), doc['buffers'][0]['uri']), 'rb') as f:
        binary = f.read()
    out = []
    for anim in doc['animations']:
        for channel in anim['channels']:
            sampler = anim['samplers'][channel['sampler']]
            times, _ = read_float_accessor(doc, binary, sampler['input'])
            values, width = read_float_accessor(doc, binary, sampler['output'])
            interp = sampler.get('interpolation', 'LINEAR').lower()
            path = channel['target']['path']
            qs = queries_for(times)
            expected = []
            for q in qs:
                expected.extend(evaluate(times, values, width, interp, path, q))
            out.append({
                'animation': anim.get('name'),
                'node': channel['target']['node'],
                'input': sampler['input'],
                'output': sampler['output'],
                'path': path,
                'interpolation': interp,
                'width': width,
                'float32': True,
                'times': times,
                'values': values,
                'queries': qs,
                'expected': expected,
            })
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    data = {
        'source': 'glTF 2.0 Appendix C, evaluated by scripts/gltf_interpolation.py',
        'cases': cases(),
        'interpolationTest': sample_file_cases(),
    }
    path = os.path.join(OUT, 'gltf-interpolation.json')
    with open(path, 'w') as f:
        json.dump(data, f, separators=(',', ':'))
    print(f'wrote {path}: {len(data["cases"])} tracks')


if __name__ == '__main__':
    main()
