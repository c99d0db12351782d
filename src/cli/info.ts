import type { GltfInfo } from '../node/gltf-task.js';
import type { ClipAnalysis } from '../ops/analysis/analyze-clip.js';
import { standardRate } from '../ops/analysis/rate.js';
import { BATCH_OPTIONS, COMMON_OPTIONS, type Command } from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { escapeControl, escapeLines } from './text.js';

const DEG = 180 / Math.PI;

/** `rotsig info`: what is in a capture and what is wrong with it. */
export const info: Command = {
  name: 'info',
  summary: 'show skeleton, rate, discontinuities, speeds and frequency content of BVH and glTF files',
  usage: 'rotsig info <file|dir>... [--json]',
  description: `
Reads each file and reports: the skeleton (joints, channels, rotation orders), the frame rate as
written and the rational rate it most likely stands for, frames and duration, which position-channel
semantics the data suggests, the discontinuities (quaternion sign flips, i.e. Euler wraps in the file,
and jumps faster than a plausible 25 rad/s), the peak angular speed per joint (jumps excluded; --json has both) and where it happens, and
the frequency below which 99% of the rotation energy lies with the lowest sample rate that keeps it.
On a .gltf or .glb file it lists each animation: channels per node with their interpolation (step,
linear, cubicspline), key counts, time span, key spacing (uniform with its rate, or not) and quaternion
sign flips between consecutive keys. The report goes to stdout; --json prints the same as JSON (one object per file, an array for several)
in SI units: angles in radians and speeds in rad/s where the text shows degrees and deg/s. Each object
has a units field naming the unit of every number; the README section on info --json lists the fields.`,
  examples: [
    'rotsig info samples/01_01.bvh',
    'rotsig info Fox.glb',
    'rotsig info captures/ --json > report.json',
    "rotsig info captures/ --glob '**/walk*.bvh' --json | jq '.[].rate.guessHz'",
  ],
  inputs: CLIP_IO,
  outputs: ['text'],
  options: {
    json: { type: 'boolean', description: 'print the report as JSON on stdout' },
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'info',
      steps: [],
      emit: { kind: 'info' },
      reportsWarnings: true,
      outputs: 'none',
      report(results, out) {
        const ok = results.filter((r) => r.ok);
        if (parsed.values.json === true) {
          const items = ok.map((r) => ({
            file: r.input,
            units: (r.data as GltfInfo).format === 'gltf' ? GLTF_INFO_JSON_UNITS : INFO_JSON_UNITS,
            ...(r.data as ClipAnalysis),
            warnings: r.warnings,
          }));
          out.stdout.write(
            `${JSON.stringify(results.length === 1 && items.length === 1 ? items[0] : items, null, 2)}\n`,
          );
          return;
        }
        for (const r of ok)
          out.stdout.write(
            (r.data as GltfInfo).format === 'gltf'
              ? formatGltfInfo(r.input, r.data as GltfInfo)
              : formatInfo(r.input, r.data as ClipAnalysis, r.warnings),
          );
      },
    }),
};

/**
 * The human-readable `info` report of a glTF file: animations, channels per node, interpolation, keys,
 * spacing, sign flips. Names from the file are escaped for the terminal (see `escapeControl`).
 */
