// The work of `rotsig clean` (loaded only when the command runs, so the CLI's main thread stays light).
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { AMASS_RATE_KEYS, type AmassSource, amassToClipWithReport, clipToAmass } from '../io/amass/amass.js';
import { writeBvhChunks } from '../io/bvh/write.js';
import { listNpz, type NpzArrays, parseNpz, writeNpz } from '../io/npz.js';
import {
  clipToSmplParams,
  parseSmplJson,
  smplParamsToClipWithReport,
  writeSmplJson,
} from '../io/smpl-params.js';
import { type AtomicContent, writeFileAtomic } from '../node/atomic.js';
import { collectInputs } from '../node/files.js';
import { readBvhFile } from '../node/read.js';
import {
  CLEAN_CLIP_DEFAULTS,
  type CleanClipOptions,
  type CleanReport,
  cleanClipWithReport,
} from '../ops/clean/clean-clip.js';
import type { Clip } from '../series/clip.js';
import { type CliIo, numberOption, oneOf, type Parsed, UsageError } from './command.js';
import { escapeControl as shown } from './text.js';

/** Files `rotsig clean` takes from directories by default. */
export const CLEAN_GLOB = '**/*.{bvh,npz,json}';

interface Loaded {
  clip: Clip;
  warnings: string[];
  write(clip: Clip): AtomicContent;
  /** Units per metre of the file's lengths, for the Accel figures. */
  unitsPerMeter: number;
}

/** Reads a clip file: BVH, AMASS `.npz`, or SMPL parameters (`.npz` or `.json`) of a pose estimator. */
function load(path: string, rate: number | undefined): Loaded {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') {
    const { clip, warnings } = smplParamsToClipWithReport(parseSmplJson(readFileSync(path, 'utf8')), {
      rate: rate ?? 'file',
    });
    return {
      clip,
      warnings: warnings.map((w) => w.message),
      write: (c) => writeSmplJson(clipToSmplParams(c)),
      unitsPerMeter: 1,
    };
  }
  if (ext === '.npz') {
    const bytes = readFileSync(path);
    const arrays: NpzArrays = parseNpz(bytes);
    const compression = listNpz(bytes).some((m) => m.compression === 'deflate') ? 'deflate' : 'stored';
    if (AMASS_RATE_KEYS.some((k) => arrays[k] !== undefined) && arrays.poses !== undefined) {
      const { clip, warnings } = amassToClipWithReport(arrays, rate === undefined ? {} : { rate });
      (clip.source as AmassSource).compression = compression;
      return {
        clip,
        warnings: warnings.map((w) => w.message),
        write: (c) => writeNpz(clipToAmass(c), { compression }),
        unitsPerMeter: 1,
      };
    }
    const { clip, warnings } = smplParamsToClipWithReport(arrays, { rate: rate ?? 'file' });
    return {
      clip,
      warnings: warnings.map((w) => w.message),
      write: (c) => writeNpz(clipToSmplParams(c), { compression }),
      unitsPerMeter: 1,
    };
  }
  if (ext !== '.bvh') throw new Error(`unsupported file type '${ext}' (clean reads .bvh, .npz and .json)`);
  const parsed = readBvhFile(path);
  return {
    clip: parsed.clip,
    warnings: parsed.warnings.map((w) => w.message),
    write: (c) => writeBvhChunks(c),
    unitsPerMeter: CLEAN_CLIP_DEFAULTS.unitsPerMeter,
  };
}

function options(parsed: Parsed): CleanClipOptions {
  const v = parsed.values;
  const text = (name: string) => v[name] as string | undefined;
  const o: CleanClipOptions = {};
  const cutoff = text('cutoff');
  if (cutoff !== undefined && cutoff !== 'auto')
    o.cutoff = numberOption(cutoff, '--cutoff', { min: 0, aboveMin: true, max: 1e6 });
  o.filter = oneOf(text('filter'), 'filter', ['gaussian', 'one-euro'] as const, 'gaussian');
  if (v.beta !== undefined) {
    if (o.filter !== 'one-euro') throw new UsageError('--beta applies to --filter one-euro only');
    o.beta = numberOption(text('beta'), '--beta', { min: 0, max: 1e6 });
  }
  o.spikes = oneOf(text('spikes'), 'spikes', ['replace', 'keep'] as const, 'replace');
  if (v['spike-spread'] !== undefined)
    o.spikeSpread = numberOption(text('spike-spread'), '--spike-spread', { min: 0, max: 1e6 });
  if (v['units-per-meter'] !== undefined)
    o.unitsPerMeter = numberOption(text('units-per-meter'), '--units-per-meter', {
      min: 0,
      aboveMin: true,
      max: 1e9,
    });
  return o;
}

