import { unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentMemError } from "../../core/errors.js";

/** How the engine reports a full volume or an exhausted quota (ENOSPC / EDQUOT, os errors 28 / 122). */
const DISK_FULL = /No space left on device|os error 28\b|ENOSPC|Disk quota exceeded|os error 122\b|EDQUOT/i;

/** True when an engine error means the data volume is full. */
export function isDiskFull(error: unknown): boolean {
  return DISK_FULL.test(error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error));
}

/** Where disk-full transitions are reported. */
export interface DiskSpaceLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Tracks whether the data volume is full. A commit that fails for lack of space turns it on
 * (health NOT_SERVING, the caller gets `UNAVAILABLE` / `DISK_FULL`); the next commit that succeeds
 * turns it off. Meanwhile, on a local directory, a small probe file is written every `probeMs`,
 * so the server notices freed space without waiting for a client to risk a write.
 */
export class DiskSpace {
  private isFull = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string | null,
    private readonly logger?: DiskSpaceLogger,
    private readonly probeMs = 1_000,
  ) {}

  /** True from a failed commit for lack of space until a write succeeds again. */
  get full(): boolean {
    return this.isFull;
  }

  /** The error a caller gets for `error`: `DISK_FULL` when the volume is full, else `error` itself. */
  translate(error: unknown): unknown {
    if (!isDiskFull(error)) return error;
    if (!this.isFull) {
      this.isFull = true;
      this.logger?.warn({ err: String(error).slice(0, 500) }, "data volume full: writes refused, health NOT_SERVING until a write succeeds");
      this.startProbe();
    }
    return new AgentMemError("UNAVAILABLE", "DISK_FULL", "the server's data volume is full; nothing was written, retry later", undefined, { retryable: "true" });
  }

  /** A write reached the disk. */
  succeeded(): void {
    if (!this.isFull) return;
    this.isFull = false;
    this.stop();
    this.logger?.info({}, "data volume writable again: SERVING");
  }

  /** Stops probing (on close). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private startProbe(): void {
    if (this.dir === null || this.timer) return;
    const file = join(this.dir, ".agentmem-space-probe");
    this.timer = setInterval(() => {
      // 64 KiB: enough that a volume with a few bytes left still counts as full.
      writeFile(file, Buffer.alloc(64 * 1024))
        .then(() => unlink(file))
        .then(() => this.succeeded(), () => unlink(file).catch(() => undefined));
    }, this.probeMs);
    this.timer.unref();
  }
}
