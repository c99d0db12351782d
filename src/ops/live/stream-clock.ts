/**
 * Where a live filter's stream is, shared by every live filter: how many samples it has accepted and when
 * the last one came (the timestamp policy for irregular and repeated steps, the first sample), forgetting
 * the stream, and the `samples`/`time` part of a snapshot. Each filter keeps its own state arrays.
 *
 * @module
 * @internal
 */
import { type LiveStateBase, type StaleSamplePolicy, timeStep } from './live-contract.js';

/** The position of a stream. @internal */
export class StreamClock {
  /** Samples accepted so far (0: the next sample is the first). */
  samples = 0;
  /** Time of the last accepted sample in seconds (0 before the first). */
  last = 0;

  /**
   * @param policy - what a repeated or early timestamp does.
   * @param where - the method named in errors, e.g. `'Damper.push'`.
   */
  constructor(
    private readonly policy: StaleSamplePolicy,
    private readonly where: string,
  ) {}

  /** The time step to `time` in seconds: `0` for the first sample, `-1` for a stale one under `'hold'`. */
  step(time: number): number {
    return timeStep(time, this.samples, this.last, this.policy, this.where);
  }

  /** Records a sample accepted at `time`. */
  accept(time: number): void {
    this.samples++;
    this.last = time;
  }

  /** Forgets the stream: the next sample is the first. */
  reset(): void {
    this.samples = 0;
    this.last = 0;
  }

  /** The `samples` and `time` of a snapshot. */
  head(): Pick<LiveStateBase, 'samples' | 'time'> {
    return { samples: this.samples, time: this.samples > 0 ? this.last : null };
  }

  /** Resumes at a checked snapshot's `samples` and `time`. */
  restore(state: Pick<LiveStateBase, 'samples' | 'time'>): void {
    this.samples = state.samples;
    this.last = state.samples > 0 ? (state.time as number) : 0;
  }
}
