import type { AuditRecord } from "../../core/privacy/audit-record.js";

/** Where tallied refusals are written. */
export type AppendAudit = (tenant: string, record: AuditRecord) => Promise<void>;

interface Tally {
  tenant: string;
  /** The first refusal's record: the template of the summary row. */
  first: AuditRecord;
  /** Refusals since the first, not yet written. */
  more: number;
  /** When the window closes (performance.now()). */
  until: number;
}

/**
 * Keeps refused calls from growing the audit trail without bound: the first refusal of a
 * (tenant, actor, operation, outcome) in a window is written at once; the rest are counted and
 * written as one row (`counts.refused`) when the window closes. A flood of refused calls costs
 * at most two rows per key and window.
 */
export class RefusalTally {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly append: AppendAudit,
    private readonly newId: (at: number) => string,
    private readonly windowMs = 60_000,
  ) {}

  /** Records one refused call. */
  async refused(tenant: string, record: AuditRecord): Promise<void> {
    const key = [tenant, record.actor, record.operation, record.outcome].join("\u0000");
    const now = performance.now();
    const tally = this.tallies.get(key);
    if (tally && now < tally.until) {
      tally.more++;
      return;
    }
    if (tally) await this.write(key, tally);
    this.tallies.set(key, { tenant, first: record, more: 0, until: now + this.windowMs });
    this.arm();
    await this.append(tenant, { ...record, counts: { ...record.counts, refused: 1 } });
  }

  /** Writes every open tally (on close, and when windows end). */
  async flush(all = true): Promise<void> {
    const now = performance.now();
    for (const [key, tally] of [...this.tallies]) if (all || now >= tally.until) await this.write(key, tally);
    if (this.tallies.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private async write(key: string, tally: Tally): Promise<void> {
    this.tallies.delete(key);
    if (tally.more === 0) return;
    const at = tally.first.at + (performance.now() - (tally.until - this.windowMs));
    await this.append(tally.tenant, { ...tally.first, id: this.newId(at), at, scope: { namespace: "", agent: "", session: "", user: "" }, counts: { refused: tally.more } });
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(false).catch(() => undefined), Math.max(1_000, this.windowMs / 4));
    this.timer.unref();
  }
}
