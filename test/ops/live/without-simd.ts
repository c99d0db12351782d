// Imported first by js-path.test.ts: filters created in that file run their JavaScript loops.
import { setSimdEnabled } from '../../../src/numeric/simd.js';

setSimdEnabled(false);
