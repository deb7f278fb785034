import { type CallOptions, type Client, createClient, type Transport } from "@connectrpc/connect";
import { ConversationService } from "../gen/agentmem/v1/conversation_service_pb.js";
import { DriftService } from "../gen/agentmem/v1/drift_service_pb.js";
import { MemoryService } from "../gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../gen/agentmem/v1/privacy_service_pb.js";
import { RelationalService } from "../gen/agentmem/v1/relational_service_pb.js";

/**
 * The RPC clients MCP tools call. Tools never touch storage: every call goes through the same
 * handlers, interceptors, validation and roles as a Connect or gRPC call.
 */
export interface McpBackend {
  readonly memory: Client<typeof MemoryService>;
  readonly relational: Client<typeof RelationalService>;
  readonly drift: Client<typeof DriftService>;
  readonly privacy: Client<typeof PrivacyService>;
  readonly conversations: Client<typeof ConversationService>;
  /** Per-call options: the caller's `Authorization` header travels with every RPC. */
  readonly call: CallOptions;
}

/**
 * Clients over `transport`: an in-process router transport (embedded store, `/mcp`) or a Connect
 * transport to a server (`agentmem mcp --url`). `authorization` is forwarded on every call.
 */
export function createMcpBackend(transport: Transport, authorization?: string): McpBackend {
  return {
    memory: createClient(MemoryService, transport),
    relational: createClient(RelationalService, transport),
    drift: createClient(DriftService, transport),
    privacy: createClient(PrivacyService, transport),
    conversations: createClient(ConversationService, transport),
    call: authorization ? { headers: { authorization } } : {},
  };
}
