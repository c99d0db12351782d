// The shared driver of file commands: inputs -> tasks -> batch -> messages, summary and exit code.

import { type BatchSummary, defaultJobs, runBatch } from '../node/batch.js';
import { collectInputs } from '../node/files.js';
import { PlanError, planOutputs } from '../node/plan.js';
import { ProgressBar } from '../node/progress.js';
import type { ClipStep, Emit } from '../node/steps.js';
import { type FileTask, formatTaskError, type TaskResult } from '../node/task.js';
import { type CliIo, oneOf, type Parsed, positiveInteger, positiveNumber, UsageError } from './command.js';

/** How a command maps its inputs to tasks. */
export interface FileCommandPlan {
  command: string;
  steps: ClipStep[];
  emit: Emit;
  /** `'file'`: every input writes an output (-o or --in-place required); `'none'`: no files written. */
  outputs: 'file' | 'none';
  /** Extension of outputs written into a directory. */
  extension?: string;
  /** Called with every result in input order after the batch (to print reports on stdout). */
  report?: (results: TaskResult[], io: CliIo) => void;
}

/** Runs a file command; returns its exit code (0 ok, 1 some files failed). Throws UsageError on mistakes. */
export async function runFileCommand(parsed: Parsed, io: CliIo, plan: FileCommandPlan): Promise<number> {
  const v = parsed.values;
  const quiet = v.quiet === true;
  const verbose = v.verbose === true && !quiet;
  if (parsed.positionals.length === 0) throw new UsageError('missing input file or directory');
  const jobs = positiveInteger(v.jobs as string | undefined, 'jobs', defaultJobs());
  const positionMode = oneOf(
    v['position-mode'] as string | undefined,
    'position-mode',
    ['replace', 'add'] as const,
    'replace',
  );
  const { files, missing } = collectInputs(parsed.positionals, { glob: v.glob as string | undefined });
  // glTF: which animation to read; BVH written as glTF: units to metres
  const formatOptions = {
    ...(typeof v.animation === 'string' ? { animation: v.animation } : {}),
    ...(typeof v.scale === 'string' ? { scale: positiveNumber(v.scale, 'scale') } : {}),
  };
  let tasks: FileTask[];
  try {
    tasks =
      plan.outputs === 'file'
        ? planOutputs(files, {
            output: v.output as string | undefined,
            inPlace: v['in-place'] === true,
            // motion files are written in the input's format (an -o file's extension may name another)
            extension: plan.emit.kind === 'bvh' ? undefined : plan.extension,
            inputArguments: parsed.positionals.length,
          }).map((p) => ({
            input: p.input,
            output: p.output,
            steps: plan.steps,
            emit: plan.emit,
            positionMode,
            ...formatOptions,
          }))
        : files.map((f) => ({
            input: f.path,
            output: null,
            steps: plan.steps,
            emit: plan.emit,
            positionMode,
            ...formatOptions,
          }));
  } catch (error) {
    if (error instanceof PlanError) throw new UsageError(error.message);
    throw error;
  }
  if (v.json === true && plan.outputs === 'file' && v.output === '-')
    throw new UsageError('--json and -o - would both write to stdout; use one');
  const say = (line: string) => io.stderr.write(`${line}\n`);
  for (const m of missing) say(`error: ${m.path}: ${m.message}`);
  if (tasks.length === 0 || (missing.length > 0 && v['fail-fast'] === true)) {
    if (missing.length === 0)
      say(
        `error: no input files matched${v.glob ? ` --glob '${v.glob}'` : ' (default glob **/*.{bvh,gltf,glb})'}`,
      );
    return 1;
  }
  const progress = new ProgressBar(tasks.length, io.stderr, !quiet);
  let warningCount = 0;
  const summary: BatchSummary = await runBatch(tasks, {
    jobs,
    failFast: v['fail-fast'] === true,
    handleSignals: true,
    inline: false,
    onResult: (r) => {
      progress.tick(r.ok);
      warningCount += r.warnings.length;
      if (!r.ok && r.error) progress.message(`error: ${formatTaskError(r.input, r.error)}`);
      if (verbose) {
        for (const w of r.warnings) progress.message(`warning: ${formatTaskError(r.input, w)}`);
        if (r.ok)
          progress.message(
            `${r.input}${r.output && r.output !== '-' ? ` -> ${r.output}` : ''}: ${r.frames} frames x ${r.joints} joints${r.outputFrames !== r.frames ? ` -> ${r.outputFrames} frames` : ''}, ${r.ms.toFixed(0)} ms`,
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
  const total = tasks.length + missing.length;
  const single = total === 1 && failed === 0 && !verbose;
  if (!quiet && single && plan.outputs === 'file' && done[0]?.output && done[0].output !== '-') {
    const r = done[0];
    const frames =
      r.outputFrames === r.frames ? `${r.frames} frames` : `${r.outputFrames} frames from ${r.frames}`;
    say(`wrote ${r.output} (${frames} x ${r.joints} joints, ${summary.seconds.toFixed(2)} s)`);
  } else if (!quiet && !single) {
    const parts = [`${summary.ok} ok`];
    if (failed) parts.push(`${failed} failed`);
    if (summary.skipped) parts.push(`${summary.skipped} skipped (--fail-fast)`);
    const fps = summary.seconds > 0 ? summary.frames / summary.seconds : 0;
    const warn =
      warningCount && !verbose
        ? `, ${warningCount} warning${warningCount > 1 ? 's' : ''} (--verbose shows them)`
        : '';
    say(
      `rotsig ${plan.command}: ${total} file${total === 1 ? '' : 's'}, ${parts.join(', ')} in ${summary.seconds.toFixed(2)} s (${formatCount(fps)} frames/s)${warn}`,
    );
  }
  return failed > 0 ? 1 : 0;
}

/** `1234567` -> `1.23M`, `12345` -> `12.3k`. */
export function formatCount(x: number): string {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e4) return `${(x / 1e3).toFixed(1)}k`;
  return Math.round(x).toString();
}
