"""Reference .npy/.npz files written by NumPy itself, and what they hold.

Writes test/fixtures/npz/*.npz (numpy.savez and numpy.savez_compressed), a few loose .npy files, and
test/fixtures/npz/expected.json listing every member's dtype, shape and values in C order (floats as
Python reprs, so they round-trip exactly; 64-bit integers as decimal strings). Also two synthetic files in
the AMASS layouts (SMPL-H with `mocap_framerate`, SMPL-X with `mocap_frame_rate` and the split pose
members) with known motion, and SciPy's quaternions and forward kinematics for them. There is no
redistributable AMASS data; these are made up. Run from the repository root:
python3 scripts/fixtures_npz.py
"""
import json
import os

import numpy as np
from scipy.spatial.transform import Rotation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'test', 'fixtures', 'npz')
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(22)


def values(a):
    flat = np.ascontiguousarray(a).reshape(-1)
    if a.dtype.kind in 'US':
        return [x.decode('latin-1') if isinstance(x, bytes) else str(x) for x in flat.tolist()]
    if a.dtype.kind in 'iu' and a.dtype.itemsize == 8:
        return [str(int(x)) for x in flat.tolist()]
    if a.dtype.kind == 'b':
        return [int(x) for x in flat.tolist()]
    if a.dtype.kind == 'f':
        return [repr(float(x)) for x in flat.astype(np.float64).tolist()]
    return [int(x) for x in flat.tolist()]


def describe(arrays):
    return {k: {'dtype': v.dtype.str, 'shape': list(v.shape), 'fortran': bool(np.isfortran(v)),
                'values': values(v)} for k, v in arrays.items()}


# every dtype, byte order and layout the reader promises
arrays = {
    'f8': rng.standard_normal((3, 4)),
    'f4': rng.standard_normal((2, 3, 2)).astype('<f4'),
    'f2': np.array([0.5, -2.0, 65504.0, 6e-8, 1 / 3], dtype='<f2'),
    'f8_big': rng.standard_normal((4, 3)).astype('>f8'),
    'f4_big': rng.standard_normal((5,)).astype('>f4'),
    'i1': np.array([-128, -1, 0, 127], dtype='i1'),
    'u1': np.array([0, 1, 255], dtype='u1'),
    'i2': np.array([[-32768, 7], [300, 32767]], dtype='<i2'),
    'i2_big': np.array([-2, 513, 32767], dtype='>i2'),
    'u2': np.array([0, 65535], dtype='<u2'),
    'i4': np.arange(-6, 6, dtype='<i4').reshape(3, 4),
    'i4_big': np.array([-123456789, 1, 2], dtype='>i4'),
    'u4': np.array([0, 4294967295], dtype='<u4'),
    'i8': np.array([-(2 ** 63), -1, 2 ** 53 + 1, 2 ** 63 - 1], dtype='<i8'),
    'u8': np.array([0, 2 ** 64 - 1], dtype='<u8'),
    'i8_big': np.array([-5, 2 ** 40], dtype='>i8'),
    'bool': np.array([[True, False, True], [False, False, True]]),
    'fortran2': np.asfortranarray(rng.standard_normal((3, 5))),
    'fortran3': np.asfortranarray(np.arange(24, dtype='<f4').reshape(2, 3, 4)),
    'fortran3_big': np.asfortranarray(np.arange(24, dtype='>i4').reshape(4, 3, 2)),
    'scalar_f8': np.array(59.9999885),
    'scalar_i8': np.array(120),
    'unicode': np.array('female'),
    'unicode_wide': np.array(['Zoë', '😀 ok', '', 'ab\u00e9']),
    'bytes': np.array(b'male'),
    'bytes_arr': np.array([b'neutral', b'f', b'']),
    'empty': np.zeros((0, 3)),
}
np.savez(os.path.join(OUT, 'all_savez.npz'), **arrays)
np.savez_compressed(os.path.join(OUT, 'all_savez_compressed.npz'), **arrays)
np.save(os.path.join(OUT, 'fortran_big.npy'), arrays['fortran3_big'])
np.save(os.path.join(OUT, 'unicode_scalar.npy'), arrays['unicode'])
# a header longer than 65535 bytes needs format 2.0: a big structured dtype would, but that is refused;
# write a 2.0 file of a plain array through NumPy's own writer instead
with open(os.path.join(OUT, 'version2.npy'), 'wb') as f:
    np.lib.format.write_array(f, arrays['f8'], version=(2, 0))
with open(os.path.join(OUT, 'version3.npy'), 'wb') as f:
    np.lib.format.write_array(f, arrays['f4'], version=(3, 0))
# refused inputs: pickle, complex, structured
np.save(os.path.join(OUT, 'object.npy'), np.array([{'a': 1}, None], dtype=object), allow_pickle=True)
np.savez(os.path.join(OUT, 'object_member.npz'), ok=np.zeros(2), bad=np.array([1, 'x'], dtype=object))
np.save(os.path.join(OUT, 'complex.npy'), np.array([1 + 2j]))
np.save(os.path.join(OUT, 'structured.npy'), np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]))

