import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { removeTemporaryFiles } from './atomic.js';
import { WorkerPool } from './pool.js';
import { type FileTask, startResult, type TaskResult } from './task.js';

/** Options of {@link runBatch}. */
export interface BatchOptions {
  /** Number of worker threads; 1 runs every file on the calling thread. Default: the number of cores. */
  jobs?: number;
  /** Stop handing out files after the first failure (files already running finish). */
  failFast?: boolean;
  /**
   * Run the files on this thread instead of worker threads. Default: true when `jobs` is 1. A worker keeps
   * this thread free to answer Ctrl-C at once, even in the middle of a long file.
   */
  inline?: boolean;
  /** Called as each file finishes, in completion order. */
  onResult?: (result: TaskResult, index: number) => void;
  /**
   * On SIGINT/SIGTERM: stop the workers, remove this process's temporary files from the output
   * directories, and exit with 130/143. Finished outputs stay; no partial output is ever left.
   */
  handleSignals?: boolean;
}

/**
 * Default number of jobs: the cores available to this process.
 *
 * @example
 * runBatch(tasks, { jobs: defaultJobs() });
 */
export function defaultJobs(): number {
  return availableParallelism();
}

/**
 * Files a worker holds at once: the one it runs and the next. Measured on 200 files with 2 jobs: about 2 %
 * less wall time than holding 1, and no change with 1 job, where this thread has an idle core to wake on.
 */
const FILES_HELD_PER_WORKER = 2;

/**
 * Files a single worker holds. A file counts until its output is flushed (`fsync` and rename, on the
 * thread pool), which often outlasts the next file's work, so with 2 the worker sometimes had no file to
 * start; with 6 it always has the next one, and the first chunk of that one is read while it runs the
 * current (see `worker.ts`). With one worker there is no other to balance the files with. Measured on
 * 200 files (interleaved runs): 4 % less wall time from the depth alone, 8 % with the read-ahead.
 */
const FILES_HELD_BY_ONE_WORKER = 6;

/** Small files each worker starts with before the largest-first order (see {@link batchOrder}). */
const WARM_UP_FILES_PER_WORKER = 4;

/**
 * The order (task indices) in which {@link runBatch} hands out tasks without `failFast`: the smallest input
 * files first, 4 per worker and at most half of the batch, smallest first; then the others, largest first.
 * Ties keep the input order. Sizes come from `stat`; a missing file counts as empty (its task then reports
 * the error).
 *
 * @example
 * batchOrder(tasks, 2); // e.g. [7, 3, ...8 smallest..., 0, 5, ...the rest from the largest down]
 */
export function batchOrder(tasks: readonly FileTask[], jobs: number): number[] {
  const bySize = tasks
    .map((t, i) => ({ i, size: statSync(t.input, { throwIfNoEntry: false })?.size ?? 0 }))
    .sort((a, b) => b.size - a.size || a.i - b.i)
    .map((e) => e.i);
  const warm = Math.min(WARM_UP_FILES_PER_WORKER * jobs, Math.floor(bySize.length / 2));
  const smallest = bySize.splice(bySize.length - warm, warm).reverse();
  return smallest.concat(bySize);
}

/**
 * Inputs up to this size run on the calling thread (see {@link runsInline}): about 0.3 s of work, so a
 * Ctrl-C waits at most that long.
 */
const INLINE_MAX_BYTES = 64 << 20;

/**
 * Whether a batch is better run on the calling thread than in a worker: a single task, or a batch run at
 * one job, whose inputs are each at most 64 MiB. Starting a worker and loading the library in it costs
 * more than such a file's work (a 3.8 MB capture: about 40 ms of work), and one worker gains nothing over
 * this thread but a prompter Ctrl-C, which here waits at most for the file running; a larger file goes to
 * a worker so this thread can stop it at once.
 *
 * @example
 * runBatch(tasks, { jobs: 2, inline: runsInline(tasks, 2) });
 */
export function runsInline(tasks: readonly FileTask[], jobs = defaultJobs()): boolean {
  if (tasks.length !== 1 && Math.min(jobs, tasks.length) !== 1) return false;
  return tasks.every((t) => (statSync(t.input, { throwIfNoEntry: false })?.size ?? 0) <= INLINE_MAX_BYTES);
}

/** What {@link runBatch} returns: one result per task, in task order, and totals. */
export interface BatchSummary {
  results: (TaskResult | undefined)[];
  ok: number;
  failed: number;
  /** Tasks never started because of `failFast`. */
  skipped: number;
  /** Frames processed by the successful tasks (input frames). */
  frames: number;
  /** Frames × joints processed by the successful tasks. */
  frameJoints: number;
  seconds: number;
}

