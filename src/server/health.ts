import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { DriftService } from "../gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../gen/agentmem/v1/relational_service_pb.js";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "../gen/grpc/health/v1/health_pb.js";

/** How often Watch re-reads the status to push a change to its subscribers. */
const WATCH_POLL_MS = 1_000;

/** The whole server's health, as the gRPC health protocol spells it. */
export type ServingStatus = "SERVING" | "NOT_SERVING";

/** "" asks about the server as a whole; the agentmem services share its status. */
const KNOWN_SERVICES: readonly string[] = [
  "",
  ...[MemoryService, DriftService, RelationalService, PrivacyService].map((s) => s.typeName),
];

/**
 * Registers `grpc.health.v1.Health`: Check and List answer `status()` for "" and every
 * agentmem.v1 service; Check rejects other names with NOT_FOUND. Watch sends the current status,
 * then every change, until the client goes away; for an unknown name it sends SERVICE_UNKNOWN
 * and stays open, as the protocol asks.
 */
export function registerHealth(router: ConnectRouter, status: () => ServingStatus): void {
  const statusOf = (service: string): Status =>
    KNOWN_SERVICES.includes(service) ? Status[status()] : Status.SERVICE_UNKNOWN;

  router.service(Health, {
    check(req) {
      if (!KNOWN_SERVICES.includes(req.service)) {
        throw new ConnectError(`unknown service "${req.service}"`, Code.NotFound);
      }
      return { status: statusOf(req.service) };
    },
    list() {
      const entries = KNOWN_SERVICES.map((name) => [name, { status: statusOf(name) }]);
      return { statuses: Object.fromEntries(entries) };
    },
    async *watch(req, ctx) {
      let last: Status | undefined;
      while (!ctx.signal.aborted) {
        const now = statusOf(req.service);
        if (now !== last) yield { status: now };
        last = now;
        await pause(WATCH_POLL_MS, ctx.signal);
      }
    },
  });
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
