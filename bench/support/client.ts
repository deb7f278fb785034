import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";

/** A MemoryService client over HTTP/2 cleartext with the binary Connect protocol (one multiplexed connection). */
export function memoryClient(baseUrl: string): Client<typeof MemoryService> {
  return createClient(MemoryService, createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }));
}
