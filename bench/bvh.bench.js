// BVH reader and writer throughput: MB/s and frames/s on the largest shared file, on all eight shared
// captures together (the files the CLI batch of bench/cli.js copies: the data the targets were set on) and on
// a generated 100,000-frame x 70-joint file (targets: parse >= 250 MB/s, BVH text written >= 200 MB/s; bytes
// in and out are what a batch reads and writes, the string forms are there for comparison).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBvh, parseBvhBytes, writeBvh, writeBvhBytes, writeBvhChunks } from '../dist/io/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const SHARED = join(here, '..', '..', 'shared', 'data', 'bvh');
const LARGEST = join(SHARED, 'axis-neuron', 'test.bvh');

/** A chain-and-branches skeleton of `joints` joints (root 6 channels, others 3, mixed orders) with smooth motion. */
function generate(frames, joints) {
  const orders = [
    'Zrotation Yrotation Xrotation',
    'Zrotation Xrotation Yrotation',
    'Yrotation Xrotation Zrotation',
  ];
  const lines = ['HIERARCHY'];
  const open = (name, depth, root) => {
    const pad = '\t'.repeat(depth);
    lines.push(
      `${pad}${root ? 'ROOT' : 'JOINT'} ${name}`,
      `${pad}{`,
      `${pad}\tOFFSET 0.000000 ${root ? '90.000000' : '7.500000'} 1.250000`,
    );
    lines.push(
      `${pad}\tCHANNELS ${root ? 6 : 3} ${root ? 'Xposition Yposition Zposition ' : ''}${orders[name.length % 3]}`,
    );
  };
  // 10 chains of 7 joints under the root = 1 + 69 joints
  open('Root', 0, true);
  let made = 1;
  for (let c = 0; made < joints; c++) {
    let depth = 1;
    for (let k = 0; k < 7 && made < joints; k++, made++, depth++) open(`chain${c}_${k}`, depth, false);
    lines.push(
      `${'\t'.repeat(depth)}End Site`,
      `${'\t'.repeat(depth)}{`,
      `${'\t'.repeat(depth + 1)}OFFSET 0 1 0`,
      `${'\t'.repeat(depth)}}`,
    );
    for (let d = depth - 1; d >= 1; d--) lines.push(`${'\t'.repeat(d)}}`);
  }
  lines.push('}', 'MOTION', `Frames: ${frames}`, 'Frame Time: 0.008333');
  const width = 6 + (joints - 1) * 3;
  const row = new Array(width);
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < width; c++) row[c] = (60 * Math.sin(0.01 * f + c) + (c < 3 ? 100 : 0)).toFixed(6);
    lines.push(row.join(' '));
  }
  return `${lines.join('\n')}\n`;
}

const tasks = [];
if (existsSync(LARGEST)) {
  const bytes = readFileSync(LARGEST);
  const text = bytes.toString('utf8');
  const clip = parseBvh(text);
  const writtenMb = writeBvh(clip).length / 1e6;
  tasks.push(
    {
      name: `parseBvhBytes axis-neuron/test.bvh (${(bytes.length / 1e6).toFixed(2)} MB)`,
      items: bytes.length / 1e6,
      unit: 'MB',
      target: 250,
      run: () => parseBvhBytes(bytes),
    },
    {
      name: `parse axis-neuron/test.bvh (${(text.length / 1e6).toFixed(2)} MB)`,
      items: text.length / 1e6,
      unit: 'MB',
      target: 250,
      run: () => parseBvh(text),
    },
    {
      name: 'parse axis-neuron/test.bvh, frames',
      items: clip.frames,
      unit: 'frames',
      run: () => parseBvh(text),
    },
    {
      name: `write axis-neuron/test.bvh (${writtenMb.toFixed(2)} MB out)`,
      items: writtenMb,
      unit: 'MB',
      run: () => writeBvh(clip),
    },
    {
      name: 'write axis-neuron/test.bvh, frames',
      items: clip.frames,
      unit: 'frames',
      run: () => writeBvh(clip),
    },
    {
      name: `writeBvhBytes axis-neuron/test.bvh (${writtenMb.toFixed(2)} MB out)`,
      items: writtenMb,
      unit: 'MB',
      target: 200,
      run: () => writeBvhBytes(clip),
    },
  );
}

