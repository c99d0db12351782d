// Options of keyframe reduction: the public option and report types, their defaults and presets, and the
// resolver every reduction starts from.
import { OptionError } from '../../errors.js';
import {
  anyOf,
  customRule,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  orNull,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { KeyedClip } from '../../series/clip.js';

/** How reduction error is measured. */
export type ReduceMetric = 'local' | 'object';

/** Search effort of {@link reduceKeys}: `'fast'` or `'best'` (fewer keys, slower). */
export type ReduceEffort = 'fast' | 'best';

/** Named settings from the game-engine references, in metres (scaled by `unitsPerMeter`). */
export type ReducePreset = 'acl' | 'ozz';

/** A joint's translation, rotation or scale track, by joint index in the clip's skeleton. */
export interface ReduceTrackTarget {
  joint: number;
  path: 'translation' | 'rotation' | 'scale';
}

/** Options of {@link reduceKeys}. */
export interface ReduceKeysOptions {
  /**
   * `'object'` (default): virtual vertices at `shellDistance` from every joint, carried through the
   * hierarchy to object space (ACL's and ozz's notion); `'local'`: each channel on its own (rotation angle,
   * translation distance, relative scale; gltfpack's and glTF-Transform's notion).
   */
  metric?: ReduceMetric;
  /**
   * Sets `shellDistance` and `tolerance` for the `'object'` metric: `'acl'` = 3 cm shell, 0.01 cm;
   * `'ozz'` = 10 cm shell, 1 mm; both in metres times `unitsPerMeter`. Explicit values win.
   */
  preset?: ReducePreset;
  /** Clip units per metre, for presets: 1 for glTF (metres), 100 for most BVH files (centimetres). Default 1. */
  unitsPerMeter?: number;
  /**
   * Largest object-space error, in scene units (`'object'`: world positions through every ancestor,
   * whatever their scale), or translation error (`'local'`). Default: the preset's, else 1e-4.
   */
  tolerance?: number;
  /**
   * Distance of the virtual vertices from each joint, in scene units: at each joint's rest world scale, so
   * under an armature scaled 0.01 (joints in centimetres) 0.03 is still 3 cm in the scene. Default: the
   * preset's, else 0.03. `'mesh'`: each joint's own distance from `meshShells` (the skinned mesh's
   * farthest vertex weighted to it), the preset's or 0.03 for joints without one.
   */
  shellDistance?: number | 'mesh';
  /**
   * With `shellDistance: 'mesh'`: per joint of the clip, the shell in the joint's own (local) units, such
   * as `skinShells` computes from a glTF skin (the farthest vertex with a weight on the joint, through its
   * inverse bind matrix); a negative number (skinShells' -1), NaN or a missing entry where the joint has none: it takes the default shell.
   */
  meshShells?: ArrayLike<number> | null;
  /**
   * Constant tracks (every key equal, rotations up to sign) whose one key is the joint's rest value are
   * dropped: the node holds its rest pose without them. These tracks keep their one key even then (for
   * instance those another animation of the same file animates: a player may hold that animation's last
   * value where this one has no channel). `'all'`: drop none. Default: none listed.
   */
  keepAtRest?: readonly ReduceTrackTarget[] | 'all';
  /** `'local'` metric: largest rotation error in radians. Default 1e-3 (0.057°). */
  toleranceAngle?: number;
  /** `'local'` metric: largest relative scale error. Default 1e-4. */
  toleranceScale?: number;
  /** What the player evaluates between the kept keys: `'linear'` (slerp/lerp; default) or `'cubicspline'`. */
  interpolation?: 'linear' | 'cubicspline';
  /**
   * Rotation key values as stored: `'none'` (float), `'int16'` (normalised SHORT, `KHR_mesh_quantization`)
   * or `'variable'` (every key kept, each rotation track at its own bit width, 4 to 16, for
   * `EXT_meshopt_compression`'s quaternion filter: ACL's variable bit rates in glTF; `'object'` metric,
   * linear player). The bound includes the rounding.
   */
  quantization?: ReduceQuantization;
  /**
   * `quantization: 'variable'`: the factor a writer multiplies translations by (the `scale` of
   * `writeClipsToDocument`, as `rotsig reduce` writes a BVH clip in metres). The exponential filter codes
   * encode the translations as stored (times this factor) and the clip's translation values are their
   * decoded values divided by it, so a writer at this scale stores exactly what the codes decode to.
   * Default 1.
   */
  translationScale?: number;
  /**
   * How hard the `'object'` search works: `'fast'` (default) keeps key values at the original samples and
   * bounds descendants by the hierarchical radius; `'best'` also checks the descendants' points where the
   * radius bound fails and fits rotation key values within the bound (linear player,
   * clips without scale), and where the first search measures more than 5% under the tolerance it also
   * searches under wider budgets (1.25x to 4x) and keeps the fewest keys that measure within it: fewer
   * keys (10 to 14% on the CMU captures at 0.01 cm; 5 instead of 9 on rigged_simple at 3e-5 m), about
   * twice the time (more where the ladder runs).
   */
  effort?: ReduceEffort;
  /**
   * Key budget: at most this many keys per track. The smallest tolerance (to 0.1%) whose reduction fits
   * is found by bisection; `tolerance` is then the upper end of the search. Default: no budget.
   */
  maxKeys?: number;
}

/**
 * Defaults of {@link ReduceKeysOptions} (frozen). `tolerance` and `shellDistance` follow the preset when
 * one is set and they are left out.
 */
export const REDUCE_KEYS_DEFAULTS: Readonly<
  Required<Omit<ReduceKeysOptions, 'preset' | 'maxKeys' | 'meshShells' | 'keepAtRest'>> & {
    preset: ReducePreset | null;
    maxKeys: number;
    meshShells: ArrayLike<number> | null;
    keepAtRest: readonly ReduceTrackTarget[] | 'all';
  }
> = frozenDefaults({
  metric: 'object',
  preset: null,
  unitsPerMeter: 1,
  tolerance: 1e-4,
  shellDistance: 0.03,
  toleranceAngle: 1e-3,
  toleranceScale: 1e-4,
  interpolation: 'linear',
  quantization: 'none',
  translationScale: 1,
  effort: 'fast',
  maxKeys: Number.POSITIVE_INFINITY,
  meshShells: null,
  keepAtRest: Object.freeze([]) as readonly ReduceTrackTarget[],
});

const REDUCE_KEYS_SPEC: OptionSpec = {
  metric: oneOf(['local', 'object']),
  preset: orNull(oneOf(['acl', 'ozz'])),
  unitsPerMeter: POSITIVE_NUMBER,
  tolerance: POSITIVE_NUMBER,
  shellDistance: anyOf(oneOf(['mesh']), POSITIVE_NUMBER),
  toleranceAngle: POSITIVE_NUMBER,
  toleranceScale: POSITIVE_NUMBER,
  interpolation: oneOf(['linear', 'cubicspline']),
  quantization: oneOf(['none', 'int16', 'variable']),
  translationScale: POSITIVE_NUMBER,
  effort: oneOf(['fast', 'best']),
  meshShells: customRule(
    'null or an array of numbers',
    (v) => v === null || (typeof v === 'object' && typeof (v as ArrayLike<number>).length === 'number'),
  ),
  keepAtRest: customRule("'all' or a list of { joint, path }", (v) => v === 'all' || Array.isArray(v)),
  maxKeys: customRule(
    'an integer >= 2 or Infinity',
    (v) => v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && (v as number) >= 2),
  ),
};

