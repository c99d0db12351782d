import { Worker } from 'node:worker_threads';

/**
 * A fixed-size pool of `worker_threads` that runs one job per message. Each worker loads `script` once
 * and answers every `{ id, job }` message with `{ id, result }`; it starts its jobs in the order it
 * received them and counts each start in `workerData.started` (an `Int32Array` on shared memory:
 * `Atomics.add(started, 0, 1)` before the job's work begins). Jobs are handed out as workers become free,
 * so long and short files balance themselves.
 *
 * `depth` is how many jobs a worker holds at once: the ones it has started and not yet answered (a batch
 * worker answers a file once its output is flushed, while it runs the next) and those waiting in its
 * message queue. With a depth of 2 a worker starts its next job as soon as it posts a result, instead of
 * waiting for this thread to wake up and answer, which may have to wait for a core when every core is busy
 * (a batch of 200 files with 2 jobs on 2 cores runs about 2 % faster). If a worker dies, every job it had
 * started and not answered is rejected (one may have written its output: running it again could, with
 * `--in-place`, process a file twice), and the ones it had not started go back to the front of the queue
 * for another worker. A worker that dies having started nothing (it could not load, say) takes its oldest
 * job with it, so a batch always ends.
 *
 * @example
 * const pool = new WorkerPool<FileTask, TaskResult>(new URL('./worker.js', import.meta.url), 2, 2);
 * const result = await pool.run(tasks[0]);
 * await pool.close();
 */
export class WorkerPool<Job, Result> {
  private readonly script: URL;
  private readonly size: number;
  private readonly depth: number;
  /** Every live worker with the ids of the jobs sent to it and not yet answered, oldest first. */
  private readonly assigned = new Map<Worker, number[]>();
  /** Ids of the jobs not yet sent, in order; their jobs are in `pending`. */
  private readonly queue: number[] = [];
  private readonly pending = new Map<
    number,
    { job: Job; resolve: (r: Result) => void; reject: (e: Error) => void }
  >();
  private nextId = 0;
  private closed = false;

  /**
   * @param script - the worker module (see the class comment for its protocol)
   * @param size - the most workers to start; they start as jobs arrive
   * @param depth - jobs a worker holds at once, the running one included (default 1)
   */
  constructor(script: URL, size: number, depth = 1) {
    this.script = script;
    this.size = Math.max(1, Math.floor(size));
    this.depth = Math.max(1, Math.floor(depth));
  }

  /** Queues a job; resolves with the worker's result, rejects if the worker dies after starting it. */
  run(job: Job): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    const id = this.nextId++;
    const promise = new Promise<Result>((resolve, reject) => this.pending.set(id, { job, resolve, reject }));
    this.queue.push(id);
    this.dispatch();
    return promise;
  }

  /** Stops every worker; jobs not yet answered are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    const workers = [...this.assigned.keys()];
    this.assigned.clear();
    await Promise.all(workers.map((w) => w.terminate()));
    for (const entry of this.pending.values()) entry.reject(new Error('worker pool closed'));
    this.pending.clear();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.pick();
      if (!worker) return;
      const id = this.queue.shift()!;
      this.assigned.get(worker)!.push(id);
      worker.postMessage({ id, job: this.pending.get(id)!.job });
    }
  }

  /** The least loaded worker with room for a job; a new worker instead while slots are left and none is idle. */
  private pick(): Worker | undefined {
    let best: Worker | undefined;
    let bestLoad = this.depth;
    for (const [worker, ids] of this.assigned) {
      if (ids.length < bestLoad) {
        best = worker;
        bestLoad = ids.length;
      }
    }
    if (bestLoad > 0 && this.assigned.size < this.size) return this.spawn();
    return best;
  }

  private spawn(): Worker {
    // the jobs this worker has started (its count, on shared memory) and answered
    const started = new Int32Array(new SharedArrayBuffer(4));
    let answered = 0;
    const worker = new Worker(this.script, { workerData: { started } });
    worker.on('message', (message: { id: number; result: Result }) => {
      const ids = this.assigned.get(worker);
      const at = ids ? ids.indexOf(message.id) : -1;
      if (at >= 0) {
        ids!.splice(at, 1);
        answered++;
      }
      const entry = this.pending.get(message.id);
      this.pending.delete(message.id);
      entry?.resolve(message.result);
      this.dispatch();
    });
    const fail = (error: Error) => {
      const ids = this.assigned.get(worker);
      if (!ids) return;
      this.assigned.delete(worker);
      // A worker starts its jobs in the order they were sent, so the ones it started and did not answer
      // come first among those not answered; none started: the oldest goes, so a worker that cannot start
      // a job does not get every job sent again forever.
      const startedCount = Atomics.load(started, 0);
      const lost = Math.max(0, Math.min(ids.length, startedCount === 0 ? 1 : startedCount - answered));
      for (const id of ids.slice(0, lost)) {
        const entry = this.pending.get(id);
        this.pending.delete(id);
        entry?.reject(error);
      }
      this.queue.unshift(...ids.slice(lost).filter((id) => this.pending.has(id)));
      if (!this.closed) this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`worker stopped with exit code ${code}`));
    });
    this.assigned.set(worker, []);
    return worker;
  }
}