expected = {'members': describe(arrays)}


# synthetic AMASS-layout files with known motion
def motion(frames, rate, joints):
    t = np.arange(frames) / rate
    k = np.arange(joints)
    amp = 0.2 + 0.05 * (k % 7)
    freq = 0.5 + 0.25 * (k % 5)
    axes = rng.standard_normal((joints, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    ang = amp[None, :] * np.sin(2 * np.pi * freq[None, :] * t[:, None] + k[None, :])
    return (ang[:, :, None] * axes[None, :, :]).reshape(frames, joints * 3)


def fk(poses, trans, J, parents):
    """SMPL forward kinematics: joint j at R_parent(J_j - J_parent) + x_parent; the root at J_0 + trans."""
    frames = poses.shape[0]
    n = len(parents)
    pos = np.zeros((frames, n, 3))
    glob = [None] * n
    for j in range(n):
        local = Rotation.from_rotvec(poses[:, 3 * j:3 * j + 3])
        if parents[j] < 0:
            glob[j] = local
            pos[:, j] = J[j] + trans
        else:
            p = parents[j]
            glob[j] = glob[p] * local
            pos[:, j] = pos[:, p] + glob[p].apply(J[j] - J[p])
    return pos, np.stack([g.as_quat() for g in glob], axis=1)


SMPLH_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19,
                 20, 22, 23, 20, 25, 26, 20, 28, 29, 20, 31, 32, 20, 34, 35,
                 21, 37, 38, 21, 40, 41, 21, 43, 44, 21, 46, 47, 21, 49, 50]

frames, rate = 48, 120.0
poses = motion(frames, rate, 52)
trans = np.stack([np.linspace(0, 0.5, frames), 0.02 * np.sin(np.arange(frames) / 5), 0.9 + 0 * np.arange(frames)], 1)
J = rng.standard_normal((52, 3)) * 0.1
J[0] = [0.001, -0.21, 0.03]
smplh = {
    'trans': trans, 'gender': np.array('male'), 'mocap_framerate': np.array(rate),
    'betas': rng.standard_normal(16), 'dmpls': rng.standard_normal((frames, 8)), 'poses': poses,
}
np.savez(os.path.join(OUT, 'amass_smplh.npz'), **smplh)
np.savez(os.path.join(OUT, 'template_smplh.npz'), J=J)
with open(os.path.join(OUT, 'template_smplh.json'), 'w') as f:
    json.dump({'J': J.tolist()}, f)
pos, quat = fk(poses, trans, J, SMPLH_PARENTS)
local = Rotation.from_rotvec(poses.reshape(-1, 3)).as_quat().reshape(frames, 52, 4)

SMPLX_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 15, 15, 15,
                 20, 25, 26, 20, 28, 29, 20, 31, 32, 20, 34, 35, 20, 37, 38,
                 21, 40, 41, 21, 43, 44, 21, 46, 47, 21, 49, 50, 21, 52, 53]
xframes, xrate = 30, 59.9999885
xposes = motion(xframes, xrate, 55)
smplx = {
    'gender': np.array(b'female'), 'surface_model_type': np.array('smplx'),
    'mocap_frame_rate': np.array(xrate), 'mocap_time_length': np.array(xframes / xrate),
    'markers_latent': rng.standard_normal((5, 3)), 'trans': rng.standard_normal((xframes, 3)) * 0.1,
    'poses': xposes, 'betas': rng.standard_normal(16), 'num_betas': np.array(16),
    'root_orient': xposes[:, 0:3], 'pose_body': xposes[:, 3:66], 'pose_hand': xposes[:, 75:165],
    'pose_jaw': xposes[:, 66:69], 'pose_eye': xposes[:, 69:75],
}
np.savez_compressed(os.path.join(OUT, 'amass_smplx.npz'), **smplx)
xlocal = Rotation.from_rotvec(xposes.reshape(-1, 3)).as_quat().reshape(xframes, 55, 4)

# a few frames are enough to pin the conventions
pick = [0, 17, frames - 1]
xpick = [0, 11, xframes - 1]
expected['amass'] = {
    'smplh': {'frames': frames, 'rate': rate, 'parents': SMPLH_PARENTS, 'sampleFrames': pick,
              'local': local[pick].reshape(-1).tolist(), 'positions': pos[pick].reshape(-1).tolist(),
              'global': quat[pick].reshape(-1).tolist()},
    'smplx': {'frames': xframes, 'rate': xrate, 'parents': SMPLX_PARENTS, 'sampleFrames': xpick,
              'local': xlocal[xpick].reshape(-1).tolist()},
}
with open(os.path.join(OUT, 'expected.json'), 'w') as f:
    json.dump(expected, f)
print('wrote', sorted(os.listdir(OUT)))