const PRESETS: Record<ReducePreset, { shell: number; tolerance: number }> = {
  acl: { shell: 0.03, tolerance: 0.0001 },
  ozz: { shell: 0.1, tolerance: 0.001 },
};

/** What {@link reduceKeys} achieved. */
export interface ReduceKeysReport {
  metric: ReduceMetric;
  /** The tolerance the reduction held (after presets, units and the key budget's search). */
  tolerance: number;
  shellDistance: number;
  /** Keys before (frames per animated track, summed) and after. */
  keysBefore: number;
  keysAfter: number;
  tracks: number;
  /**
   * Largest error over every joint and original frame: for `'object'`, the largest displacement of a
   * virtual vertex (six per joint, ± each local axis, `shellDistance` from the joint in scene units at its
   * rest world scale); for `'local'`, the largest
   * translation error. Never above `tolerance`.
   */
  maxError: number;
  /** 99th percentile of the per-joint, per-frame errors `maxError` is the maximum of. */
  p99Error: number;
  /** `'local'` metric: largest rotation error (radians) and relative scale error. */
  maxAngle: number;
  maxScaleError: number;
  quantization: ReduceQuantization;
  /**
   * `quantization: 'variable'`: per joint, the bit width of its rotation track (4 to 16 under the
   * quaternion filter; 32 where no width held the bound and the track is stored as float32 without a
   * filter; 0 where the joint has no stored rotation track). Absent otherwise.
   */
  rotationBits?: number[];
  /**
   * `quantization: 'variable'`: the rotation tracks stored as float32 because no filter width held the
   * bound (rotations at 32 in `rotationBits`). Absent otherwise.
   */
  floatTracks?: number;
  /**
   * `quantization: 'variable'`: per joint, the mantissa width of its translation track under the
   * exponential filter (1 to 24 bits); 32 where the track is stored as float32 (no width held the bound,
   * a one-key constant track, or a CUBICSPLINE track); 0 where the joint has no stored translation track.
   * Absent otherwise.
   */
  translationBits?: number[];
  /**
   * Tracks whose keys were all equal (within float32; rotations up to sign), each now one key or none:
   * `constantTracks` of them in all, `droppedTracks` of those dropped because the one key was the joint's
   * rest value (the node holds it without a track).
   */
  constantTracks: number;
  droppedTracks: number;
  /** Joints whose shell came from `meshShells` (`shellDistance: 'mesh'`); 0 otherwise. */
  meshShellJoints: number;
}

