// NumPy .npz reading and writing throughput in MB/s of uncompressed member data, on an AMASS-like SMPL+H
// file of 40,000 frames (about 50 MB: poses 40,000 x 156 float64, trans, dmpls, betas, gender).
// Issue target: reading an uncompressed (numpy.savez) .npz at >= 500 MB/s.
import { parseNpz, writeNpz } from '../dist/io/index.js';

const FRAMES = 40_000;

function amassLike(frames) {
  const poses = new Float64Array(frames * 156);
  for (let f = 0; f < frames; f++)
    for (let c = 0; c < 156; c++)
      poses[f * 156 + c] = 0.3 * Math.sin(0.013 * f + 0.7 * c) + 1e-4 * Math.sin(1.7 * f * c);
  const trans = new Float64Array(frames * 3).map((_, i) => Math.sin(i * 0.001));
  const dmpls = new Float64Array(frames * 8).map((_, i) => Math.cos(i * 0.01));
  return {
    poses: { data: poses, shape: [frames, 156], dtype: 'float64' },
    trans: { data: trans, shape: [frames, 3], dtype: 'float64' },
    dmpls: { data: dmpls, shape: [frames, 8], dtype: 'float64' },
    betas: { data: new Float64Array(16), shape: [16], dtype: 'float64' },
    gender: { data: ['female'], shape: [], dtype: 'str' },
    mocap_framerate: { data: Float64Array.of(120), shape: [], dtype: 'float64' },
  };
}

/**
 * Reads every member of a parsed archive: parseNpz inflates and decodes a member when it is first read,
 * so a row that only called it would time the directory, not the data its figure counts.
 */
function readAll(npz) {
  let n = 0;
  for (const name of Object.keys(npz)) n += npz[name].data.length;
  return n;
}

const arrays = amassLike(FRAMES);
const mb = (FRAMES * (156 + 3 + 8) * 8) / 1e6;
const stored = writeNpz(arrays);
const deflated = writeNpz(arrays, { compression: 'deflate' });

export default {
  name: 'npz',
  tasks: [
    {
      // on a shared machine memory bandwidth varies: this is the ceiling of any reader that copies its output
      name: `reference: Uint8Array.slice of the same ${mb.toFixed(1)} MB (one copy)`,
      items: mb,
      unit: 'MB',
      run: () => stored.slice(),
    },
    {
      name: `parseNpz, numpy.savez layout (stored), ${mb.toFixed(1)} MB, CRC-32 checked`,
      items: mb,
      unit: 'MB',
      target: 500,
      run: () => readAll(parseNpz(stored)),
    },
    {
      name: `parseNpz, stored, ${mb.toFixed(1)} MB, checksum: 'skip'`,
      items: mb,
      unit: 'MB',
      target: 500,
      run: () => readAll(parseNpz(stored, { checksum: 'skip' })),
    },
    {
      name: `parseNpz, numpy.savez_compressed layout (deflate, ${((100 * deflated.length) / stored.length).toFixed(0)}% of stored), ${mb.toFixed(1)} MB`,
      items: mb,
      unit: 'MB',
      run: () => readAll(parseNpz(deflated)),
    },
    {
      name: `writeNpz stored, ${mb.toFixed(1)} MB`,
      items: mb,
      unit: 'MB',
      run: () => writeNpz(arrays),
    },
  ],
};
