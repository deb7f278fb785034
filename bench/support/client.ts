import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";

/**
 * A MemoryService client over HTTP/2 cleartext with the binary Connect protocol (one multiplexed
 * connection). It closes its connection after 30 s without a call, before the server's 60 s idle
 * deadline: a bench that paused for about that long (a phase of raw-LanceDB queries) and then sent
 * a burst raced the server's GOAWAY, and calls were reset (see docs/security.md, Connection limits).
 */
export function memoryClient(baseUrl: string): Client<typeof MemoryService> {
  return createClient(MemoryService, createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, idleConnectionTimeoutMs: 30_000 }));
}