/**
 * Runs file tasks (read, process, write atomically) on a pool of worker threads, or on this thread when
 * `jobs` is 1 or there is a single task. A failing file is reported in its result and does not stop the
 * others unless `failFast` is set.
 *
 * @example
 * const summary = await runBatch(tasks, { jobs: 2, onResult: (r) => console.error(r.input, r.ok) });
 */
export async function runBatch(
  tasks: readonly FileTask[],
  options: BatchOptions = {},
): Promise<BatchSummary> {
  const started = performance.now();
  const jobs = Math.max(1, Math.min(options.jobs ?? defaultJobs(), tasks.length));
  const results: (TaskResult | undefined)[] = new Array(tasks.length).fill(undefined);
  let stop = false;
  const record = (result: TaskResult, index: number) => {
    results[index] = result;
    if (!result.ok && options.failFast) stop = true;
    options.onResult?.(result, index);
  };

  let pool: WorkerPool<FileTask, TaskResult> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    // Stop the workers first, so none creates a temporary file after the clean-up.
    const finish = () => {
      const dirs = tasks.flatMap((t) => (t.output && t.output !== '-' ? [dirname(t.output)] : []));
      removeTemporaryFiles(dirs);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    if (pool) pool.close().then(finish, finish);
    else finish();
  };
  if (options.handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    if (options.inline ?? jobs === 1) {
      // Loaded here, not at the top: with workers this thread never runs a task and need not load the library.
      const { runAnyFileTask, readsBvhFile } = await import('./tasks.js');
      const { readAheadBvhFile } = await import('./read.js');
      // As a single worker runs its files (worker.ts): a file's flush to disk goes on while the next file
      // runs, up to FILES_HELD_BY_ONE_WORKER files held, and the next file's first chunk is read on the
      // thread pool meanwhile. With failFast one file at a time, so that nothing starts after a failure.
      const depth = options.failFast ? 1 : FILES_HELD_BY_ONE_WORKER;
      // in the workers' order (batchOrder) but with failFast: a few small files first, so the engine has
      // compiled the hot loops before the large ones run (measured on the 48-file batch: about 4 % less CPU
      // time than input order)
      const order = options.failFast ? tasks.map((_, i) => i) : batchOrder(tasks, 1);
      const running = new Set<Promise<void>>();
      for (let n = 0; n < order.length && !stop; n++) {
        const k = order[n];
        const next = n + 1 < order.length ? tasks[order[n + 1]] : undefined;
        if (depth > 1 && next !== undefined && readsBvhFile(next)) void readAheadBvhFile(next.input);
        const done: Promise<void> = runAnyFileTask(tasks[k]).then((result) => {
          running.delete(done);
          record(result, k);
        });
        running.add(done);
        while (running.size >= depth) await Promise.race(running);
        // a turn of the event loop: the read-ahead's callback, finished flushes and a Ctrl-C are handled
        // before the next file starts
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all(running);
    } else {
      // Each worker holds its next file while it runs one, so it never waits on this thread between files;
      // with failFast only one, so that nothing starts after a failure.
      const depth = options.failFast ? 1 : jobs === 1 ? FILES_HELD_BY_ONE_WORKER : FILES_HELD_PER_WORKER;
      const workerPool = new WorkerPool<FileTask, TaskResult>(
        new URL('./worker.js', import.meta.url),
        jobs,
        depth,
      );
      pool = workerPool;
      // In input order with failFast, so "the first error" means the first in the user's order. Otherwise
      // largest files first, so no worker is left with a long file while the others idle at the end; but a
      // few of the smallest go before them: a fresh worker runs its first file mostly unoptimised while
      // its JIT compiles on the spare cores, and with every core busy that costs most on a large file
      // (measured on 200 files, 2 jobs: 3-6 % less wall time, also a little less with 1 job).
      const order = options.failFast ? tasks.map((_, i) => i) : batchOrder(tasks, jobs);
      let next = 0;
      const lane = async () => {
        while (!stop && next < tasks.length) {
          const i = order[next++];
          let result: TaskResult;
          try {
            result = await workerPool.run(tasks[i]);
          } catch (error) {
            result = { ...startResult(tasks[i]), error: { message: (error as Error).message } };
          }
          record(result, i);
        }
      };
      await Promise.all(Array.from({ length: jobs * depth }, lane));
      await workerPool.close();
    }
  } finally {
    if (options.handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
  let ok = 0;
  let failed = 0;
  let frames = 0;
  let frameJoints = 0;
  for (const r of results) {
    if (!r) continue;
    if (r.ok) {
      ok += 1;
      frames += r.frames;
      frameJoints += r.frames * r.joints;
    } else failed += 1;
  }
  return {
    results,
    ok,
    failed,
    skipped: tasks.length - ok - failed,
    frames,
    frameJoints,
    seconds: (performance.now() - started) / 1000,
  };
}
