// The studio's processing settings as a rotsig/pipeline step list, and the glTF download written the way
// the command line writes it (runKeyedSteps): the steps, the bake rate and the optimal-key assembly are the
// library's, so the studio and `rotsig` give the same bytes for the same steps. No DOM, no worker globals.
import type { Clip, KeyedClip } from 'rotsig';
import { readGltf, writeGltf } from 'rotsig/io';
import { type ClipStep, type KernelSpec, runKeyedSteps, SMOOTH_DEFAULTS } from 'rotsig/pipeline';
import type { ProcessSettings } from './messages.js';

/**
 * The smoothing kernel the panel names: sigma in seconds for gaussian and unsharp (amount 1), as
 * `rotsig smooth --sigma <ms>ms` gives it; a width factor for the others.
 */
export function kernelSpecOf(s: ProcessSettings): KernelSpec {
  switch (s.smoothKernel) {
    case 'gaussian':
      return { name: 'gaussian', sigma: s.sigmaMs / 1000, unit: 'seconds' };
    case 'unsharp':
      return { name: 'unsharp', sigma: s.sigmaMs / 1000, amount: SMOOTH_DEFAULTS.amount, unit: 'seconds' };
    default:
      return { name: s.smoothKernel, width: s.sigma };
  }
}

/**
 * The pipeline steps of the panel's settings, for a clip at `sourceRate` Hz (reduction is not a step: the
 * worker runs it on the result). Resampling to the clip's own rate is no step; optimal keys only when
 * down-sampling. Smoothing: the pipeline's own ends, loop handling and jump split, as `rotsig smooth` does
 * by default (`'linear'` ends, or round the seam of a loop; each joint split at its real jumps);
 * resampling: log space, clamp, `'floor'` duration, anti-aliased, as `rotsig resample` does by default.
 */
export function stepsOf(s: ProcessSettings, sourceRate: number): ClipStep[] {
  const steps: ClipStep[] = [];
  if (s.unroll) steps.push({ op: 'unroll' });
  if (s.smooth)
    steps.push({
      op: 'smooth',
      kernel: kernelSpecOf(s),
      space: s.space,
    });
  if (s.resample && Math.abs(s.rate - sourceRate) > 1e-9) {
    const optimal = s.optimal && s.rate < sourceRate;
    steps.push({
      op: 'resample',
      rate: s.rate,
      kernel: s.resampleKernel,
      space: 'log',
      boundary: 'clamp',
      duration: 'floor',
      antialias: true,
      segments: 'none',
      ...(optimal ? { optimal: 'linear' as const, ...(s.fk ? { fk: true } : {}) } : {}),
    });
  }
  return steps;
}

/** The open glTF file, as the worker keeps it. */
export interface OpenGltf {
  name: string;
  bytes: Uint8Array;
  /** The files beside a `.gltf`, keyed by the URIs it names (what `readGltf` takes). */
  resources: Record<string, Uint8Array>;
  animation: number;
}

/**
 * The GLB the studio downloads: the file read again (so every mesh, skin and other animation is written as
 * it was read) with the shown animation replaced by `reduced` keys, or by the steps run on its keys with
 * `runKeyedSteps`, as `rotsig` writes a glTF file; no steps and no reduction: the file's own animation.
 */
export async function processedGlb(
  file: OpenGltf,
  steps: readonly ClipStep[],
  reduced: KeyedClip | Clip | null,
): Promise<{ glb: Uint8Array; warnings: string[] }> {
  const fresh = await readGltf(file.bytes, { file: file.name, resources: file.resources });
  const keyed = fresh.clips[file.animation];
  if (keyed === undefined) throw new Error(`the file has no animation ${file.animation}`);
  const out = reduced ?? (steps.length > 0 ? runKeyedSteps(keyed, steps) : null);
  const clips = out ? [{ ...out, source: keyed.source }] : [];
  const written = await writeGltf(fresh.document, clips, { format: 'glb' });
  return { glb: written.glb!, warnings: written.warnings.map((w) => w.message) };
}
