import type { ReduceSummary } from '../node/reduce-task.js';
import type { TaskResult } from '../node/task.js';
import type { ReduceKeysOptions, ReduceKeysReport } from '../ops/reduce/reduce-keys.js';
import { REDUCE_KEYS_DEFAULTS } from '../ops/reduce/reduce-options.js';
import {
  BATCH_OPTIONS,
  type CliIo,
  COMMON_OPTIONS,
  type Command,
  type NumberRange,
  numberOption,
  OUTPUT_OPTIONS,
  oneOf,
  type Parsed,
  UsageError,
} from './command.js';
import { runFileCommand } from './run.js';
import { bvhOutputOptions } from './shared.js';
import { escapeControl as shown } from './text.js';

/** Lengths in the file's units: positive, and far beyond any capture at the top. */
const LENGTH_RANGE: NumberRange = { min: 0, aboveMin: true, max: 1e9 };
/** Rotation tolerance in degrees. */
const ANGLE_RANGE: NumberRange = { min: 0, aboveMin: true, max: 180, unit: 'degrees' };

/** `a (default) or b`, the default marked where the library's constant says. */
function twoChoices(a: string, b: string, fallback: string): string {
  const mark = (name: string) => (name === fallback ? `${name} (default)` : name);
  return `${mark(a)} or ${mark(b)}`;
}

/**
 * `, 27 rotation tracks at 8-12 bits (mean 10.2)` (`kind` 'rotation') or `, 1 translation track at 14 bits`
 * for variable bit rates, with the float32 tracks counted; nothing without widths.
 */
function bitsText(bits: number[] | undefined, kind: 'rotation' | 'translation'): string {
  const all = (bits ?? []).filter((b) => b > 0);
  // 32: stored as float32, no filter width held the bound
  const used = all.filter((b) => b !== 32);
  const floats = all.length - used.length;
  const why = kind === 'rotation' ? ' (no width held the bound)' : '';
  const floatText = floats > 0 ? `, ${floats} float32${why}` : '';
  if (used.length === 0)
    return floats > 0 ? `, ${floats} ${kind} track${floats === 1 ? '' : 's'} float32` : '';
  const mean = used.reduce((a, b) => a + b, 0) / used.length;
  const [lo, hi] = [Math.min(...used), Math.max(...used)];
  const tracks = used.length === 1 ? `1 ${kind} track` : `${used.length} ${kind} tracks`;
  return lo === hi
    ? `, ${tracks} at ${lo} bits${floatText}`
    : `, ${tracks} at ${lo}-${hi} bits (mean ${mean.toFixed(1)})${floatText}`;
}

/** The library's default rotation tolerance (`REDUCE_KEYS_DEFAULTS.toleranceAngle`, radians) in degrees, as help prints it. */
export function toleranceAngleDegrees(): number {
  return Number(((REDUCE_KEYS_DEFAULTS.toleranceAngle * 180) / Math.PI).toPrecision(3));
}

/** The `reduceKeys` options the command line names; usage errors for combinations that mean nothing. */
export function reduceOptions(parsed: Parsed): ReduceKeysOptions {
  const v = parsed.values;
  const text = (name: string) => v[name] as string | undefined;
  const metric = oneOf(text('metric'), 'metric', ['object', 'local'] as const, REDUCE_KEYS_DEFAULTS.metric);
  if (metric === 'local') {
    for (const name of ['preset', 'shell'])
      if (v[name] !== undefined)
        throw new UsageError(`--${name} belongs to --metric object (virtual vertices), not local`);
  } else if (v['tolerance-angle'] !== undefined)
    throw new UsageError('--tolerance-angle belongs to --metric local; --metric object bounds lengths');
  const interpolation = oneOf(
    text('interpolation'),
    'interpolation',
    ['linear', 'cubicspline'] as const,
    REDUCE_KEYS_DEFAULTS.interpolation,
  );
  const quantization = oneOf(
    text('quantize'),
    'quantize',
    ['none', 'int16', 'variable'] as const,
    REDUCE_KEYS_DEFAULTS.quantization,
  );
  if (quantization !== 'none' && interpolation === 'cubicspline')
    throw new UsageError(
      `--quantize ${quantization} needs --interpolation linear (cubic tangents leave the 16-bit range)`,
    );
  if (quantization === 'variable' && metric !== 'object')
    throw new UsageError('--quantize variable bounds the object metric; drop --metric local');
  if (quantization === 'variable' && v['max-keys'] !== undefined)
    throw new UsageError('--quantize variable keeps every key; --max-keys does not apply');
  const effort = oneOf(text('effort'), 'effort', ['fast', 'best'] as const, REDUCE_KEYS_DEFAULTS.effort);
  const options: ReduceKeysOptions = { metric, interpolation, quantization, effort };
  if (v.preset !== undefined)
    options.preset = oneOf(text('preset'), 'preset', ['acl', 'ozz'] as const, 'acl');
  if (v['units-per-meter'] !== undefined)
    options.unitsPerMeter = numberOption(text('units-per-meter'), '--units-per-meter', LENGTH_RANGE);
  if (v.tolerance !== undefined)
    options.tolerance = numberOption(text('tolerance'), '--tolerance', LENGTH_RANGE);
  if (v.shell !== undefined)
    options.shellDistance =
      text('shell') === 'mesh' ? 'mesh' : numberOption(text('shell'), '--shell', LENGTH_RANGE);
  if (v['tolerance-angle'] !== undefined)
    options.toleranceAngle =
      (numberOption(text('tolerance-angle'), '--tolerance-angle', ANGLE_RANGE) * Math.PI) / 180;
  if (v['max-keys'] !== undefined)
    options.maxKeys = numberOption(text('max-keys'), '--max-keys', { min: 2, max: 1e9, integer: true });
  return options;
}