/** Result of {@link reduceKeys}: the keyed clip and its report. */
export interface ReduceKeysResult {
  clip: KeyedClip;
  report: ReduceKeysReport;
  /**
   * `quantization: 'variable'`: per rotation track, its joint, bit width and the quaternion filter's
   * input (four 16-bit codes per key, key-major) that decodes to the track's values; for a writer with
   * `EXT_meshopt_compression` (`setQuaternionFilterCodes`). Absent otherwise.
   */
  rotationCodes?: { joint: number; bits: number; codes: Int16Array }[];
  /**
   * `quantization: 'variable'`: per translation track stored with the exponential filter, its joint,
   * mantissa width and the filter's input (three 32-bit codes per key, key-major: mantissa in the low 24
   * bits, exponent in the high 8) that decodes to the track's values times `translationScale`, bit for
   * bit in float32; for a writer with `EXT_meshopt_compression` (`setExponentialFilterCodes`). Absent
   * otherwise.
   */
  translationCodes?: { joint: number; bits: number; codes: Uint32Array }[];
}

/** How rotation keys are stored: float, normalised 16-bit, or per-track bit widths (quaternion filter). */
export type ReduceQuantization = 'none' | 'int16' | 'variable';

export interface Resolved {
  metric: ReduceMetric;
  tolerance: number;
  shell: number;
  toleranceAngle: number;
  toleranceScale: number;
  interpolation: 'linear' | 'cubicspline';
  quantization: ReduceQuantization;
  /** `translationScale`: what a writer multiplies translations by (variable bit rates encode them so). */
  translationScale: number;
  effort: ReduceEffort;
  maxKeys: number;
  /** Per joint, the shell in local units from `meshShells` (NaN: the default shell); null without `'mesh'`. */
  meshShells: Float64Array | null;
  /** `joint·3 + component` (0 translation, 1 rotation, 2 scale) of the tracks that keep a key at rest; null: all. */
  keepAtRest: Set<number> | null;
  /**
   * Internal to variable bit rates: per `joint·3 + component`, 1 where the track's keys are stored as they
   * are (float32, or already decoded from a filter) although `quantization` is `'int16'`, so neither the
   * measurement nor the written track rounds them to 16 bits. Absent or null: none.
   */
  storedAsIs?: Uint8Array | null;
}

function positiveFinite(v: unknown, name: string): number {
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) {
    throw new OptionError(`reduceKeys: ${name} must be a positive finite number, got ${String(v)}`);
  }
  return v;
}

