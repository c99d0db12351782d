import {
  frozenDefaults,
  NON_NEGATIVE_NUMBER,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { createOneEuroFilter, ONE_EURO_DEFAULTS, type OneEuroDerivative } from './one-euro.js';
import { CLIP_DIRECTIONS, type ClipDirection, runClip } from './run-clip.js';

/** Options of {@link oneEuroClip}. */
export interface OneEuroClipOptions {
  /** Cutoff at rest in Hz (see `createOneEuroFilter`). Default 1. */
  minCutoff?: number;
  /** Cutoff rise per rad/s of rotation speed, in Hz. Default 0. */
  beta?: number;
  /** Cutoff of the speed estimate in Hz. Default 1. */
  dCutoff?: number;
  /** Cutoff rise per unit/s of translation speed (the file's units), in Hz. Default: `beta`. */
  translationBeta?: number;
  /** Speed from consecutive inputs (`'input'`, default) or from the previous output (`'output'`). */
  derivative?: OneEuroDerivative;
  /** `'all'` (default) filters rotations and translations; `'rotations'` leaves translations as they are. */
  channels?: 'all' | 'rotations';
  /** `'forward'` (default, what a live stream gets) or `'forward-backward'` (less lag, not causal). */
  direction?: ClipDirection;
}

/** Defaults of {@link OneEuroClipOptions} (frozen; `translationBeta` follows `beta` when absent). */
export const ONE_EURO_CLIP_DEFAULTS: Readonly<Required<Omit<OneEuroClipOptions, 'translationBeta'>>> =
  frozenDefaults({
    minCutoff: ONE_EURO_DEFAULTS.minCutoff,
    beta: ONE_EURO_DEFAULTS.beta,
    dCutoff: ONE_EURO_DEFAULTS.dCutoff,
    derivative: ONE_EURO_DEFAULTS.derivative,
    channels: 'all',
    direction: 'forward',
  });

const ONE_EURO_CLIP_SPEC: OptionSpec = {
  minCutoff: POSITIVE_NUMBER,
  beta: NON_NEGATIVE_NUMBER,
  dCutoff: POSITIVE_NUMBER,
  translationBeta: NON_NEGATIVE_NUMBER,
  derivative: oneOf(['input', 'output']),
  channels: oneOf(['all', 'rotations']),
  direction: oneOf(CLIP_DIRECTIONS),
};

/**
 * Runs a recorded clip through the One Euro filter ({@link createOneEuroFilter}) frame by frame at
 * `f · frameTime` seconds: every joint's local rotation, and (with `channels: 'all'`) every joint's local
 * translation with the vector filter. What a live stream of the same frames would have produced, for cleaning
 * pose-estimator output offline; `direction: 'forward-backward'` runs the result backwards through a second
 * filter, which removes most of the lag at the cost of causality. Joints that never move come back unchanged
 * (the filter steps by zero). Returns a new `Clip` on the same skeleton; the input is not modified.
 *
 * Method: Casiez, Roussel and Vogel, "1€ Filter" (CHI 2012); see {@link createOneEuroFilter}.
 *
 * @param options - Defaults in {@link ONE_EURO_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} on a malformed clip; {@link OptionError} on invalid options;
 *   {@link InvalidValueError} on a non-finite or zero rotation (naming the joint).
 * @example
 * const clean = oneEuroClip(clip, { minCutoff: 1, beta: 0.5 });
 */
export function oneEuroClip(clip: Clip, options: OneEuroClipOptions = {}): Clip {
  const where = 'oneEuroClip';
  const o = resolveOptions(where, options, ONE_EURO_CLIP_DEFAULTS, ONE_EURO_CLIP_SPEC);
  const translationBeta = o.translationBeta ?? o.beta;
  const common = { minCutoff: o.minCutoff, dCutoff: o.dCutoff, derivative: o.derivative };
  return runClip(
    clip,
    (joints) => createOneEuroFilter({ joints, ...common, beta: o.beta }),
    o.channels === 'all'
      ? (joints) =>
          createOneEuroFilter({ joints, kind: 'vector', width: 3, ...common, beta: translationBeta })
      : null,
    o.direction,
    where,
  );
}