if (existsSync(SHARED)) {
  const files = readdirSync(SHARED, { recursive: true })
    .filter((f) => String(f).endsWith('.bvh'))
    .sort()
    .map((f) => readFileSync(join(SHARED, String(f))));
  const mb = files.reduce((sum, b) => sum + b.length, 0) / 1e6;
  const clips = files.map((b) => parseBvhBytes(b).clip);
  const writtenMb = clips.reduce((sum, c) => sum + writeBvhBytes(c).length, 0) / 1e6;
  tasks.push(
    {
      name: `parseBvhBytes the ${files.length} shared captures (${mb.toFixed(2)} MB)`,
      items: mb,
      unit: 'MB',
      target: 250,
      run: () => {
        for (const b of files) parseBvhBytes(b);
      },
    },
    {
      name: `writeBvhBytes the ${files.length} shared captures (${writtenMb.toFixed(2)} MB out)`,
      items: writtenMb,
      unit: 'MB',
      target: 200,
      run: () => {
        for (const c of clips) writeBvhBytes(c);
      },
    },
  );
}

// the generated file is large (~220 MB of text): one timed run each after warm-up
const FRAMES = 100_000;
const JOINTS = 70;
let big;
const bigState = () => {
  if (big === undefined) {
    const text = generate(FRAMES, JOINTS);
    big = { text, mb: text.length / 1e6 };
  }
  return big;
};
/** The generated file's clip and the size of its text, for the write rows. */
const writeState = () => {
  const s = bigState();
  if (s.clip === undefined) s.clip = parseBvh(s.text);
  if (s.writtenMb === undefined) s.writtenMb = writeBvhBytes(s.clip).length / 1e6;
  return s;
};
/** A row of BVH text written from the generated clip, in MB/s against the 200 MB/s target. */
const writeRow = (name, run) => ({
  name,
  items: 0,
  unit: 'MB',
  target: 200,
  iterations: 1,
  time: 0,
  setup() {
    const s = writeState();
    this.items = s.writtenMb;
    return s;
  },
  run,
});
tasks.push(
  {
    name: `parse generated ${FRAMES} frames x ${JOINTS} joints`,
    items: 0,
    unit: 'MB',
    target: 250,
    iterations: 1,
    time: 0,
    setup() {
      const s = bigState();
      this.items = s.mb;
      return s;
    },
    run: (s) => {
      s.clip = parseBvh(s.text);
    },
  },
  {
    name: `parse generated ${FRAMES} x ${JOINTS}, frames`,
    items: FRAMES,
    unit: 'frames',
    iterations: 1,
    time: 0,
    setup: bigState,
    run: (s) => {
      s.clip = parseBvh(s.text);
    },
  },
  {
    name: `parseBvhBytes generated ${FRAMES} frames x ${JOINTS} joints`,
    items: 0,
    unit: 'MB',
    target: 250,
    iterations: 1,
    time: 0,
    setup() {
      const s = bigState();
      if (s.bytes === undefined) s.bytes = new TextEncoder().encode(s.text);
      this.items = s.bytes.length / 1e6;
      return s;
    },
    run: (s) => {
      s.clip = parseBvhBytes(s.bytes).clip;
    },
  },
  writeRow(`writeBvhBytes generated ${FRAMES} frames x ${JOINTS} joints`, (s) => writeBvhBytes(s.clip)),
  // how files are written (writeBvhFile, the CLI): chunks of about 1 MiB, each written before the next, so
  // one buffer's pages are touched instead of the whole text's (first touches cost 2-8 us per 4 kB page here)
  writeRow(`writeBvhChunks generated ${FRAMES} frames x ${JOINTS} joints (chunks drained)`, (s) => {
    let n = 0;
    for (const chunk of writeBvhChunks(s.clip)) n += chunk.length;
    return n;
  }),
  {
    name: `write generated ${FRAMES} x ${JOINTS}, frames`,
    items: FRAMES,
    unit: 'frames',
    iterations: 1,
    time: 0,
    setup() {
      const s = bigState();
      if (s.clip === undefined) s.clip = parseBvh(s.text);
      return s;
    },
    run: (s) => writeBvh(s.clip),
  },
);

export default { name: 'bvh', tasks };
