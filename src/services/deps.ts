import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { ChatModel } from "../ports/chat-model.js";
import type { Clock } from "../ports/clock.js";
import type { Embedder } from "../ports/embedder.js";
import type { Store } from "../ports/store.js";
import type { WordVectors } from "../ports/word-vectors.js";
import type { AccessTracker } from "./memory/access-tracker.js";
import type { AuditLog } from "./privacy/audit-log.js";
import type { EraseBarrier } from "./privacy/erase-barrier.js";
import type { RetentionPolicy } from "./privacy/retention-policy.js";
import type { UsageMeter } from "./usage/usage-meter.js";

/** Everything a service needs, built once at the entry point and passed in. */
export interface ServiceDeps {
  readonly config: Config;
  readonly store: Store;
  readonly embedder: Embedder;
  readonly chat: ChatModel;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly access: AccessTracker;
  /** Provider usage per tenant (tokens billed, characters sent off the machine). */
  readonly usage: UsageMeter;
  /** Retention caps by plan; `retention.enforce(tenant, users)` runs after every stored interaction. */
  readonly retention: RetentionPolicy;
  /** The append-only audit trail (written by the audit interceptor). */
  readonly audit: AuditLog;
  /** Erase as a barrier: writes for an end-user run under `barrier.write`, erasures under `barrier.erase`. */
  readonly barrier: EraseBarrier;
  /** Word vectors for recall's word channel (absent: the channel scores 0). */
  readonly wordVectors?: WordVectors;
}
