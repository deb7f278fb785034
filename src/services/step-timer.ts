/**
 * Milliseconds per named step of one request, for a debug log line (`recall steps`,
 * `process steps`): where a slow call spent its time.
 */
export class StepTimer {
  readonly steps: Record<string, number> = {};
  private readonly started = performance.now();
  private last = this.started;

  /** Records the time since the previous `lap` (or the start) under `name`. */
  lap(name: string): void {
    const now = performance.now();
    this.steps[name] = round(now - this.last);
    this.last = now;
  }

  /** Records the time since `from` (a `performance.now()` value) under `name`: for steps that overlap others. */
  since(name: string, from: number): void {
    this.steps[name] = round(performance.now() - from);
  }

  /** Records the time since the start as `total`; returns every step. */
  total(): Record<string, number> {
    this.since("total", this.started);
    return this.steps;
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;
