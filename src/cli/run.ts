// The shared driver of file commands: inputs -> tasks -> batch -> messages, summary and exit code.

import { dirname } from 'node:path';
import { FileError, OptionError } from '../errors.js';
import { removeStaleTemporaryFiles } from '../node/atomic.js';
import { type BatchSummary, defaultJobs, runBatch, runsInline } from '../node/batch.js';
import { DEFAULT_CLIP_GLOB } from '../node/extensions.js';
import { collectInputs, type InputFile, type MissingInput, type SkippedInput } from '../node/files.js';
import { PlanError, planOutputs } from '../node/plan.js';
import { ProgressBar } from '../node/progress.js';
import { type SpooledInput, spoolStdin } from '../node/stdin.js';
import { type FileTask, formatTaskError, type TaskResult } from '../node/task.js';
import type { ClipStep, Emit } from '../pipeline/steps.js';
import { type CliIo, numberOption, oneOf, type Parsed, positiveInteger, UsageError } from './command.js';
import { MAX_JOBS } from './shared.js';
import { escapeLines, escapeControl as shown } from './text.js';

/** How a command maps its inputs to tasks. */
export interface FileCommandPlan {
  command: string;
  steps: ClipStep[];
  emit: Emit;
  /** `'file'`: every input writes an output (-o or --in-place required); `'none'`: no files written. */
  outputs: 'file' | 'none';
  /** Extension of outputs written into a directory. */
  extension?: string;
  /** Input extensions written in their own format, keeping their name (reduce: glTF stays .gltf or .glb). */
  keep?: readonly string[];
  /** True when the report shows each file's reader warnings itself (`info`), so they are not repeated. */
  reportsWarnings?: boolean;
  /** Called with every result in input order after the batch (to print reports on stdout). */
  report?: (results: TaskResult[], io: CliIo) => void;
}

/**
 * Runs a file command; returns its exit code (0 ok, 1 some files failed). Throws UsageError on mistakes.
 * An input `-` is standard input (the only input then), read whole and spooled to a temporary file.
 */
