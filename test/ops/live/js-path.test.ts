// The damper's and the One Euro filter's tests again with the WebAssembly kernels switched off, so the
// JavaScript path (engines without WebAssembly SIMD) keeps every tolerance too. The import order matters: the
// switch comes first.
import './without-simd.js';
import './damper.test.js';
import './one-euro.test.js';
import './clip.test.js';
import './straightforward.test.js';
import { expect, it } from 'vitest';
import { simdAvailable } from '../../../src/numeric/simd.js';
import { createDamper } from '../../../src/ops/live/damper.js';

it('runs with the WebAssembly kernels switched off', () => {
  expect(simdAvailable()).toBe(false);
  expect(createDamper({ joints: 2 }).velocity.byteOffset).toBe(0);
});