export function resolve(options: ReduceKeysOptions): Resolved {
  const o = resolveOptions('reduceKeys', options, REDUCE_KEYS_DEFAULTS, REDUCE_KEYS_SPEC);
  const upm = positiveFinite(o.unitsPerMeter, 'unitsPerMeter');
  let tolerance = o.tolerance;
  let shell = o.shellDistance;
  const mesh = o.shellDistance === 'mesh';
  if (mesh) shell = REDUCE_KEYS_DEFAULTS.shellDistance as number;
  if (o.preset !== null && o.preset !== undefined) {
    const preset = PRESETS[o.preset];
    if (preset === undefined)
      throw new OptionError(`reduceKeys: preset must be 'acl' or 'ozz', got '${String(o.preset)}'`);
    // left out (or undefined), they follow the preset; with mesh shells the preset's is the fallback
    if (options?.tolerance === undefined) tolerance = preset.tolerance * upm;
    if (options?.shellDistance === undefined || mesh) shell = preset.shell * upm;
  }
  positiveFinite(tolerance, 'tolerance');
  positiveFinite(shell, 'shellDistance');
  positiveFinite(o.toleranceAngle, 'toleranceAngle');
  positiveFinite(o.toleranceScale, 'toleranceScale');
  if (o.interpolation !== 'linear' && o.interpolation !== 'cubicspline') {
    throw new OptionError(
      `reduceKeys: interpolation must be 'linear' or 'cubicspline', got '${String(o.interpolation)}'`,
    );
  }
  if (o.quantization !== 'none' && o.quantization !== 'int16' && o.quantization !== 'variable') {
    throw new OptionError(
      `reduceKeys: quantization must be 'none', 'int16' or 'variable', got '${String(o.quantization)}'`,
    );
  }
  if (o.quantization !== 'none' && o.interpolation === 'cubicspline') {
    throw new OptionError(
      `reduceKeys: quantization '${o.quantization}' needs interpolation 'linear' (cubic tangents leave the normalised range)`,
    );
  }
  if (o.quantization === 'variable' && o.metric !== 'object')
    throw new OptionError(
      "reduceKeys: quantization 'variable' bounds the 'object' metric; use metric 'object'",
    );
  if (o.quantization === 'variable' && o.maxKeys !== Number.POSITIVE_INFINITY)
    throw new OptionError("reduceKeys: quantization 'variable' keeps every key; maxKeys does not apply");
  if (o.effort !== 'fast' && o.effort !== 'best') {
    throw new OptionError(`reduceKeys: effort must be 'fast' or 'best', got '${String(o.effort)}'`);
  }
  const maxKeys = o.maxKeys;
  if (!(maxKeys === Number.POSITIVE_INFINITY || (Number.isInteger(maxKeys) && maxKeys >= 2))) {
    throw new OptionError(`reduceKeys: maxKeys must be an integer of at least 2, got ${String(maxKeys)}`);
  }
  return {
    metric: o.metric,
    tolerance,
    shell: shell as number,
    toleranceAngle: o.toleranceAngle,
    toleranceScale: o.toleranceScale,
    interpolation: o.interpolation,
    quantization: o.quantization,
    translationScale: positiveFinite(o.translationScale, 'translationScale'),
    effort: o.effort,
    maxKeys,
    meshShells: mesh ? meshShellsOf(o.meshShells) : null,
    keepAtRest: keptAtRest(o.keepAtRest),
  };
}

function meshShellsOf(shells: ArrayLike<number> | null | undefined): Float64Array {
  if (
    shells === null ||
    shells === undefined ||
    typeof shells !== 'object' ||
    typeof shells.length !== 'number'
  )
    throw new OptionError(
      "reduceKeys: shellDistance 'mesh' needs meshShells, the shell of each joint (skinShells of a glTF clip)",
    );
  const out = Float64Array.from(shells);
  for (let j = 0; j < out.length; j++) {
    // a negative entry (skinShells' -1) or NaN: no vertex weighs on the joint, the default shell (NaN here)
    if (Number.isNaN(out[j]) || out[j] < 0) out[j] = Number.NaN;
    else if (!Number.isFinite(out[j]))
      throw new OptionError(`reduceKeys: meshShells[${j}] must be a finite distance, got ${String(out[j])}`);
  }
  return out;
}

const COMPONENT_OF: Record<string, number> = { translation: 0, rotation: 1, scale: 2 };

function keptAtRest(keep: readonly ReduceTrackTarget[] | 'all'): Set<number> | null {
  if (keep === 'all') return null;
  if (!Array.isArray(keep))
    throw new OptionError("reduceKeys: keepAtRest must be a list of { joint, path } or 'all'");
  const out = new Set<number>();
  for (const t of keep as readonly ReduceTrackTarget[]) {
    const c = COMPONENT_OF[t?.path];
    if (c === undefined || !Number.isInteger(t.joint) || t.joint < 0)
      throw new OptionError(
        `reduceKeys: keepAtRest entries are { joint: index, path: 'translation' | 'rotation' | 'scale' }, got ${JSON.stringify(t)}`,
      );
    out.add(t.joint * 3 + c);
  }
  return out;
}

/** The tolerances for a bisection step: `'object'` scales `tolerance`, `'local'` all three by `s`. */
export function scaled(o: Resolved, s: number): Partial<Resolved> {
  if (o.metric === 'object') return { tolerance: s };
  return {
    tolerance: o.tolerance * s,
    toleranceAngle: o.toleranceAngle * s,
    toleranceScale: o.toleranceScale * s,
  };
}