export async function runFileCommand(parsed: Parsed, io: CliIo, plan: FileCommandPlan): Promise<number> {
  if (!parsed.positionals.includes('-')) return runFiles(parsed, io, plan);
  if (parsed.positionals.length !== 1)
    throw new UsageError('- (standard input) must be the only input when it is given');
  if (parsed.values['in-place'] === true) throw new UsageError('--in-place cannot write standard input');
  let input: SpooledInput;
  try {
    input = spoolStdin();
  } catch (error) {
    if (error instanceof FileError) {
      io.stderr.write(`error: -: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  // messages name the input as the user did, '-', not by the spooled copy's path
  const named = (text: string) => text.split(input.path).join('-');
  const shownIo: CliIo = {
    stdout: {
      write: (chunk: string | Uint8Array) =>
        io.stdout.write(typeof chunk === 'string' ? named(chunk) : chunk),
      isTTY: io.stdout.isTTY,
    },
    stderr: {
      write: (chunk: string) => io.stderr.write(named(chunk)),
      isTTY: io.stderr.isTTY,
      columns: io.stderr.columns,
    },
  };
  try {
    return await runFiles({ ...parsed, positionals: [input.path] }, shownIo, plan);
  } finally {
    input.remove();
  }
}

async function runFiles(parsed: Parsed, io: CliIo, plan: FileCommandPlan): Promise<number> {
  const v = parsed.values;
  const quiet = v.quiet === true;
  const verbose = v.verbose === true && !quiet;
  if (parsed.positionals.length === 0) throw new UsageError('missing input file or directory');
  if (parsed.positionals.includes('')) throw new UsageError('an input argument is empty');
  const jobs = positiveInteger(v.jobs as string | undefined, 'jobs', defaultJobs(), MAX_JOBS);
  const positionMode = oneOf(
    v['position-mode'] as string | undefined,
    'position-mode',
    ['replace', 'add'] as const,
    'replace',
  );
  const glob = v.glob as string | undefined;
  if (glob === '') throw new UsageError("--glob needs a pattern, such as '**/*.bvh'");
  let files: InputFile[];
  let missing: MissingInput[];
  let skipped: SkippedInput[];
  let empty: string[];
  try {
    ({ files, missing, skipped, empty } = collectInputs(parsed.positionals, { glob }));
  } catch (error) {
    // A glob that is not a pattern: the user's mistake, not a file's.
    if (error instanceof OptionError) throw new UsageError(`--${error.message}`);
    throw error;
  }
  // glTF: which animation to read; BVH written as glTF: units to metres
  const formatOptions = {
    ...(v.repair === true ? { repair: true } : {}),
    ...(typeof v.animation === 'string' ? { animation: v.animation } : {}),
    ...(typeof v.scale === 'string'
      ? { scale: numberOption(v.scale, '--scale', { min: 0, aboveMin: true, max: 1e6, tiny: 1e-9 }) }
      : {}),
  };
  // where smoothing and resampling split each file is named only in the --json summary
  const splits = v.json === true && plan.outputs === 'file' ? {} : { splits: false };
  let tasks: FileTask[];
  try {
    tasks =
      plan.outputs === 'file'
        ? planOutputs(files, {
            output: v.output as string | undefined,
            inPlace: v['in-place'] === true,
            // motion files are written in the input's format (an -o file's extension may name another)
            extension: plan.emit.kind === 'bvh' || plan.emit.kind === 'clip' ? undefined : plan.extension,
            ...(plan.keep ? { keep: plan.keep } : {}),
            inputArguments: parsed.positionals.length,
          }).map((p) => ({
            input: p.input,
            output: p.output,
            steps: plan.steps,
            emit: plan.emit,
            positionMode,
            ...formatOptions,
            ...(v.template !== undefined ? { template: v.template as string } : {}),
            ...splits,
          }))
        : files.map((f) => ({
            input: f.path,
            output: null,
            steps: plan.steps,
            emit: plan.emit,
            positionMode,
            ...formatOptions,
            ...splits,
          }));
  } catch (error) {
    if (error instanceof PlanError) throw new UsageError(error.message);
    throw error;
  }
  if (v.json === true && plan.outputs === 'file' && v.output === '-')
    throw new UsageError('--json and -o - would both write to stdout; use one');
  // Every message line passes through here: fields from file names and file text are escaped where they
  // are put in (shown), and the line once more, so nothing reaches the terminal as a control sequence.
  const say = (line: string) => io.stderr.write(`${escapeLines(line)}\n`);
  for (const m of missing) say(`error: ${shown(m.path)}: ${shown(m.message)}`);
  const globText = glob ? `--glob '${shown(glob)}'` : `the default glob '${DEFAULT_CLIP_GLOB}'`;
  if (!quiet) for (const s of skipped) say(`warning: ${shown(s.path)}: skipped: ${shown(s.reason)}`);
  if (tasks.length === 0 || (missing.length > 0 && v['fail-fast'] === true)) {
    if (missing.length === 0)
      say(
        `error: ${empty.length ? `no file in ${empty.map((d) => `directory ${shown(d)}`).join(', ')} matched ${globText}` : `no input files matched${glob ? ` --glob '${shown(glob)}'` : ` (default glob ${DEFAULT_CLIP_GLOB})`}`}${skipped.length ? ` (${skipped.length} skipped, listed above)` : ''}`,
      );
    return 1;
  }
  if (!quiet) for (const d of empty) say(`warning: no file in directory ${shown(d)} matched ${globText}`);
  // Temporary files of runs killed before they could clean up (SIGKILL, a power cut) are removed from the
  // directories this run writes to, and named, so that no stray file is left without a word.
  const outputDirs = tasks.flatMap((t) => (t.output && t.output !== '-' ? [dirname(t.output)] : []));
  const stale = removeStaleTemporaryFiles(outputDirs);
  if (stale.length > 0 && !quiet) {
    const byDir = new Map<string, Set<number>>();
    for (const f of stale) {
      const pids = byDir.get(dirname(f.path)) ?? new Set<number>();
      pids.add(f.pid);
      byDir.set(dirname(f.path), pids);
    }
    for (const [dir, pids] of byDir) {
      const n = stale.filter((f) => dirname(f.path) === dir).length;
      say(
        `note: removed ${n} temporary file${n === 1 ? '' : 's'} left in ${shown(dir)} by interrupted rotsig run${pids.size === 1 ? '' : 's'} (process ${[...pids].join(', ')})`,
      );
    }
  }
  const progress = new ProgressBar(tasks.length, io.stderr, !quiet);
  let warningCount = 0;
  const summary: BatchSummary = await runBatch(tasks, {
    jobs,
    failFast: v['fail-fast'] === true,
    handleSignals: true,
    // one small file, or small files at one job, run here: a worker would cost more to start than it gains
    inline: runsInline(tasks, jobs),
    onResult: (r) => {
      progress.tick(r.ok);
      warningCount += r.warnings.filter((w) => !isNote(w)).length;
      const message = (line: string) => progress.message(escapeLines(line));
      if (!r.ok && r.error) message(`error: ${taskMessage(r.input, r.error)}`);
      if (verbose) {
        for (const w of r.warnings) message(`${isNote(w) ? 'note' : 'warning'}: ${taskMessage(r.input, w)}`);
        if (r.ok)
          message(
            `${shown(r.input)}${r.output && r.output !== '-' ? ` -> ${shown(r.output)}` : ''}: ${countsText(r, 'verbose')}, ${r.ms.toFixed(0)} ms`,
          );
      }
    },
  });
  progress.clear();
  const done = summary.results.filter((r): r is TaskResult => r !== undefined);
  for (const r of done) if (r.stdout !== undefined) io.stdout.write(r.stdout);
  plan.report?.(done, io);
  const failed = summary.failed + missing.length;
  if (v.json === true && plan.outputs === 'file') {
    io.stdout.write(
      `${JSON.stringify(
        {
          ok: summary.ok,
          failed,
          skipped: summary.skipped,
          seconds: summary.seconds,
          frames: summary.frames,
          files: [
            ...done.map((r) => ({
              input: r.input,
              output: r.output,
              ok: r.ok,
              frames: r.frames,
              joints: r.joints,
              outputFrames: r.outputFrames,
              ...(r.counts !== undefined ? { counts: r.counts } : {}),
              ...(r.rate !== undefined ? { rate: r.rate } : {}),
              ...(r.splits !== undefined ? { splits: r.splits } : {}),
              // reduce: per animation, the keys kept and the error reached (what stderr prints)
              ...(plan.command === 'reduce' && r.data !== undefined ? { reduce: r.data } : {}),
              // smooth on glTF: per animation, the largest change of the poses at the input's key times
              ...(plan.command === 'smooth' && r.data !== undefined ? { smooth: r.data } : {}),
              ms: r.ms,
              warnings: r.warnings,
              ...(r.error ? { error: r.error } : {}),
            })),
            ...missing.map((m) => ({ input: m.path, ok: false, error: { message: m.message } })),
          ],
        },
        null,
        2,
      )}\n`,
    );
  }
  if (!quiet && plan.command === 'resample' && done.length > 1)
    for (const line of rateSummary(done)) say(line);
  const total = tasks.length + missing.length;
  // One file: its reader warnings are the whole story (a file meant for another position mode exports
  // a skeleton far below the floor), so they are printed; a batch counts them and --verbose lists them.
  if (total === 1 && !quiet && !verbose && !plan.reportsWarnings) {
    for (const r of done)
      for (const w of r.warnings) say(`${isNote(w) ? 'note' : 'warning'}: ${taskMessage(r.input, w)}`);
  }
  const single = total === 1 && failed === 0 && !verbose;
  if (!quiet && single && plan.outputs === 'file' && done[0]?.output && done[0].output !== '-') {
    const r = done[0];
    say(`wrote ${shown(r.output!)} (${countsText(r, 'wrote')}, ${summary.seconds.toFixed(2)} s)`);
  } else if (!quiet && !single) {
    const parts = [`${summary.ok} ok`];
    if (failed) parts.push(`${failed} failed`);
    if (summary.skipped) parts.push(`${summary.skipped} skipped (--fail-fast)`);
    const fps = summary.seconds > 0 ? summary.frames / summary.seconds : 0;
    // the inputs' frames, or for keyed (glTF) inputs the keys of their longest tracks
    const keyed = done.filter((r) => r.counts?.input === 'keys').length;
    const rateUnit = keyed === 0 ? 'frames/s' : keyed === done.length ? 'keys/s' : 'frames and keys/s';
    const warn =
      warningCount && !verbose
        ? `, ${warningCount} warning${warningCount > 1 ? 's' : ''} (--verbose shows them)`
        : '';
    say(
      `rotsig ${plan.command}: ${total} file${total === 1 ? '' : 's'}, ${parts.join(', ')} in ${summary.seconds.toFixed(2)} s (${formatCount(fps)} ${rateUnit})${warn}`,
    );
  }
  // Options that cannot apply to a file (`--optimal` up-sampling) are a usage error, not a bad file.
  if (done.some((r) => r.error?.code === 'usage')) return 2;
  return failed > 0 ? 1 : 0;
}

/**
 * A task's sizes in words: frames of a uniform clip (`1064 frames x 23 joints`, `355 frames from 1064 x
 * 23 joints`), or, for a keyed clip (`r.counts`), the keys of its longest track, which are not frames
 * (`4501 keys in the longest track, from 4511; 31 joints`). `'verbose'` puts the input first.
 */
function countsText(r: TaskResult, form: 'wrote' | 'verbose'): string {
  const unit = r.counts ?? { input: 'frames', output: 'frames' };
  if (unit.input === 'frames' && unit.output === 'frames') {
    if (form === 'verbose')
      return `${r.frames} frames x ${r.joints} joints${r.outputFrames !== r.frames ? ` -> ${r.outputFrames} frames` : ''}`;
    return r.outputFrames === r.frames
      ? `${r.frames} frames x ${r.joints} joints`
      : `${r.outputFrames} frames from ${r.frames} x ${r.joints} joints`;
  }
  const size = (n: number, u: 'frames' | 'keys') =>
    u === 'keys' ? `${n} keys in the longest track` : `${n} frames`;
  if (form === 'verbose') {
    const out =
      r.outputFrames !== r.frames || unit.output !== unit.input
        ? ` -> ${size(r.outputFrames, unit.output)}`
        : '';
    return `${size(r.frames, unit.input)}, ${r.joints} joints${out}`;
  }
  if (r.outputFrames === r.frames && unit.output === unit.input)
    return `${size(r.frames, unit.input)}, ${r.joints} joints`;
  const from = unit.output === unit.input ? `${r.frames}` : size(r.frames, unit.input);
  return `${size(r.outputFrames, unit.output)}, from ${from}; ${r.joints} joints`;
}

/** {@link formatTaskError} with the path and the message escaped for the terminal. */
function taskMessage(path: string, error: { message: string; line?: number; column?: number }): string {
  return formatTaskError(shown(path), { ...error, message: shown(error.message) });
}

/** `1234567` -> `1.23M`, `12345` -> `12.3k`. */
export function formatCount(x: number): string {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e4) return `${(x / 1e3).toFixed(1)}k`;
  return Math.round(x).toString();
}

/** Warning codes of readers that concern a file's frame-rate metadata. */
const RATE_WARNINGS = new Set(['rate-missing', 'rate-disagree', 'rate-length']);

/**
 * Lines summarising the input rates of a batch: how many files at each rate, and which files' frame-rate
 * metadata was missing or disagreed (the rate used is in each warning).
 *
 * @example
 * const results = tasks.map((task) => runFileTask(task));
 * rateSummary(results); // ['input rates: 120 Hz x 3, 59.94 Hz x 1', 'rate metadata: 1 file disagreed ...', ...]
 */
export function rateSummary(results: readonly TaskResult[]): string[] {
  const counts = new Map<string, number>();
  for (const r of results) {
    if (!r.ok || r.rate === undefined) continue;
    const key = `${Number(r.rate.toFixed(3))}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return [];
  const rates = [...counts].sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]));
  const lines = [`input rates: ${rates.map(([hz, n]) => `${hz} Hz x ${n}`).join(', ')}`];
  const odd = results.filter((r) =>
    r.warnings.some((w) => w.code !== undefined && RATE_WARNINGS.has(w.code)),
  );
  if (odd.length > 0) {
    lines.push(`rate metadata missing or disagreeing in ${odd.length} file${odd.length === 1 ? '' : 's'}:`);
    for (const r of odd.slice(0, 20))
      for (const w of r.warnings)
        if (w.code !== undefined && RATE_WARNINGS.has(w.code)) lines.push(`  ${r.input}: ${w.message}`);
    if (odd.length > 20) lines.push(`  ... and ${odd.length - 20} more (--json lists every file's warnings)`);
  }
  return lines;
}

/** A reader's note (how it read the file, e.g. a Frame Time read as its standard rate): shown as `note:`, not counted as a warning. */
function isNote(w: { code?: string }): boolean {
  return w.code === 'frame-rate';
}
