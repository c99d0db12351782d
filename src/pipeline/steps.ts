// Pipeline steps and outputs of file tasks, as plain data (so tasks can be posted to worker threads),
// each mapped to one library call.
import { InvalidValueError, OptionError } from '../errors.js';
import { writeBvhChunks } from '../io/bvh/write.js';
import { writeNpy } from '../io/npy.js';
import { writeNpz } from '../io/npz.js';
import { type AnalyzeClipOptions, analyzeClip } from '../ops/analysis/analyze-clip.js';
import type { LoopMode } from '../ops/analysis/loop.js';
import { SEGMENT_POLICIES, type SegmentPolicy } from '../ops/analysis/segments.js';
import { filterClip } from '../ops/filter/filter-clip.js';
import { SMOOTH_DEFAULTS, type WidthUnit } from '../ops/filter/smooth-defaults.js';
import {
  catmullRom,
  cubic6,
  gaussian,
  type Kernel,
  lanczos,
  scaleKernel,
  tent,
  unsharp,
} from '../ops/kernel/kernels.js';
import type { RotationSpace } from '../ops/kernel/rotation-blend.js';
import type { Boundary } from '../ops/kernel/tap-window.js';
import { subclip } from '../ops/keys/subclip.js';
import { dampClip } from '../ops/live/damp-clip.js';
import { oneEuroClip } from '../ops/live/one-euro-clip.js';
import type { ClipDirection } from '../ops/live/run-clip.js';
import { lengthUnitName } from '../ops/ml/clip-defaults.js';
import { motionFeatures } from '../ops/ml/motion-features.js';
import type { ReduceKeysOptions } from '../ops/reduce/reduce-keys.js';
import { downsampleOptimal, type PlaybackKernel } from '../ops/resample/downsample-optimal.js';
import { clipSourceRate, resampleClip } from '../ops/resample/resample-clip.js';
import { RESAMPLE_SPEC } from '../ops/resample/resample-plan.js';
import type { ResampleKernelName } from '../ops/resample/resample-rotations.js';
import type { DurationPolicy } from '../ops/resample/time-grid.js';
import {
  type ClipArrays,
  type RotationRepresentation,
  SIXD_COMPONENTS,
  type SixDLayout,
  toArrays,
} from '../ops/skeleton/arrays.js';
import { clipSpectrum } from '../ops/spectrum/clip-spectrum.js';
import { unrollClip } from '../ops/unroll/unroll-clip.js';
import { clipVelocities } from '../ops/velocity/clip-velocities.js';
import {
  BOOLEAN_OPTION,
  FUNCTION_OPTION,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../options.js';
import type { Clip } from '../series/clip.js';
import { CLIP_WRITERS, type EmittedContent } from './clip-writers.js';
import { type FrameTable, frameTableCsv, frameTableJson, frameTableNpz } from './formats.js';
import { closeLoop, concatFrames, firstFrames, openLoop, planLoop } from './loop.js';
import { renderSpectrumSvg } from './spectrum-svg.js';
import { splineResampleClip } from './spline-resample.js';

/**
 * A smoothing kernel by name and parameters (plain data, so it crosses threads). `sigma` is in `unit`
 * (absent: `'frames'`, the unit of `kernels.gaussian`); the command line and the studio always say
 * `'seconds'` unless frames are asked for. `width` widens a compact kernel by that factor (`scaleKernel`;
 * default 1, the kernel as it is): those kernels are defined on frames.
 */
export type KernelSpec =
  | { name: 'gaussian'; sigma: number; unit?: WidthUnit }
  | { name: 'unsharp'; sigma: number; amount: number; unit?: WidthUnit }
  | { name: 'tent' | 'catmull-rom' | 'cubic6' | 'lanczos2'; width?: number };

/**
 * The kernel a {@link KernelSpec} names, for a clip at `rate` Hz (needed when the width is in seconds:
 * sigma in frames = sigma in seconds x rate).
 *
 * @throws {OptionError} when the width is in seconds and `rate` is not a positive finite number.
 * @example
 * kernelFromSpec({ name: 'gaussian', sigma: 2 }); // kernels.gaussian(2)
 * kernelFromSpec({ name: 'gaussian', sigma: 1 / 60, unit: 'seconds' }, 24); // kernels.gaussian(0.4)
 */
export function kernelFromSpec(spec: KernelSpec, rate?: number): Kernel {
  switch (spec.name) {
    case 'gaussian':
      return gaussian(sigmaFrames(spec, rate));
    case 'unsharp':
      return unsharp(gaussian(sigmaFrames(spec, rate)), spec.amount);
    case 'tent':
      return widened(tent, spec.width);
    case 'catmull-rom':
      return widened(catmullRom, spec.width);
    case 'cubic6':
      return widened(cubic6, spec.width);
    case 'lanczos2':
      return widened(lanczos(2), spec.width);
  }
}

/** A gaussian or unsharp spec's sigma in frames at `rate` Hz. */
function sigmaFrames(spec: { sigma: number; unit?: WidthUnit }, rate: number | undefined): number {
  const unit = spec.unit ?? 'frames';
  if (unit === 'frames') return spec.sigma;
  if (unit !== 'seconds')
    throw new OptionError(`kernelFromSpec: unit must be 'frames' or 'seconds', got ${String(unit)}`);
  if (!(rate !== undefined && rate > 0 && Number.isFinite(rate)))
    throw new OptionError(
      `kernelFromSpec: a sigma of ${spec.sigma} s needs the clip's rate in Hz, got ${String(rate)}`,
    );
  return spec.sigma * rate;
}

export { SMOOTH_DEFAULTS, type WidthUnit };

function widened(kernel: Kernel, width: number | undefined): Kernel {
  return width === undefined || width === 1 ? kernel : scaleKernel(kernel, width);
}

/** A streaming filter by name and parameters (plain data): the One Euro filter or a damper. */
export type LiveFilterSpec =
  | { name: 'one-euro'; minCutoff: number; beta: number; dCutoff: number }
  | { name: 'damper'; halfLife: number };

/** One processing step of a pipeline, applied to the whole clip. */
export type ClipStep =
  | { op: 'unroll' }
  /**
   * Frames `[start, end)` (0-based; `end` null: to the last), by `subclip` on their times; `rebase`: the
   * result starts at 0 s.
   */
  | { op: 'subclip'; start: number; end: number | null; rebase?: boolean }
  | {
      op: 'smooth';
      kernel: KernelSpec;
      space?: RotationSpace;
      /** Default `'wrap'` on a loop (see `loop`), else `filterClip`'s (`'linear'`). */
      boundary?: Boundary;
      joints?: string[];
      /** Default `'jumps'`, or `'none'` where the step wraps (a split never overrides the boundary). */
      segments?: SegmentPolicy;
      /**
       * `'auto'` (default): a clip whose last pose repeats its first (`detectLoop`) is smoothed round the
       * seam (`boundary: 'wrap'` on one period, the repeated pose kept equal to the first); `'on'`: always
       * wrap; `'off'`: never by default. An explicit `boundary` always holds.
       */
      loop?: LoopMode;
    }
  | {
      /** A streaming filter run over the clip (`oneEuroClip` or `dampClip`). */
      op: 'live';
      filter: LiveFilterSpec;
      direction?: ClipDirection;
      joints?: string[];
    }
  | {
      op: 'resample';
      rate: number;
      kernel?: ResampleKernelName;
      space?: RotationSpace;
      /** Default `'wrap'` on a loop (see `loop`), else `resampleClip`'s (`'clamp'`). */
      boundary?: Boundary;
      antialias?: boolean;
      /** Default `'loop'` on a loop, else `'floor'`. */
      duration?: DurationPolicy;
      /** Default `'jumps'`, or `'none'` where the step wraps (a split never overrides the boundary). */
      segments?: SegmentPolicy;
      /**
       * `'auto'` (default): a clip whose last pose repeats its first (`detectLoop`) is resampled as a loop:
       * one period with `boundary: 'wrap'` and `duration: 'loop'` (the rate adjusted to fit the period
       * when the requested one does not; `RunStepsOptions.loopGrid: 'exact'` keeps it), closed with its
       * first pose, so the output ends at the input's end time with a seam of 0. `'on'`: always wrap; `'off'`: never by default. An explicit `boundary`
       * or `duration` holds (a duration other than `'loop'` turns the loop handling off). Not with `optimal`.
       */
      loop?: LoopMode;
      /** Rotation keys from `downsampleOptimal` for this playback instead of filtered samples. */
      optimal?: PlaybackKernel;
      /** With `optimal`: also weigh global joint positions (`downsampleOptimal`'s `fk` term, weight 1e-3). */
      fk?: boolean;
      /**
       * C² splines through the keys instead of a kernel (`bakeClip`'s `curve: 'spline'`: SciPy's
       * RotationSpline for rotations, the cubic with the same end conditions for translations and
       * scales), for smooth up-sampling of sparse keys. Up-sampling only (a rate below the keys' is an
       * `OptionError`); `kernel`, `space`, `boundary`, `antialias` and `segments` do not apply. On a keyed
       * clip the splines go through each track's own keys. A loop (see `loop`) keeps its end: the rate is
       * fitted so the last frame lands on it. Not with `optimal`.
       */
      spline?: boolean;
    };

/** What a step reports about itself to {@link RunStepsOptions.onStep}. */
export interface StepReport {
  op: ClipStep['op'];
  /** Frames and rate of the step's output. */
  frames: number;
  rate: number;
  /** `resample` with `optimal`: mean playback angle (radians) of plain decimation and of the optimal keys. */
  optimal?: { before: number; after: number; steps: number };
}

/**
 * Feature layouts of `rotsig export`: one rotation or position array, or `'features'`, the training matrix
 * of `motionFeatures` (root motion, root-relative joints, 6D rotations, velocities, contacts) with a JSON
 * sidecar naming every column.
 */
export type FeatureKind = 'quat' | '6d' | 'rotvec' | 'euler' | 'positions' | 'features';

/** Table formats. */
export type TableFormat = 'npy' | 'npz' | 'csv' | 'json';

/** Options of `motionFeatures` as plain data (`--as features`). */
export interface MotionFeatureSpec {
  up?: 'y' | 'z' | 'auto';
  /** Length units per metre of the clip, or `'auto'` (from the skeleton's size). */
  unitsPerMeter?: number | 'auto';
  bodyUp?: 'y' | 'z';
  root?: string;
  /** Foot joint names, or `'auto'` / `'none'`. */
  feet?: string[] | 'auto' | 'none';
  contactSpeed?: number;
  contactHeight?: number;
  /** The 6D layout of the rotation columns (see `toArrays`). */
  sixd?: SixDLayout;
}

/** What a reduce task writes and how (plain data, so it crosses threads). */
export interface ReduceEmit {
  kind: 'reduce';
  /** Options of `reduceKeys`; `unitsPerMeter` defaults to the input's (1 for glTF, 1 / scale for BVH). */
  options: ReduceKeysOptions;
  /**
   * glTF output buffers: `'none'` (default) plain, `'meshopt'` compressed with `EXT_meshopt_compression`
   * (lossless on the stored keys, so the reported error is the file's).
   */
  compression?: 'none' | 'meshopt';
}

/** What a task produces from the processed clip. */
export type Emit =
  | ReduceEmit
  | { kind: 'info'; options?: AnalyzeClipOptions }
  | { kind: 'bvh'; precision?: number }
  | {
      kind: 'clip';
      precision?: number;
      /** Name of the clip format to write (see clip-writers.ts); the task fills it from the output's extension. */
      format?: string;
    }
  | {
      kind: 'features';
      as: FeatureKind;
      format: TableFormat;
      space?: 'local' | 'global';
      dtype?: 'float64' | 'float32';
      /** Quaternion sign policy for `as: 'quat'` (see `toArrays`). */
      sign?: 'keep' | 'w-positive' | 'continuous';
      /** For `as: 'features'`. */
      motion?: MotionFeatureSpec;
      /** For `as: '6d'`: the first two matrix `'columns'` (default) or `'rows'` (PyTorch3D). */
      sixd?: SixDLayout;
    }
  | { kind: 'velocity'; format: TableFormat; kernel?: KernelSpec; space?: 'local' | 'global' }
  | {
      kind: 'spectrum';
      /** `'none'` returns only the summary data. */
      format: 'svg' | 'csv' | 'json' | 'none';
      share?: number;
      channels?: 'euler' | 'quaternion';
      include?: 'rotations' | 'all';
    };

/** The summary a spectrum task returns as `data`. */
export interface SpectrumSummary {
  rate: number;
  share: number;
  energyFrequency: number;
  safeRate: number;
  channels: number;
  /** The three strongest bins above 0 Hz of the maximum spectrum: Hz and dB. */
  peaks: { hz: number; db: number }[];
}

/** Options of {@link runSteps}. */
export interface RunStepsOptions {
  /**
   * `'keep'` (default): the input clip is never modified; `'reuse'`: steps that can reuse arrays (unroll,
   * smooth) may overwrite the input's, which saves copies when the caller has no further use for it (a
   * batch that has just parsed the file). Intermediate clips are always reused.
   */
  input?: 'keep' | 'reuse';
  /** Called after each step with what it did (the studio shows the optimal keys' error from it). */
  onStep?: (report: StepReport) => void;
  /**
   * The grid of a resample round a loop (see the step's `loop`): `'fit'` (default) adjusts the rate so
   * the period holds whole frames and closes the loop with its first pose (a uniform clip that ends at
   * the input's end); `'exact'` keeps the requested rate, frames `i / rate` up to the input's end, the
   * seam wrapped (the keyed path then adds the closing key at the end time).
   */
  loopGrid?: 'fit' | 'exact';
}

/** Defaults of {@link RunStepsOptions} (frozen; `onStep` has none). */
export const RUN_STEPS_DEFAULTS: Readonly<Required<Omit<RunStepsOptions, 'onStep'>>> = frozenDefaults({
  input: 'keep',
  loopGrid: 'fit',
});

const RUN_STEPS_SPEC: OptionSpec = {
  input: oneOf(['keep', 'reuse']),
  onStep: FUNCTION_OPTION,
  loopGrid: oneOf(['fit', 'exact']),
};

/**
 * Applies `steps` in order; returns the input clip when there are none.
 *
 * @param options - Defaults in {@link RUN_STEPS_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @example
 * runSteps(clip, [{ op: 'unroll' }, { op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } }, { op: 'resample', rate: 30 }]);
 */
export function runSteps(clip: Clip, steps: readonly ClipStep[], options: RunStepsOptions = {}): Clip {
  options = resolveOptions('runSteps', options, RUN_STEPS_DEFAULTS, RUN_STEPS_SPEC);
  const reuse = options.input === 'reuse';
  let current = clip;
  // A step may hand back arrays of its input (an unrolled copy keeps the translations), so ownership is
  // decided array by array: unrolling needs its own rotations, smoothing its own rotations and translations.
  for (const step of steps) {
    const rotations = reuse || current.rotations.data !== clip.rotations.data;
    const both = rotations && (reuse || current.translations.data !== clip.translations.data);
    let optimal: StepReport['optimal'];
    current = applyStep(current, step, rotations, both, options.loopGrid === 'exact', (o) => {
      optimal = o;
    });
    options.onStep?.({
      op: step.op,
      frames: current.frames,
      rate: current.rate,
      ...(optimal ? { optimal } : {}),
    });
  }
  return current;
}

/**
 * The seconds of frames `[start, end)` of a clip of `frames` frames at `rate` Hz from `startTime`, for
 * `subclip` (which keeps the frames whose times lie in its closed range). A range past the last frame
 * fails with a message naming the clip's length.
 */
export function subclipSeconds(
  startTime: number,
  rate: number,
  frames: number,
  step: { start: number; end: number | null },
): { start: number; end: number } {
  const last = step.end === null ? frames - 1 : Math.min(step.end, frames) - 1;
  if (step.start > frames - 1 || last < step.start)
    throw new OptionError(
      `frames ${step.start} to ${step.end === null ? 'the end' : step.end - 1} are not in a clip of ${frames} frames (0 to ${frames - 1})`,
    );
  return { start: startTime + step.start / rate, end: startTime + last / rate };
}

function applyStep(
  clip: Clip,
  step: ClipStep,
  ownsRotations: boolean,
  ownsBoth: boolean,
  exactLoopGrid: boolean,
  report: (optimal: NonNullable<StepReport['optimal']>) => void,
): Clip {
  switch (step.op) {
    case 'unroll':
      return unrollClip(clip, ownsRotations ? { target: 'in-place' } : {});
    case 'subclip':
      return subclip(clip, {
        ...subclipSeconds(clip.startTime ?? 0, clip.rate, clip.frames, step),
        ...(step.rebase === true ? { rebase: true } : {}),
      });
    case 'smooth': {
      const plan = planLoop(clip, step, SMOOTH_DEFAULTS.boundary);
      // with `joints`, keepOnly reads the unfiltered clip afterwards, so it must stay as it is
      const filtered = filterClip(
        plan.closed ? openLoop(clip) : clip,
        kernelFromSpec(step.kernel, clip.rate),
        {
          ...(step.space ? { space: step.space } : {}),
          boundary: plan.boundary,
          segments: plan.segments,
          ...(ownsBoth && !step.joints ? { input: 'reuse' as const } : {}),
        },
      );
      const out = plan.closed ? closeLoop(filtered) : filtered;
      return step.joints ? keepOnly(clip, out, step.joints) : out;
    }
    case 'live': {
      const direction = step.direction ?? 'forward';
      const f = step.filter;
      const out =
        f.name === 'one-euro'
          ? oneEuroClip(clip, { minCutoff: f.minCutoff, beta: f.beta, dCutoff: f.dCutoff, direction })
          : dampClip(clip, { halfLife: f.halfLife, direction });
      return step.joints ? keepOnly(clip, out, step.joints) : out;
    }
    case 'resample': {
      const { op: _op, rate, optimal, fk, loop, spline, ...options } = step;
      if (spline === true) {
        if (optimal)
          throw new OptionError('resample: spline and optimal are two ways to make keys; give one');
        return splineResampleClip(clip, step);
      }
      if (optimal) {
        if (loop !== undefined && loop !== 'off')
          throw new OptionError("resample: loop applies without optimal (give loop: 'off')");
        const out = resampleOptimal(clip, { ...options, rate, playback: optimal, fk: fk === true });
        report(out.report);
        return out.clip;
      }
      // an explicit duration other than 'loop' keeps the clip as it is (no period cut out of it)
      const plan = planLoop(
        clip,
        options.duration === undefined || options.duration === 'loop' ? step : { ...step, loop: 'off' },
        'clamp',
      );
      if (!plan.closed)
        return resampleClip(clip, {
          ...options,
          boundary: plan.boundary,
          segments: plan.segments,
          targetRate: rate,
        });
      const open = openLoop(clip);
      if (exactLoopGrid) {
        // two periods wrapped (the same periodic signal) on the exact grid, cut at the input's end
        const twice = resampleClip(concatFrames(open, open), {
          ...options,
          boundary: plan.boundary,
          segments: plan.segments,
          duration: 'floor',
          targetRate: rate,
        });
        const keep = Math.floor(((clip.frames - 1) / clipSourceRate(clip)) * twice.rate * (1 + 1e-12)) + 1;
        return firstFrames(twice, Math.min(keep, twice.frames));
      }
      const period = resampleClip(open, {
        ...options,
        boundary: plan.boundary,
        segments: plan.segments,
        duration: 'loop',
        targetRate: rate,
      });
      return closeLoop(period);
    }
  }
}

/** Options of {@link resampleOptimal}: the target rate and playback, and the options of `resampleClip` for translations and scales. */
export interface ResampleOptimalOptions {
  rate: number;
  playback: PlaybackKernel;
  /** Weigh global joint positions too (`downsampleOptimal`'s `fk` term, weight 1e-3). Default false. */
  fk?: boolean;
  kernel?: ResampleKernelName;
  space?: RotationSpace;
  boundary?: Boundary;
  antialias?: boolean;
  segments?: SegmentPolicy;
}

/** Defaults of {@link ResampleOptimalOptions} (frozen; `rate` is required, `kernel` follows the rates). */
export const RESAMPLE_OPTIMAL_DEFAULTS = frozenDefaults({
  playback: 'linear' as PlaybackKernel,
  fk: false,
  space: 'log' as RotationSpace,
  boundary: 'clamp' as Boundary,
  antialias: true,
  segments: 'none' as SegmentPolicy,
});

const RESAMPLE_OPTIMAL_SPEC: OptionSpec = {
  rate: POSITIVE_NUMBER,
  playback: oneOf(['linear', 'catmull-rom']),
  fk: BOOLEAN_OPTION,
  kernel: RESAMPLE_SPEC.kernel,
  space: RESAMPLE_SPEC.space,
  boundary: RESAMPLE_SPEC.boundary,
  antialias: RESAMPLE_SPEC.antialias,
  segments: oneOf(SEGMENT_POLICIES),
  // a resample step's duration is accepted and not used: the optimal keys' grid is always 'ceil'
  duration: RESAMPLE_SPEC.duration,
};

/**
 * Down-sampling with optimal rotation keys: the rotations are `downsampleOptimal`'s keys for `playback`
 * (the keys that reconstruct the source best when a player interpolates them), the translations and
 * scales are `resampleClip` on the same grid (`duration: 'ceil'`: the last key on or after the source's
 * end, the grid the optimal keys cover), with `options`' kernel, boundary and anti-aliasing. The one
 * assembly the CLI (`--optimal`) and the studio use. Source rate: `clipSourceRate`.
 *
 * @param options - Defaults in {@link RESAMPLE_OPTIMAL_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws an error with `code: 'usage'` when `rate` is not below the clip's rate (optimal keys are for
 *   down-sampling; the CLI exits 2 on it).
 * @example
 * const { clip: keys, report } = resampleOptimal(clip, { rate: 30, playback: 'linear' });
 * // report.after < report.before: mean playback angle (radians) against plain decimation
 */
export function resampleOptimal(
  clip: Clip,
  options: ResampleOptimalOptions,
): { clip: Clip; report: { before: number; after: number; steps: number } } {
  const {
    rate,
    playback,
    fk,
    duration: _duration,
    ...resample
  } = resolveOptions(
    'resampleOptimal',
    options,
    RESAMPLE_OPTIMAL_DEFAULTS,
    RESAMPLE_OPTIMAL_SPEC,
  ) as ResampleOptimalOptions & {
    duration?: DurationPolicy;
  };
  if (rate === undefined) throw new OptionError('resampleOptimal: a rate is required');
  const sourceRate = clipSourceRate(clip);
  if (!(rate < sourceRate)) {
    // A command-line mistake that only the file's rate reveals: the CLI exits 2 on code 'usage'.
    throw Object.assign(
      new Error(
        `--optimal fits keys for down-sampling; --rate ${rate} is not below the file's ${Number(clip.rate.toFixed(3))} Hz (leave out --optimal to up-sample)`,
      ),
      { code: 'usage' },
    );
  }
  const out = resampleClip(clip, { ...resample, duration: 'ceil', targetRate: rate });
  const sk = clip.skeleton;
  const r = downsampleOptimal(clip.rotations, {
    sourceRate,
    targetRate: rate,
    playback,
    ...(fk
      ? {
          fk: {
            parents: sk.parents,
            offsets: sk.restTranslations,
            weight: 1e-3,
            translations: clip.translations,
          },
        }
      : {}),
  });
  if (r.keys.frames !== out.frames)
    throw new Error(`optimal keys have ${r.keys.frames} frames, the resampled clip ${out.frames}`);
  return {
    clip: { ...out, rotations: r.keys },
    report: { before: r.before.meanAngle, after: r.after.meanAngle, steps: r.steps },
  };
}

/** `filtered` for the joints named in `names` (and their translations), `original` for the others. */
function keepOnly(original: Clip, filtered: Clip, names: readonly string[]): Clip {
  const all = original.skeleton.names;
  const chosen = new Set<number>();
  for (const name of names) {
    const j = all.indexOf(name);
    if (j < 0)
      throw new Error(
        `no joint named '${name}' (joints: ${all.slice(0, 8).join(', ')}${all.length > 8 ? ', ...' : ''})`,
      );
    chosen.add(j);
  }
  const J = all.length;
  const rot = Float64Array.from(original.rotations.data);
  const tra = Float64Array.from(original.translations.data);
  for (let f = 0; f < original.frames; f++) {
    for (const j of chosen) {
      const q = (f * J + j) * 4;
      for (let k = 0; k < 4; k++) rot[q + k] = filtered.rotations.data[q + k];
      const t = (f * J + j) * 3;
      for (let k = 0; k < 3; k++) tra[t + k] = filtered.translations.data[t + k];
    }
  }
  return {
    ...original,
    rotations: { data: rot, frames: original.frames, joints: J },
    translations: { data: tra, frames: original.frames, joints: J },
  };
}

/** Output of {@link emitClip}: file content, structured data, or both. */
export interface Emitted {
  content?: EmittedContent;
  data?: unknown;
  /** JSON describing `content`, written next to it (`features.npz` → `features.json`). */
  sidecar?: string;
  /** What the output leaves out or chose by default, for the task's warnings. */
  warnings?: { code: string; message: string }[];
}

const FEATURE_LAYOUT: Record<FeatureKind, { rotation: RotationRepresentation; components: string[] }> = {
  quat: { rotation: 'quaternion', components: ['qx', 'qy', 'qz', 'qw'] },
  '6d': { rotation: '6d', components: ['m00', 'm10', 'm20', 'm01', 'm11', 'm21'] },
  rotvec: { rotation: 'rotation-vector', components: ['rx', 'ry', 'rz'] },
  euler: { rotation: 'euler', components: ['a1', 'a2', 'a3'] },
  positions: { rotation: 'none', components: ['x', 'y', 'z'] },
  features: { rotation: 'none', components: [] },
};

/**
 * Produces a task's output from the processed clip; `context.title` names the plot of a spectrum.
 *
 * Never emits a non-finite number: a value that overflowed to Infinity or became NaN on the way (a Frame
 * Time of 1e-310 s makes a rate of Infinity and infinite velocities; an OFFSET near 1.8e308 makes infinite
 * positions) is an {@link InvalidValueError} naming the value and where it is, so a run reports the file as
 * failed instead of writing `Infinity` or `NaN` and calling it done.
 *
 * @throws {InvalidValueError} when a number of the output would not be finite.
 * @example
 * const { content } = emitClip(clip, { kind: 'features', as: '6d', format: 'npy', dtype: 'float32' });
 */
export function emitClip(clip: Clip, emit: Emit, context: { title?: string } = {}): Emitted {
  switch (emit.kind) {
    case 'reduce':
      // a keyed output with its own reader and writer: runReduceTask
      throw new OptionError('emitClip: reduce tasks run through runReduceTask');
    case 'info': {
      const data = analyzeClip(clip, emit.options);
      checkFiniteData(data, 'the analysis');
      return { data };
    }
    case 'bvh':
      checkFiniteClip(clip);
      return {
        content: writeBvhChunks(clip, emit.precision === undefined ? {} : { precision: emit.precision }),
      };
    case 'clip': {
      const format = CLIP_WRITERS.find((f) => f.name === emit.format) ?? CLIP_WRITERS[0];
      return {
        content: format.write(clip, emit.precision === undefined ? {} : { precision: emit.precision }),
      };
    }
    case 'features': {
      if (emit.as === 'features') return featureMatrix(clip, emit, context);
      const layout = FEATURE_LAYOUT[emit.as];
      const positions = emit.as === 'positions';
      const arrays: ClipArrays = toArrays(clip, {
        rotation: layout.rotation,
        positions: positions ? (emit.space ?? 'global') : 'none',
        rotationSpace: positions ? 'local' : (emit.space ?? 'local'),
        dtype: emit.dtype ?? 'float64',
        quaternionSign: emit.sign ?? 'keep',
        sixd: emit.sixd ?? 'columns',
      });
      const data = positions ? arrays.positions! : arrays.rotations!;
      const shape = positions ? arrays.positionShape : arrays.rotationShape;
      const kind =
        emit.as === 'euler'
          ? `euler (radians, each joint in its own order: ${[...new Set(clip.orders)].join(', ')})`
          : emit.as;
      return {
        content: table(
          {
            data,
            frames: shape[0],
            joints: shape[1],
            width: shape[2],
            names: clip.skeleton.names,
            components: emit.as === '6d' ? SIXD_COMPONENTS[emit.sixd ?? 'columns'] : layout.components,
            rate: clip.rate,
            kind,
            ...(emit.as === '6d' ? { sixd: emit.sixd ?? 'columns' } : {}),
            ...(positions
              ? { units: 'file units' }
              : emit.as === 'euler' || emit.as === 'rotvec'
                ? { units: 'rad' }
                : {}),
          },
          emit.format,
        ),
      };
    }
    case 'spectrum': {
      const s = clipSpectrum(clip, {
        energyShare: emit.share ?? 0.99,
        ...(emit.channels ? { channels: emit.channels } : {}),
        ...(emit.include ? { include: emit.include } : {}),
      });
      const bins = Array.from(s.maxDb.subarray(1), (db, i) => ({ hz: s.frequencies[i + 1], db }));
      // Local maxima, strongest first.
      const peaks = bins
        .filter(
          (b, i) => (i === 0 || b.db >= bins[i - 1].db) && (i === bins.length - 1 || b.db >= bins[i + 1].db),
        )
        .sort((a, b) => b.db - a.db)
        .slice(0, 3);
      const data: SpectrumSummary = {
        rate: s.rate,
        share: s.energyShare,
        energyFrequency: s.energyFrequency,
        safeRate: s.recommendedRate,
        channels: s.channels,
        peaks,
      };
      checkFiniteData(data, 'the spectrum summary');
      checkFiniteArray(s.frequencies, 'spectrum frequency (Hz)');
      checkFiniteArray(s.power, 'spectrum power');
      checkFiniteArray(s.maxDb, 'spectrum level (dB)');
      if (emit.format === 'none') return { data };
      if (emit.format === 'svg') {
        const svg = renderSpectrumSvg({
          frequencies: s.frequencies,
          db: s.maxDb,
          energyFrequency: s.energyFrequency,
          share: s.energyShare,
          rate: s.rate,
          title: context.title ?? 'Spectrum',
        });
        return { content: svg, data };
      }
      if (emit.format === 'json')
        return {
          data,
          content: `${JSON.stringify({
            ...data,
            units: 'dB re 1 rad (maximum over joints and channels); power in rad^2',
            frequencies: Array.from(s.frequencies),
            maxDb: Array.from(s.maxDb),
            power: Array.from(s.power),
          })}\n`,
        };
      let csv = 'frequency_hz,max_db,power\n';
      for (let i = 0; i < s.frequencies.length; i++)
        csv += `${s.frequencies[i]},${s.maxDb[i]},${s.power[i]}\n`;
      return { content: csv, data };
    }
    case 'velocity': {
      const space = emit.space ?? 'local';
      const v = clipVelocities(clip, {
        ...(emit.kernel ? { kernel: kernelFromSpec(emit.kernel, clip.rate) } : {}),
        spaces: space,
      });
      const angular = (space === 'local' ? v.localAngular : v.globalAngular)!;
      const linear = (space === 'local' ? v.localLinear : v.globalLinear)!;
      const J = clip.skeleton.names.length;
      const F = angular.frames;
      // Angular velocity of every joint, then the linear velocity of the first root: frames x (joints + 1) x 3.
      const root = Math.max(0, clip.skeleton.parents.indexOf(-1));
      const data = new Float64Array(F * (J + 1) * 3);
      for (let f = 0; f < F; f++) {
        data.set(angular.data.subarray(f * J * 3, (f + 1) * J * 3), f * (J + 1) * 3);
        data.set(linear.data.subarray((f * J + root) * 3, (f * J + root + 1) * 3), (f * (J + 1) + J) * 3);
      }
      return {
        content: table(
          {
            data,
            frames: F,
            joints: J + 1,
            width: 3,
            names: [...clip.skeleton.names, `${clip.skeleton.names[root]}:linear`],
            components: ['x', 'y', 'z'],
            rate: clip.rate,
            kind: `${space} angular velocity per joint (rad/s), then root linear velocity (file units/s)`,
            units: 'rad/s; last entry file units/s',
          },
          emit.format,
        ),
      };
    }
  }
}

function table(t: FrameTable, format: TableFormat): EmittedContent {
  checkFiniteTable(t);
  if (format === 'csv') return frameTableCsv(t);
  if (format === 'json') return frameTableJson(t);
  if (format === 'npz') return writeNpz(frameTableNpz(t));
  return writeNpy(t.data as Float64Array | Float32Array, [t.frames, t.joints, t.width]);
}

/** `--as features`: the motionFeatures matrix as .npy (or .npz with heading and trajectory) and its JSON sidecar. */
function featureMatrix(
  clip: Clip,
  emit: Extract<Emit, { kind: 'features' }>,
  context: { title?: string },
): Emitted {
  const spec = emit.motion ?? {};
  const f = motionFeatures(clip, {
    ...(spec.up ? { up: spec.up } : {}),
    ...(spec.bodyUp ? { bodyUp: spec.bodyUp } : {}),
    ...(spec.root ? { root: spec.root } : {}),
    ...(spec.feet ? { feet: spec.feet } : {}),
    ...(spec.contactSpeed !== undefined ? { contactSpeed: spec.contactSpeed } : {}),
    ...(spec.contactHeight !== undefined ? { contactHeight: spec.contactHeight } : {}),
    ...(spec.sixd ? { sixd: spec.sixd } : {}),
    ...(spec.unitsPerMeter !== undefined ? { unitsPerMeter: spec.unitsPerMeter } : {}),
  });
  const f32 = emit.dtype === 'float32';
  const cast = (a: Float64Array) => (f32 ? Float32Array.from(a) : a);
  const dtype = f32 ? ('float32' as const) : ('float64' as const);
  const shape = [f.frames, f.columns.length];
  if (emit.format !== 'npy' && emit.format !== 'npz')
    throw new Error(`--as features writes .npy or .npz, not .${emit.format}`);
  const content =
    emit.format === 'npy'
      ? writeNpy(cast(f.data), shape)
      : writeNpz(
          {
            features: { data: cast(f.data), shape, dtype },
            heading: { data: cast(f.heading), shape: [f.frames], dtype },
            trajectory: { data: cast(f.trajectory), shape: [f.frames, 2], dtype },
            ...featureNames(clip, f, spec.sixd ?? 'columns'),
          },
          { compression: 'deflate' },
        );
  const lengthUnit = lengthUnitName(f.unitsPerMeter);
  const sidecar = {
    kind: 'rotsig motion features',
    source: context.title ?? null,
    rate: f.rate,
    frames: f.frames,
    up: f.up,
    root: clip.skeleton.names[f.root],
    lengthUnit,
    unitsPerMeter: f.unitsPerMeter,
    positions: f.positions,
    warnings: f.warnings.map((w) => w.message),
    sixd: spec.sixd ?? 'columns',
    dtype,
    arrays:
      emit.format === 'npy'
        ? { features: shape }
        : { features: shape, heading: [f.frames], trajectory: [f.frames, 2] },
    notes: {
      units: `'units' is ${lengthUnit}; velocities are per second at rate Hz (central differences)`,
      heading: 'radians, unrolled twist of the root about up, not a column (npz member heading)',
      trajectory: `ground-plane root position (${f.up === 'y' ? 'x, z' : 'x, y'}) per frame (npz member trajectory)`,
      frame: 'velocities and positions are in the heading frame: the world turned by the heading about up',
    },
    columns: f.columns,
  };
  return { content, sidecar: `${JSON.stringify(sidecar, null, 1)}\n`, warnings: f.warnings };
}

/** The names a features `.npz` carries: every column's, the joints', the rate and the 6D layout. */
function featureNames(clip: Clip, f: ReturnType<typeof motionFeatures>, sixd: SixDLayout) {
  const text = (data: string[], shape: number[]) => ({ data, shape, dtype: 'str' as const });
  return {
    column_names: text(
      f.columns.map((c) => (c.joint === null ? c.name : `${c.joint}.${c.name}`)),
      [f.columns.length],
    ),
    column_units: text(
      f.columns.map((c) => c.unit),
      [f.columns.length],
    ),
    joint_names: text(clip.skeleton.names.slice(), [clip.skeleton.names.length]),
    rate: { data: Float64Array.of(f.rate), shape: [], dtype: 'float64' as const },
    sixd: text([sixd], []),
  };
}

const OUT_OF_RANGE = "the input's numbers are out of range for this output";

function checkFiniteRate(rate: number): void {
  if (!(Number.isFinite(rate) && rate > 0))
    throw new InvalidValueError(
      `the frame rate is ${rate} frames/s, not a finite positive number: ${OUT_OF_RANGE}`,
    );
}

/** A table's numbers and rate are finite, or an error naming the first value that is not and where. */
function checkFiniteTable(t: FrameTable): void {
  checkFiniteRate(t.rate);
  const i = firstNonFinite(t.data);
  if (i < 0) return;
  const frame = Math.floor(i / (t.joints * t.width));
  const joint = Math.floor(i / t.width) % t.joints;
  throw new InvalidValueError(
    `${t.kind}: ${t.data[i]} at frame ${frame}, ${t.names[joint]}.${t.components[i % t.width]}: ${OUT_OF_RANGE}`,
    { frame, joint },
  );
}

/** What a BVH writer would write of the clip is finite: rate, rest offsets, rotations, translations. */
function checkFiniteClip(clip: Clip): void {
  checkFiniteRate(clip.rate);
  const J = clip.skeleton.names.length;
  const checks: [ArrayLike<number>, number, string][] = [
    [clip.skeleton.restTranslations, 3, 'OFFSET'],
    [clip.rotations.data, 4, 'rotation'],
    [clip.translations.data, 3, 'translation'],
  ];
  for (const [data, width, what] of checks) {
    const i = firstNonFinite(data);
    if (i < 0) continue;
    const joint = Math.floor(i / width) % J;
    const frame = what === 'OFFSET' ? undefined : Math.floor(i / (width * J));
    throw new InvalidValueError(
      `${what} of ${clip.skeleton.names[joint]}${frame === undefined ? '' : ` at frame ${frame}`} is ${data[i]}: ${OUT_OF_RANGE}`,
      frame === undefined ? { joint } : { frame, joint },
    );
  }
}

function checkFiniteArray(data: ArrayLike<number>, what: string): void {
  const i = firstNonFinite(data);
  if (i >= 0) throw new InvalidValueError(`${what} ${i} is ${data[i]}: ${OUT_OF_RANGE}`, { index: i });
}

/** Every number in a plain data tree (objects, arrays, typed arrays) is finite; `null` is allowed. */
function checkFiniteData(value: unknown, what: string): void {
  const path = nonFinitePath(value, '');
  if (path !== undefined)
    throw new InvalidValueError(`${what} has a value that is not finite (${path}): ${OUT_OF_RANGE}`);
}

function nonFinitePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path || 'value'} = ${value}`;
  if (value === null || typeof value !== 'object') return undefined;
  if (ArrayBuffer.isView(value)) {
    const data = value as unknown as ArrayLike<number>;
    const i = firstNonFinite(data);
    return i < 0 ? undefined : `${path}[${i}] = ${data[i]}`;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinitePath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const found = nonFinitePath(v, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

function firstNonFinite(data: ArrayLike<number>): number {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) return i;
  return -1;
}