export function formatGltfInfo(file: string, info: GltfInfo): string {
  const lines: string[] = [escapeControl(file)];
  for (const w of info.warnings) lines.push(`  warning    ${escapeControl(w)}`);
  for (const a of info.animations) {
    const modes = [...new Set(a.channels.map((c) => c.interpolation))].join(', ') || 'none';
    const flips = a.channels.reduce((n, c) => n + c.signFlips, 0);
    lines.push(
      `  animation ${a.index}${a.name ? ` '${escapeControl(a.name)}'` : ''}: ${a.channels.length} channels on ${a.joints} joints, ${round(a.duration, 4)} s, ${modes}, ${flips ? `${flips} quaternion sign flips` : 'no sign flips'}`,
    );
    const nodes = new Map<string, typeof a.channels>();
    for (const c of a.channels) {
      const node = escapeControl(c.node);
      nodes.set(node, [...(nodes.get(node) ?? []), c]);
    }
    const w = Math.max(4, ...[...nodes.keys()].map((n) => n.length));
    for (const [node, channels] of nodes) {
      const parts = channels.map(
        (c) =>
          `${c.path} ${c.interpolation} ${c.keys} keys ${round(c.start, 4)}-${round(c.end, 4)} s ${c.spacing}${c.signFlips ? `, ${c.signFlips} flips` : ''}`,
      );
      lines.push(`    ${node.padEnd(w)}  ${parts.join('; ')}`);
    }
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}

/**
 * The human-readable `info` report of one file. Every text that comes from the file or its name (joint
 * names, the Frame Time as written, warnings) is escaped for the terminal (see `escapeControl`), before the
 * columns are padded so that they still line up; `--json` carries the exact text.
 */
export function formatInfo(
  file: string,
  analysis: ClipAnalysis,
  warnings: { message: string; line?: number }[],
): string {
  const a: ClipAnalysis = {
    ...analysis,
    perJoint: analysis.perJoint.map((j) => ({
      ...j,
      name: escapeControl(j.name),
      order: escapeControl(j.order),
      channels: j.channels.map(escapeControl),
    })),
  };
  const lines: string[] = [escapeControl(file)];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(11)}${text}`);
  const roots = a.perJoint.filter((j) => j.parent < 0);
  const orders = new Map<string, number>();
  for (const j of a.perJoint)
    if (j.channels.some((c) => c.endsWith('rotation'))) orders.set(j.order, (orders.get(j.order) ?? 0) + 1);
  row(
    'skeleton',
    `${a.joints} joints, ${a.channels} channels; ${roots.map((r) => `root ${r.name}: ${r.channels.join(' ') || 'no channels'}`).join('; ')}`,
  );
  row('orders', [...orders].map(([o, n]) => `${o} x${n}`).join(', ') || 'no rotation channels');
  const r = a.rate;
  const written = escapeControl(r.frameTimeText ?? String(r.frameTime));
  // the rate the clip is read at (one answer, as every command reads it), then the frame time as written
  const standard = standardRate(r.frameTime, r.frameTimeText);
  const simple = (hz: number) =>
    r.denominator === 1 || r.denominator === null
      ? `${round(hz, 3)}`
      : `${r.numerator}/${r.denominator} = ${round(hz, 3)}`;
  row(
    'rate',
    standard !== null
      ? `${simple(standard)} Hz (Frame Time ${written} s${Math.abs(1 / standard - r.frameTime) > 1e-12 * r.frameTime ? `; as written ${round(r.hz, 4)} Hz` : ''})`
      : `${round(r.hz, 3)} Hz (Frame Time ${written} s; ${r.guessHz === null ? 'no simple rate fits' : `${simple(r.guessHz)} Hz is too far to be meant`})`,
  );
  row('frames', `${a.frames} (${round(a.duration, 3)} s)`);
  row(
    'positions',
    a.positions.guess === a.positions.readAs || a.positions.guess === 'either' || a.positions.guess === 'none'
      ? `read as '${a.positions.readAs}'; data suggests '${a.positions.guess}'${sure(a)}: ${escapeControl(a.positions.reason)}`
      : `WARNING: read as '${a.positions.readAs}' but the data suggests '${a.positions.guess}'${sure(a)} (add --position-mode ${a.positions.guess} to every command): ${escapeControl(a.positions.reason)}`,
  );
  for (const w of warnings) row('warning', `${escapeControl(w.message)}${w.line ? ` (line ${w.line})` : ''}`);
  const d = a.discontinuities;
  const flipJoints = a.perJoint.filter((j) => j.signFlips > 0);
  const jumpJoints = a.perJoint.filter((j) => j.jumps > 0);
  row(
    'flips',
    d.signFlips
      ? `${d.signFlips} quaternion sign flips (Euler wraps or branch switches in the file) in ${plural(flipJoints.length, 'joint')}: ${top3(flipJoints, (j) => `${j.name} ${j.signFlips}`)}`
      : 'none',
  );
  row(
    'jumps',
    d.jumps
      ? `${d.jumps} steps above ${Math.round(d.jumpThreshold * DEG)} deg/frame in ${plural(jumpJoints.length, 'joint')}; worst: ${[
          ...jumpJoints.flatMap((j) => j.worst.filter((w) => w.kind === 'jump').map((w) => ({ j, w }))),
        ]
          .sort((x, y) => y.w.angle - x.w.angle)
          .slice(0, 3)
          .map(({ j, w }) => `${j.name} ${Math.round(w.angle * DEG)} deg @${w.frame}`)
          .join(', ')}`
      : 'none',
  );
  if (a.leadingJump) {
    const l = a.leadingJump;
    row(
      'start',
      `${l.frame > 1 ? `frames 0-${l.frame - 1} precede` : 'frame 0 precedes'} a jump in ${plural(l.joints, 'joint')} (${l.joint} ${Math.round(l.angle * DEG)} deg @${l.frame}): a T-pose or cut-in; trim it with 'rotsig subclip --start ${l.frame}' (smooth, resample and process split there by default, --segments jumps)`,
    );
  }
  if (a.spectrum)
    row(
      'spectrum',
      `${round(a.spectrum.share * 100, 2)}% of the rotation energy below ${round(a.spectrum.energyFrequency, 2)} Hz; lowest safe rate ${round(a.spectrum.safeRate, 2)} Hz`,
    );
  const moving = a.perJoint.filter((j) => j.motionPeakSpeed > 0);
  const top = [...moving].sort((x, y) => y.motionPeakSpeed - x.motionPeakSpeed).slice(0, 5);
  row(
    'peak speed', // jumps excluded: they are listed above
    top.length
      ? top
          .map((j) => `${j.name} ${Math.round(j.motionPeakSpeed * DEG)} deg/s @${j.motionPeakFrame}`)
          .join(', ')
      : 'no rotation changes',
  );
  lines.push('  joints:');
  const w = Math.max(5, ...a.perJoint.map((j) => j.name.length));
  lines.push(
    `    ${'name'.padEnd(w)}  ${'order'.padEnd(5)}  ${'chan'.padStart(4)}  ${'peak deg/s'.padStart(10)}  ${'@frame'.padStart(6)}  ${'flips'.padStart(5)}  ${'jumps'.padStart(5)}  worst (deg@frame)`,
  );
  for (const j of a.perJoint) {
    lines.push(
      `    ${j.name.padEnd(w)}  ${j.order.padEnd(5)}  ${String(j.channels.length).padStart(4)}  ${String(Math.round(j.motionPeakSpeed * DEG)).padStart(10)}  ${String(j.motionPeakFrame).padStart(6)}  ${String(j.signFlips).padStart(5)}  ${String(j.jumps).padStart(5)}  ${j.worst.map((d) => `${d.kind === 'jump' ? '' : 'flip '}${Math.round(d.angle * DEG)}@${d.frame}`).join(' ')}`.trimEnd(),
    );
  }
  lines.push('');
  // The last guard: no control character from anywhere (a reason text quoting the file) reaches the terminal.
  return escapeLines(`${lines.join('\n')}\n`);
}

function sure(a: ClipAnalysis): string {
  return a.positions.confidence === 'none' ? '' : ` (${a.positions.confidence} confidence)`;
}

/**
 * The units of every number in `info --json` (the text report shows degrees and deg/s instead). Written
 * into each file's JSON object as `units`, keyed by the fields they apply to.
 */
export const INFO_JSON_UNITS = {
  duration: 's',
  'rate.frameTime': 's',
  'rate.hz': 'Hz',
  'rate.guessHz': 'Hz',
  'rate.tolerance': 's',
  'discontinuities.jumpThreshold': 'rad (per frame)',
  'spectrum.energyFrequency': 'Hz',
  'spectrum.safeRate': 'Hz',
  'spectrum.peakDb': 'dB re 1 rad',
  'perJoint[].peakSpeed': 'rad/s',
  'perJoint[].motionPeakSpeed': 'rad/s',
  'perJoint[].worst[].angle': 'rad',
  'perJoint[].worst[].frame': 'frame index (0-based)',
  'leadingJump.angle': 'rad',
  'leadingJump.frame': 'frame index (0-based)',
} as const;

/** The units of the numbers in `info --json` on a glTF file (its `units` field). */
export const GLTF_INFO_JSON_UNITS = {
  'animations[].duration': 's',
  'animations[].channels[].start': 's',
  'animations[].channels[].end': 's',
  'animations[].channels[].keys': 'count',
} as const;

function top3<T>(items: T[], label: (t: T) => string): string {
  return items.slice(0, 3).map(label).join(', ') + (items.length > 3 ? ', ...' : '');
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
