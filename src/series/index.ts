export * from './clip.js';
export * from './clip-create.js';
export {
  assertFiniteSeries,
  assertQuatSeries,
  assertVec3Series,
  createQuatSeries,
  createVec3Series,
  MAX_SERIES_VALUES,
  quatSeries,
  vec3Series,
} from './create.js';
export * from './random.js';
export type * from './types.js';
