import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { invalidArgument } from "../../core/errors.js";
import type { AuditRecord } from "../../core/privacy/audit-record.js";
import type { Clock } from "../../ports/clock.js";
import { where } from "../../core/condition.js";
import type { Store } from "../../ports/store.js";
import { RefusalTally } from "./refusal-tally.js";

/** One page of the audit trail, newest first. */
export interface AuditPage {
  records: AuditRecord[];
  /** Opaque token for the next (older) page; "" on the last page. */
  nextPageToken: string;
}

// Ids sort by time, then by a per-process sequence, so "newest first" is stable even when many
// records share a millisecond (a manual test clock). A random tail keeps replicas apart.
const PROCESS_TAG = randomBytes(3).toString("hex");

// Page tokens carry the id of the last record shown: records appended meanwhile (ListAudit is
// itself audited) never shift a page. They are bound to the tenant so one cannot be replayed
// against another tenant's trail.
function bindingOf(tenant: string): string {
  return createHash("sha256").update(`audit\u0000${tenant}`).digest("base64url").slice(0, 16);
}

function encodeCursor(tenant: string, lastId: string): string {
  return Buffer.from(JSON.stringify({ a: lastId, f: bindingOf(tenant) })).toString("base64url");
}

function decodeCursor(tenant: string, token: string): string | undefined {
  if (token === "") return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { a?: unknown; f?: unknown };
    if (typeof parsed.a === "string" && parsed.a.length <= 64 && parsed.f === bindingOf(tenant)) return parsed.a;
  } catch {
    // Any undecodable token is invalid: reported below.
  }
  throw invalidArgument("page_token", "INVALID_PAGE_TOKEN", "page_token is not valid for this request");
}

/** The append-only audit trail of every tenant (one `audit` table each). */
export class AuditLog {
  private sequence = 0;
  private readonly refusals: RefusalTally;
  /** Appends not yet durable, per tenant: a read of the trail waits for them. */
  private readonly pending = new Map<string, Set<Promise<void>>>();

  /** `refusalWindowMs`: refused calls of one key and operation are summed over this (default 60 000). */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: { refusalWindowMs?: number } = {},
  ) {
    this.refusals = new RefusalTally((tenant, record) => this.append(tenant, record), (at) => this.newId(at), options.refusalWindowMs);
  }

  /** Records a refused call: the first per key, operation and outcome at once, the rest summed (`counts.refused`). */
  appendRefused(tenant: string, record: AuditRecord): Promise<void> {
    return this.refusals.refused(tenant, record);
  }

  /** Writes the refusals counted but not yet written (on shutdown). */
  flushRefusals(): Promise<void> {
    return this.refusals.flush();
  }

  /** The time records are stamped with (the injected clock), epoch ms. */
  now(): number {
    return this.clock.now().getTime();
  }

  /** A new record id for a call starting at `at`. */
  newId(at: number): string {
    const seq = (this.sequence++ % 1e10).toString().padStart(10, "0");
    return `${Math.max(0, Math.round(at)).toString().padStart(15, "0")}-${seq}-${PROCESS_TAG}`;
  }

  /** Appends one record; it is durable when this resolves. A read of the tenant's trail started meanwhile waits for it. */
  append(tenant: string, record: AuditRecord): Promise<void> {
    const write = this.store.audit(tenant).then((audit) => audit.append([record]));
    let mine = this.pending.get(tenant);
    if (!mine) this.pending.set(tenant, (mine = new Set()));
    const tracked = write.finally(() => {
      mine.delete(tracked);
      if (mine.size === 0 && this.pending.get(tenant) === mine) this.pending.delete(tenant);
    });
    mine.add(tracked);
    return tracked.then(() => this.logger.debug({ tenant, operation: record.operation, outcome: record.outcome }, "audit"));
  }

  /** Resolves when every append started so far (of `tenant`, or of all tenants) has settled. */
  async settled(tenant?: string): Promise<void> {
    const sets = tenant === undefined ? [...this.pending.values()] : [this.pending.get(tenant) ?? new Set<Promise<void>>()];
    await Promise.allSettled(sets.flatMap((s) => [...s]));
  }

  /** A page of the tenant's trail, newest first, continuing after `pageToken`. */
  async page(tenant: string, pageSize: number, pageToken: string): Promise<AuditPage> {
    const before = decodeCursor(tenant, pageToken);
    // Records of calls already answered may still be committing (see the audit interceptor).
    await this.settled(tenant);
    const audit = await this.store.audit(tenant);
    // Ids only, then the page's rows: a page never loads the whole trail.
    const ids = (await audit.project(before === undefined ? where.all() : where.lt("id", before), ["id"])).map((r) => String(r.id));
    ids.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    const pageIds = ids.slice(0, pageSize);
    const byId = new Map((await audit.get(pageIds)).map((r) => [r.id, r]));
    const records = pageIds.map((id) => byId.get(id)).filter((r): r is AuditRecord => r !== undefined);
    const more = ids.length > pageSize;
    return { records, nextPageToken: more ? encodeCursor(tenant, records[records.length - 1].id) : "" };
  }
}
