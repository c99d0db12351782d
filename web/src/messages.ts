import type { Clip, PositionMode } from 'rotsig';

/** Processing settings the panel sends to the worker. */
export interface ProcessSettings {
  unroll: boolean;
  smooth: boolean;
  smoothKernel: 'gaussian' | 'tent' | 'catmull-rom' | 'cubic6' | 'lanczos2' | 'unsharp';
  sigma: number;
  space: 'raw' | 'log' | 'eigen';
  resample: boolean;
  rate: number;
  resampleKernel: 'nearest' | 'linear' | 'catmull-rom' | 'cubic6' | 'lanczos2' | 'lanczos3';
  optimal: boolean;
  /** Add the forward-kinematics position term to the optimal keys' objective. */
  fk: boolean;
}

export const DEFAULT_SETTINGS: ProcessSettings = {
  unroll: false,
  smooth: false,
  smoothKernel: 'gaussian',
  sigma: 2,
  space: 'raw',
  resample: false,
  rate: 30,
  resampleKernel: 'lanczos3',
  optimal: false,
  fk: false,
};

export interface Difference {
  /** Largest angle between processed and original rotations, per joint, degrees. */
  perJointMaxDeg: Float64Array;
  maxDeg: number;
  meanDeg: number;
  maxJoint: number;
  maxFrame: number;
  /** How the comparison was made (same grid, or the processed clip resampled back to the source grid). */
  note: string;
}

export interface SpectrumData {
  frequencies: Float64Array;
  /** Clip maximum over joints and channels, dB. */
  maxDb: Float64Array;
  /** Frequency below which the requested energy share lies, Hz. */
  energyFrequency: number;
  energyShare: number;
  recommendedRate: number;
  rate: number;
}

export type ToWorker =
  | { type: 'load'; clip: Clip }
  | { type: 'parse'; id: number; text: string; positionMode: PositionMode }
  | { type: 'process'; id: number; settings: ProcessSettings };

export type FromWorker =
  | { type: 'progress'; id: number; fraction: number; label: string }
  | {
      type: 'result';
      id: number;
      clip: Clip | null;
      difference: Difference | null;
      spectrum: SpectrumData | null;
      spectrumOriginal: SpectrumData | null;
      ms: number;
    }
  | { type: 'error'; id: number; message: string }
  | {
      type: 'parsed';
      id: number;
      clip: Clip;
      warnings: string[];
      ms: number;
      /** The file's rotation channel values, degrees, frames x joints x 3 in each joint's Euler order. */
      fileEuler: Float64Array | null;
    }
  | { type: 'parse-error'; id: number; message: string };