/** `1234` -> `1.2 kB`. */
function bytesText(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`;
}

/** `; constant tracks: 3 collapsed to one key, 2 dropped (at rest)`, or nothing without one. */
function constantText(p: ReduceKeysReport): string {
  if (p.constantTracks === 0) return '';
  const one = p.constantTracks - p.droppedTracks;
  return `; constant tracks: ${one} as one key, ${p.droppedTracks} dropped (at rest)`;
}

function report(results: TaskResult[], io: CliIo, quiet: boolean): void {
  if (quiet) return;
  for (const r of results) {
    const s = r.data as ReduceSummary | undefined;
    if (!r.ok || s === undefined) continue;
    for (const a of s.animations) {
      const p = a.report;
      const pct = p.keysBefore ? ((100 * p.keysAfter) / p.keysBefore).toFixed(1) : '100';
      const angle =
        p.metric === 'local' ? `, max angle ${((p.maxAngle * 180) / Math.PI).toPrecision(3)} deg` : '';
      io.stderr.write(
        `${shown(r.input)}${a.name ? ` '${shown(a.name)}'` : ''}: ${p.keysBefore} -> ${p.keysAfter} keys (${pct}%) in ${p.tracks} tracks; ${p.metric} error max ${p.maxError.toPrecision(3)}, p99 ${p.p99Error.toPrecision(3)} (tolerance ${p.tolerance.toPrecision(3)} ${s.units})${angle}${p.quantization === 'int16' ? ', 16-bit rotations' : ''}${bitsText(p.rotationBits, 'rotation')}${bitsText(p.translationBits, 'translation')}${constantText(p)}${p.meshShellJoints ? `; mesh shells on ${p.meshShellJoints} joints` : ''}\n`,
      );
    }
    io.stderr.write(`${shown(r.output ?? '-')}: ${bytesText(s.bytes)}\n`);
  }
}

/** `rotsig reduce`: keyframe reduction within an error bound, written as glTF. */
export const reduce: Command = {
  name: 'reduce',
  summary: 'keep the fewest keys within an error bound (object-space or per channel), glTF out',
  usage: 'rotsig reduce <file|dir>... -o <file.glb|dir> [--preset acl] [--tolerance 0.0001 --shell 0.03]',
  description: `
Keeps the fewest keys per track such that a glTF player (slerp/lerp, or Hermite with --interpolation
cubicspline) evaluates every original frame within the tolerance (reduceKeys). --metric object (default)
measures virtual vertices at --shell from every joint, carried through the hierarchy to object space
(ACL's and ozz-animation's metric); --preset acl (3 cm shell, 0.01 cm) and ozz (10 cm, 1 mm) are stated in
metres times --units-per-meter. --metric local bounds each channel: --tolerance-angle in degrees for
rotations, --tolerance for translations. Lengths are in the file's units: metres for glTF (scene units:
through every ancestor's scale, so 0.03 is 3 cm in the scene under an armature scaled 0.01), the BVH's own
(usually centimetres: presets then use --units-per-meter 1/--scale, 100 by default), metres for AMASS.
--quantize int16 stores rotations as normalised 16-bit integers (KHR_mesh_quantization); the bound and the
reported error include the rounding. --quantize variable keeps every key (constant tracks as below) and gives each rotation track
its own bit width (4 to 16) stored with EXT_meshopt_compression's quaternion filter, and each
translation track its own mantissa width (1 to 24) stored with its exponential filter, the widths chosen
together under the bound (implies --meshopt; ACL's variable bit rates in a glTF file any meshopt-capable
player loads); a track that no width holds stays float32 (counted in the printed line), the others are
filtered; the reported error is measured on rotations and translations as the filters decode them. Both store LINEAR and STEP
rotations: an animation with a CUBICSPLINE rotation keeps float rotations, with a warning naming it. --meshopt compresses the glTF buffers with EXT_meshopt_compression
(meshoptimizer; lossless on the stored keys, so the reported error is the file's). --effort best checks
descendants point by point and fits rotation key values within the bound, and where the result measures
well inside the tolerance searches again under wider budgets, keeping the fewest keys that measure within
it: fewer keys, about twice the time (same bound). --shell mesh (glTF) takes each joint's shell from its skinned mesh: the farthest
vertex with any weight on the joint, through the joint's inverse bind matrix, so the bound is on the
rendered vertices; joints no vertex weighs on keep the default shell (0.03, or the preset's). Constant
tracks (every key equal in float32, rotations up to sign) keep one key; one whose key is the node's
rest value is dropped (the node holds it anyway) unless another animation of the file animates the same
node and path. --max-keys N finds the smallest tolerance whose reduction keeps at most N keys in every
track. glTF inputs are written back with everything else kept (meshes, skins, other
animations); each track keeps a subset of its own keys, times and values as stored (LINEAR, STEP and
CUBICSPLINE tracks keep their interpolation; --interpolation cubicspline is for BVH inputs), checked at
every input key time: no key moves in time. BVH inputs become glTF, or BVH at the kept frames when -o
names a .bvh and every track kept the same uniformly spaced frames. Each file's keys, achieved error and
bytes are printed on stderr.`,
  examples: [
    'rotsig reduce Fox.glb -o Fox-reduced.glb --preset acl --quantize int16 --meshopt',
    'rotsig reduce walk.glb -o walk-small.glb --metric object --tolerance 0.0001 --shell 0.03',
    'rotsig reduce take.bvh -o take.glb --preset acl --tolerance 0.02 --quantize variable',
    'rotsig reduce take.bvh -o take.glb --preset ozz',
    'rotsig reduce take.glb -o take-local.glb --metric local --tolerance-angle 0.1',
  ],
  inputs: ['bvh', 'amass', 'gltf'],
  outputs: ['gltf'],
  options: {
    metric: {
      type: 'string',
      value: 'name',
      description: twoChoices('object', 'local', REDUCE_KEYS_DEFAULTS.metric),
    },
    preset: {
      type: 'string',
      value: 'name',
      description: 'acl (3 cm shell, 0.01 cm) or ozz (10 cm, 1 mm), in metres x --units-per-meter',
    },
    'units-per-meter': {
      type: 'string',
      value: 'n',
      description: 'file units per metre, for presets (default 1 for glTF, 1/--scale for BVH)',
    },
    tolerance: {
      type: 'string',
      value: 'length',
      description: `largest object-space (or local translation) error, file units (default ${REDUCE_KEYS_DEFAULTS.tolerance})`,
    },
    shell: {
      type: 'string',
      value: 'length|mesh',
      description: `distance of the virtual vertices from each joint, file units (default ${REDUCE_KEYS_DEFAULTS.shellDistance}); 'mesh': each joint's farthest skinned vertex`,
    },
    'tolerance-angle': {
      type: 'string',
      value: 'deg',
      description: `local metric: largest rotation error in degrees (default ${toleranceAngleDegrees()})`,
    },
    interpolation: {
      type: 'string',
      value: 'mode',
      description: twoChoices('linear', 'cubicspline', REDUCE_KEYS_DEFAULTS.interpolation),
    },
    quantize: {
      type: 'string',
      value: 'mode',
      description: `${REDUCE_KEYS_DEFAULTS.quantization} (default), int16 or variable (per-track bit widths of rotations and translations, meshopt)`,
    },
    effort: {
      type: 'string',
      value: 'level',
      description: `${twoChoices('fast', 'best', REDUCE_KEYS_DEFAULTS.effort)} (best: fewer keys, slower; same bound)`,
    },
    'max-keys': { type: 'string', value: 'n', description: 'at most n keys per track (key budget)' },
    meshopt: {
      type: 'boolean',
      description: 'compress the glTF buffers with EXT_meshopt_compression (lossless on the keys)',
    },
    scale: bvhOutputOptions.scale,
    ...OUTPUT_OPTIONS,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'reduce',
      steps: [],
      emit: {
        kind: 'reduce',
        options: reduceOptions(parsed),
        compression: parsed.values.meshopt === true ? 'meshopt' : 'none',
      },
      outputs: 'file',
      // BVH and .npz inputs become GLB; glTF inputs are written back as they came (.gltf or .glb)
      extension: '.glb',
      keep: ['.gltf', '.glb'],
      report: (results, out) => report(results, out, parsed.values.quiet === true),
    }),
};