function describe(r: CleanReport): string {
  const smoothing =
    r.warnings.length > 0
      ? 'not smoothed'
      : r.sigma > 0
        ? `sigma ${r.sigma.toPrecision(3)} frames (cutoff ${r.cutoff.toPrecision(3)} Hz, ${r.cutoffSource === 'spectrum' ? 'from the spectrum' : 'given'})`
        : r.cutoff > 0 && r.jointSigmas.every((s) => s === 0)
          ? `cutoff ${r.cutoff.toPrecision(3)} Hz`
          : 'not smoothed';
  return `${r.signFlips} sign flips removed, ${r.spikes} spikes replaced, ${smoothing}; Accel ${r.accelBefore.toPrecision(3)} -> ${r.accelAfter.toPrecision(3)} mm/frame²`;
}

/** Runs `rotsig clean` on the parsed command line; returns the exit code. */
export async function runClean(parsed: Parsed, io: CliIo): Promise<number> {
  const v = parsed.values;
  const quiet = v.quiet === true;
  const output = v.output as string | undefined;
  const inPlace = v['in-place'] === true;
  if (output === undefined && !inPlace)
    throw new UsageError('say where to write: -o <file|dir> or --in-place');
  if (output !== undefined && inPlace) throw new UsageError('-o and --in-place exclude each other');
  if (output === '') throw new UsageError('-o needs a path');
  const cleanOptions = options(parsed);
  const rate =
    v.rate === undefined
      ? undefined
      : numberOption(v.rate as string, '--rate', { min: 0, aboveMin: true, max: 1e6 });
  const { files, missing } = collectInputs(parsed.positionals, {
    glob: (v.glob as string | undefined) ?? CLEAN_GLOB,
  });
  for (const m of missing) io.stderr.write(`rotsig clean: ${shown(m.path)}: no such file or directory\n`);
  if (files.length === 0) {
    io.stderr.write('rotsig clean: no input files\n');
    return 1;
  }
  let toDirectory = false;
  if (output !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(output).isDirectory();
    } catch {
      isDir = output.endsWith('/');
    }
    toDirectory = isDir || files.length > 1 || !files[0].direct;
  }
  const summary: { input: string; output: string; ok: boolean; report?: CleanReport; error?: string }[] = [];
  let failed = missing.length > 0;
  for (const file of files) {
    const target = inPlace
      ? file.path
      : toDirectory
        ? join(output as string, file.relative)
        : (output as string);
    try {
      const loaded = load(file.path, rate);
      const { clip, report } = cleanClipWithReport(loaded.clip, {
        unitsPerMeter: loaded.unitsPerMeter,
        ...cleanOptions,
      });
      if (toDirectory) mkdirSync(dirname(target), { recursive: true });
      writeFileAtomic(target, loaded.write(clip));
      summary.push({ input: file.path, output: target, ok: true, report });
      if (!quiet) {
        for (const w of loaded.warnings) io.stderr.write(`${shown(file.path)}: warning: ${shown(w)}\n`);
        for (const w of report.warnings)
          io.stderr.write(`${shown(file.path)}: warning: ${w.code}: ${shown(w.message)}\n`);
        io.stderr.write(`${shown(file.path)}: ${describe(report)}\n`);
      }
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      summary.push({ input: file.path, output: target, ok: false, error: message });
      io.stderr.write(`${shown(file.path)}: ${shown(message)}\n`);
    }
  }
  if (v.json === true)
    io.stdout.write(
      `${JSON.stringify(
        summary.map((s) => ({
          ...s,
          ...(s.report ? { report: { ...s.report, jointSigmas: Array.from(s.report.jointSigmas) } } : {}),
        })),
      )}\n`,
    );
  return failed ? 1 : 0;
}
