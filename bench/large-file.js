// Peak memory of reading a BVH file larger than the longest JavaScript string: generates a file of about
// 2 GB (default) in the system's temporary directory, reads it with readBvhFile in a fresh process, and
// records the peak resident memory against the clip's float64 arrays and against the file's numbers as
// float64. Usage: npm run build && node bench/large-file.js [-- --gb 2 --channels 3]. Appends a record to
// bench/results/history.jsonl and removes the file.
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--read') {
  // the child: read the file and report
  const { readBvhFile } = await import('../dist/node/index.js');
  const t0 = performance.now();
  const { clip } = readBvhFile(process.argv[3]);
  const seconds = (performance.now() - t0) / 1000;
  const clipBytes =
    clip.rotations.data.byteLength + clip.translations.data.byteLength + (clip.scales?.data.byteLength ?? 0);
  process.stdout.write(
    `${JSON.stringify({
      seconds,
      frames: clip.frames,
      joints: clip.skeleton.names.length,
      clipBytes,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    })}\n`,
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: { gb: { type: 'string', default: '2' }, channels: { type: 'string', default: '3' } },
});
const targetBytes = Number(values.gb) * 1e9;
const jointChannels = Number(values.channels);
if (jointChannels !== 3 && jointChannels !== 6) throw new Error('--channels is 3 or 6');
const JOINTS = 70;

/** 70 joints: a root with 6 channels, 10 chains under it; every other joint 3 rotation channels or 6. */
function hierarchy() {
  const lines = ['HIERARCHY'];
  const open = (name, depth, root) => {
    const pad = '\t'.repeat(depth);
    const six = root || jointChannels === 6;
    lines.push(
      `${pad}${root ? 'ROOT' : 'JOINT'} ${name}`,
      `${pad}{`,
      `${pad}\tOFFSET 0 ${root ? 90 : 7.5} 1.25`,
    );
    lines.push(
      `${pad}\tCHANNELS ${six ? 6 : 3} ${six ? 'Xposition Yposition Zposition ' : ''}Zrotation Xrotation Yrotation`,
    );
  };
  open('Root', 0, true);
  let made = 1;
  for (let c = 0; made < JOINTS; c++) {
    let depth = 1;
    for (let k = 0; k < 7 && made < JOINTS; k++, made++, depth++) open(`chain${c}_${k}`, depth, false);
    const pad = '\t'.repeat(depth);
    lines.push(`${pad}End Site`, `${pad}{`, `${pad}\tOFFSET 0 1 0`, `${pad}}`);
    for (let d = depth - 1; d >= 1; d--) lines.push(`${'\t'.repeat(d)}}`);
  }
  lines.push('}');
  return lines;
}

const width = 6 + (JOINTS - 1) * jointChannels;
// 1,009 distinct rows of smooth motion, repeated: the reader's work per row is the same as for any rows
const ROW_POOL = 1009;
const rows = [];
for (let f = 0; f < ROW_POOL; f++) {
  const row = new Array(width);
  for (let c = 0; c < width; c++) row[c] = (60 * Math.sin(0.01 * f + c) + (c < 3 ? 100 : 0)).toFixed(6);
  rows.push(Buffer.from(`${row.join(' ')}\n`));
}
const rowBytes = rows.reduce((s, r) => s + r.length, 0) / ROW_POOL;
const frames = Math.round(targetBytes / rowBytes);

const work = mkdtempSync(join(tmpdir(), 'rotsig-large-'));
const path = join(work, 'large.bvh');
const fd = openSync(path, 'w');
let size = 0;
try {
  const head = Buffer.from(
    `${[...hierarchy(), 'MOTION', `Frames: ${frames}`, 'Frame Time: 0.008333'].join('\n')}\n`,
  );
  size += writeSync(fd, head);
  const batch = [];
  let batchBytes = 0;
  for (let f = 0; f < frames; f++) {
    const row = rows[f % ROW_POOL];
    batch.push(row);
    batchBytes += row.length;
    if (batchBytes > 8 << 20 || f === frames - 1) {
      const buffer = Buffer.concat(batch, batchBytes);
      size += writeSync(fd, buffer);
      batch.length = 0;
      batchBytes = 0;
    }
  }
} finally {
  closeSync(fd);
}
console.log(
  `generated ${(size / 1e9).toFixed(3)} GB: ${frames} frames x ${JOINTS} joints, ${width} numbers a row`,
);

const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--read', path], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
rmSync(work, { recursive: true, force: true });
if (child.status !== 0) throw new Error(`reading failed with ${child.status}`);
const r = JSON.parse(child.stdout.trim().split('\n').pop());
const valueBytes = r.frames * width * 8;
const row = {
  suite: 'large-file',
  task: `readBvhFile ${(size / 1e9).toFixed(2)} GB (${JOINTS} joints, ${jointChannels === 6 ? '6' : '3'} channels a joint)`,
  fileBytes: size,
  frames: r.frames,
  seconds: Number(r.seconds.toFixed(2)),
  megabytesPerSecond: Math.round(size / 1e6 / r.seconds),
  maxRssBytes: r.maxRssBytes,
  clipFloat64Bytes: r.clipBytes,
  valueFloat64Bytes: valueBytes,
  peakOverClip: Number((r.maxRssBytes / r.clipBytes).toFixed(3)),
  peakOverValues: Number((r.maxRssBytes / valueBytes).toFixed(3)),
};
console.log(
  `read in ${row.seconds} s (${row.megabytesPerSecond} MB/s); peak RSS ${(r.maxRssBytes / 1e9).toFixed(3)} GB = ${row.peakOverClip}x the clip's float64 arrays (${(r.clipBytes / 1e9).toFixed(3)} GB), ${row.peakOverValues}x the file's numbers as float64 (${(valueBytes / 1e9).toFixed(3)} GB)`,
);
mkdirSync(join(here, 'results'), { recursive: true });
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: Number(loadavg()[0].toFixed(2)), filter: 'large-file', results: [row] })}\n`,
);
