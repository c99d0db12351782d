import { Worker } from 'node:worker_threads';

/**
 * A fixed-size pool of `worker_threads` that runs one job per message. Each worker loads `script` once
 * and answers every `{ id, job }` message with `{ id, result }`; jobs are handed out as workers become free,
 * so long and short files balance themselves.
 *
 * @example
 * const pool = new WorkerPool<FileTask, TaskResult>(new URL('./worker.js', import.meta.url), 2);
 * const result = await pool.run(task);
 * await pool.close();
 */
export class WorkerPool<Job, Result> {
  private readonly script: URL;
  private readonly size: number;
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: { id: number; job: Job }[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (r: Result) => void; reject: (e: Error) => void; worker?: Worker }
  >();
  private nextId = 0;
  private closed = false;

  constructor(script: URL, size: number) {
    this.script = script;
    this.size = Math.max(1, Math.floor(size));
  }

  /** Queues a job; resolves with the worker's result, rejects if the worker dies while running it. */
  run(job: Job): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    const id = this.nextId++;
    const promise = new Promise<Result>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.queue.push({ id, job });
    this.dispatch();
    return promise;
  }

  /** Stops every worker; queued jobs are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { id } of this.queue.splice(0)) this.pending.get(id)?.reject(new Error('worker pool closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.idle.length = 0;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let worker = this.idle.pop();
      if (!worker) {
        if (this.workers.length >= this.size) return;
        worker = this.spawn();
      }
      const { id, job } = this.queue.shift()!;
      const entry = this.pending.get(id)!;
      entry.worker = worker;
      worker.postMessage({ id, job });
    }
  }

  private spawn(): Worker {
    const worker = new Worker(this.script);
    worker.on('message', (message: { id: number; result: Result }) => {
      const entry = this.pending.get(message.id);
      this.pending.delete(message.id);
      this.idle.push(worker);
      entry?.resolve(message.result);
      this.dispatch();
    });
    const fail = (error: Error) => {
      const i = this.workers.indexOf(worker);
      if (i >= 0) this.workers.splice(i, 1);
      const j = this.idle.indexOf(worker);
      if (j >= 0) this.idle.splice(j, 1);
      for (const [id, entry] of this.pending) {
        if (entry.worker === worker) {
          this.pending.delete(id);
          entry.reject(error);
        }
      }
      if (!this.closed) this.dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`worker stopped with exit code ${code}`));
    });
    this.workers.push(worker);
    return worker;
  }
}
