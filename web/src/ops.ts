// Operations that other parts of rotsig provide. Looked up at run time so the studio builds while they land;
// a control whose operation is missing is left out of the UI (never faked).

import type { Clip, Kernel, QuatSeries, Vec3Series } from 'rotsig';
import * as rotsig from 'rotsig';

const lib = rotsig as unknown as Record<string, unknown>;

export type AverageMethod = 'flip' | 'nlerp' | 'raw' | 'log' | 'eigen' | 'geodesic';
export type InterpolateMethod = 'slerp' | 'nlerp' | 'log' | 'matrix';

export const averageQuaternions = lib.averageQuaternions as
  | ((quats: Float64Array, weights?: Float64Array, options?: { method?: AverageMethod }) => Float64Array)
  | undefined;
export const averageCost = lib.averageCost as
  | ((q: ArrayLike<number>, quats: Float64Array, weights?: Float64Array) => number)
  | undefined;
export const interpolate = lib.interpolate as
  | ((
      out: Float64Array,
      a: ArrayLike<number>,
      b: ArrayLike<number>,
      t: number,
      method: InterpolateMethod,
    ) => Float64Array)
  | undefined;
export const filterClip = lib.filterClip as
  | ((clip: Clip, kernel: Kernel, options?: { space?: string; boundary?: string }) => Clip)
  | undefined;
export const resampleClip = lib.resampleClip as
  | ((clip: Clip, options: { targetRate: number; kernel?: string; space?: string }) => Clip)
  | undefined;
interface PlaybackError {
  meanAngle: number;
  maxAngle: number;
}
export const downsampleOptimal = lib.downsampleOptimal as
  | ((
      series: QuatSeries,
      options: {
        sourceRate: number;
        targetRate: number;
        playback?: 'linear' | 'catmull-rom';
        fk?: {
          parents: ArrayLike<number>;
          offsets: ArrayLike<number>;
          weight: number;
          translations?: Vec3Series;
        };
      },
    ) => {
      keys: QuatSeries<Float64Array>;
      rate: number;
      times: Float64Array;
      before: PlaybackError;
      after: PlaybackError;
      steps: number;
    })
  | undefined;
export const clipSpectrum = lib.clipSpectrum as
  | ((clip: Clip, options?: Record<string, unknown>) => unknown)
  | undefined;
export const angularVelocity = lib.angularVelocity as
  | ((series: QuatSeries, dt: number, options?: Record<string, unknown>) => { data: Float64Array })
  | undefined;

interface TimesOptions<S> {
  sourceRate: number;
  times: ArrayLike<number>;
  kernel: string;
  space?: string;
  boundary?: string;
  out?: S;
}
export const resampleRotations = lib.resampleRotations as
  | ((series: QuatSeries, options: TimesOptions<QuatSeries>) => QuatSeries)
  | undefined;
export const resampleVectors = lib.resampleVectors as
  | ((series: Vec3Series, options: TimesOptions<Vec3Series>) => Vec3Series)
  | undefined;
export const spectrum = lib.spectrum as
  | ((channels: ArrayLike<number>[], rate: number) => { frequencies: Float64Array; db: Float64Array[] })
  | undefined;
