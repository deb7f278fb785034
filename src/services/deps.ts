import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { ChatModel } from "../ports/chat-model.js";
import type { Clock } from "../ports/clock.js";
import type { Embedder } from "../ports/embedder.js";
import type { Store } from "../ports/store.js";
import type { AccessTracker } from "./memory/access-tracker.js";
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
}
