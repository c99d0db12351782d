import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/node/pool.js';

interface TestJob {
  name: string;
  /** Milliseconds the worker spins before answering. */
  busy?: number;
  /** The worker exits with code 3 instead of answering. */
  crash?: boolean;
  /** Set to 1 (and notified) by the worker when it starts this job. */
  startedFlag?: Int32Array;
  /** Milliseconds after which the worker answers, on a timer (it starts the jobs it holds meanwhile). */
  answerAfter?: number;
  /** Incremented by the worker each time it starts this job. */
  runs?: Int32Array;
}
interface TestResult {
  name: string;
  thread: number;
  started: number;
  finished: number;
}

// A plain module worker speaking the pool's protocol, so the tests need no build.
const script = join(mkdtempSync(join(tmpdir(), 'rotsig-pool-')), 'worker.mjs');
writeFileSync(
  script,
  `import { parentPort, threadId, workerData } from 'node:worker_threads';
parentPort.on('message', ({ id, job }) => {
  Atomics.add(workerData.started, 0, 1);
  if (job.runs) Atomics.add(job.runs, 0, 1);
  if (job.crash) process.exit(3);
  if (job.startedFlag) {
    Atomics.store(job.startedFlag, 0, 1);
    Atomics.notify(job.startedFlag, 0);
  }
  const started = Date.now();
  while (Date.now() < started + (job.busy ?? 0));
  const answer = () =>
    parentPort.postMessage({ id, result: { name: job.name, thread: threadId, started, finished: Date.now() } });
  if (job.answerAfter !== undefined) setTimeout(answer, job.answerAfter);
  else answer();
});
`,
);
const scriptUrl = pathToFileURL(script);

let pool: WorkerPool<TestJob, TestResult> | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('WorkerPool(script, size, depth)', () => {
  it('pool.run(job) answers every job once, on at most size workers', async () => {
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 2, 2);
    const names = Array.from({ length: 9 }, (_, i) => `job${i}`);
    const results = await Promise.all(names.map((name) => pool!.run({ name, busy: 5 })));
    expect(results.map((r) => r.name)).toEqual(names);
    expect(new Set(results.map((r) => r.thread)).size).toBe(2);
  });

  // This thread blocks in Atomics.wait, so the pool cannot post anything while it waits: a job the
  // worker starts meanwhile is one it already held. The wait ends on the worker's signal, not on a clock,
  // so a slow machine makes the test slower, never wrong.
  const flag = (): Int32Array => new Int32Array(new SharedArrayBuffer(4));

  it('WorkerPool(script, 1, 2) starts the held job while this thread is blocked', async () => {
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 1, 2);
    const startedSecond = flag();
    const first = pool.run({ name: 'first', busy: 50 });
    const second = pool.run({ name: 'second', startedFlag: startedSecond });
    expect(Atomics.wait(startedSecond, 0, 0, 60_000)).toBe('ok');
    const [a, b] = await Promise.all([first, second]);
    expect([a.name, b.name]).toEqual(['first', 'second']);
  });

  it('WorkerPool(script, 1, 1) sends the next job only when this thread hears of the last', async () => {
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 1, 1);
    const startedFirst = flag();
    const startedSecond = flag();
    const first = pool.run({ name: 'first', startedFlag: startedFirst });
    const second = pool.run({ name: 'second', startedFlag: startedSecond });
    // The first job starts while this thread is blocked (it was posted); the second cannot, however long
    // the worker is left alone, because its message is posted only when this thread hears of the first.
    expect(Atomics.wait(startedFirst, 0, 0, 60_000)).toBe('ok');
    expect(Atomics.wait(startedSecond, 0, 0, 300)).toBe('timed-out');
    const [a, b] = await Promise.all([first, second]);
    expect(a.finished).toBeLessThanOrEqual(b.started);
    expect(Atomics.load(startedSecond, 0)).toBe(1);
  });

  it('pool.run(job) rejects the job a worker died on and reruns the jobs it held on a new worker', async () => {
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 1, 2);
    const crash = pool.run({ name: 'crash', crash: true });
    const held = pool.run({ name: 'held' });
    const later = pool.run({ name: 'later' });
    await expect(crash).rejects.toThrow('exit code 3');
    expect((await held).name).toBe('held');
    expect((await later).name).toBe('later');
  });

  it('a worker that dies rejects every job it started and did not answer, and hands on only those it had not started', async () => {
    // like a batch worker, which answers a file once its output is flushed while it runs the next: the
    // first two are started and not answered when the third kills the worker
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 1, 4);
    const runs = Array.from({ length: 4 }, () => new Int32Array(new SharedArrayBuffer(4)));
    const flushing = pool.run({ name: 'flushing', answerAfter: 60_000, runs: runs[0] });
    const flushing2 = pool.run({ name: 'flushing2', answerAfter: 60_000, runs: runs[1] });
    const crash = pool.run({ name: 'crash', crash: true, runs: runs[2] });
    const waiting = pool.run({ name: 'waiting', runs: runs[3] });
    await expect(flushing).rejects.toThrow('exit code 3');
    await expect(flushing2).rejects.toThrow('exit code 3');
    await expect(crash).rejects.toThrow('exit code 3');
    expect((await waiting).name).toBe('waiting');
    // each ran once: none of the started ones was sent again (with --in-place, a second pass over a file)
    expect(runs.map((r) => Atomics.load(r, 0))).toEqual([1, 1, 1, 1]);
  });

  it('a worker that dies before starting any job takes only its oldest job with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-pool-'));
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'process.exit(4);\n');
    const brokenPool = new WorkerPool<TestJob, TestResult>(pathToFileURL(broken), 1, 3);
    try {
      const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((name) => brokenPool.run({ name })));
      // every job ends (rejected), each with one worker's death: the batch cannot loop forever
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      await brokenPool.close();
    }
  });

  it('pool.close() rejects the jobs not yet answered', async () => {
    pool = new WorkerPool<TestJob, TestResult>(scriptUrl, 1, 2);
    const running = pool.run({ name: 'running', busy: 2000 });
    const held = pool.run({ name: 'held' });
    const queued = pool.run({ name: 'queued' });
    const closed = pool.close();
    await expect(running).rejects.toThrow('worker pool closed');
    await expect(held).rejects.toThrow('worker pool closed');
    await expect(queued).rejects.toThrow('worker pool closed');
    await closed;
    await expect(pool.run({ name: 'after' })).rejects.toThrow('worker pool is closed');
  });
});
