// The writer's checks of a clip's tracks before anything is written: what its reader rejects (joints out
// of range, unknown paths, widths, times not increasing in float32, values not finite) is refused, named.
import type { KeyedClip, Track } from '../../series/clip.js';
import { GltfError } from './errors.js';

/** Checks every track before anything is written: the writer never emits what its reader rejects. */
export function checkTracks(clip: KeyedClip, c: number): void {
  const J = clip.skeleton?.names?.length;
  if (!Array.isArray(clip.tracks) || J === undefined)
    throw new GltfError('is not a KeyedClip (tracks, skeleton)', { animation: c }, 'gltf-write');
  clip.tracks.forEach((t, k) => {
    const where = { animation: c, channel: k };
    if (!Number.isInteger(t.joint) || t.joint < 0 || t.joint >= J)
      throw new GltfError(
        `track joint ${t.joint} is not a joint of the skeleton (${J})`,
        where,
        'gltf-write',
      );
    const width = t.path === 'rotation' ? 4 : t.path === 'weights' ? t.width : 3;
    if (
      !(t.path === 'translation' || t.path === 'rotation' || t.path === 'scale' || t.path === 'weights') ||
      t.width !== width ||
      !(width >= 1)
    )
      throw new GltfError(
        `track path '${t.path}' with width ${t.width} cannot be written`,
        where,
        'gltf-write',
      );
    const n = t.times.length;
    if (n === 0) throw new GltfError('track has no keys', where, 'gltf-write');
    const perKey = t.interpolation === 'cubicspline' ? 3 : 1;
    if (t.interpolation !== 'step' && t.interpolation !== 'linear' && t.interpolation !== 'cubicspline')
      throw new GltfError(`unknown interpolation '${t.interpolation}'`, where, 'gltf-write');
    if (t.values.length !== n * perKey * width)
      throw new GltfError(
        `track has ${t.values.length} values for ${n} keys of width ${width}${perKey === 3 ? ' x 3' : ''}`,
        where,
        'gltf-write',
      );
    let previous = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = Math.fround(t.times[i]);
      if (!Number.isFinite(x) || !(x > previous))
        throw new GltfError(
          `key time ${t.times[i]} is not finite and after the previous key in float32`,
          { ...where, key: i },
          'gltf-write',
        );
      previous = x;
    }
  });
}

/** Checks that every value of the tracks not in `untouched` is finite in float32 (after {@link checkTracks}). */
export function checkValues(clip: KeyedClip, c: number, untouched: Set<Track>): void {
  clip.tracks.forEach((t, k) => {
    if (untouched.has(t)) return;
    const v = t.values;
    for (let i = 0; i < v.length; i++)
      if (!Number.isFinite(Math.fround(v[i])))
        throw new GltfError(
          `value ${v[i]} is not finite in float32`,
          {
            animation: c,
            channel: k,
            key: Math.floor(i / (t.width * (t.interpolation === 'cubicspline' ? 3 : 1))),
          },
          'gltf-write',
        );
  });
}
