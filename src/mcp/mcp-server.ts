import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { McpBackend } from "./backend.js";
import type { McpBinding } from "./binding.js";
import { registerContext } from "./context.js";
import { registerConversationTools } from "./conversation-tools.js";
import { registerMemoryTools } from "./memory-tools.js";
import { registerRelationalTools } from "./relational-tools.js";

/** The server's name and version as MCP clients see them. */
export const MCP_SERVER_INFO = { name: "agentmem", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Long-term memory about the people you talk to. Call process_turn (or recall) with each user message before you answer, " +
  "remember what is worth keeping, add_facts for facts that change over time, and use prompt_block or the memory_context prompt " +
  "to put what you know into context. Tool errors carry a gRPC code and a reason such as INVALID_SCOPE or ROLE_TOO_LOW.";

/**
 * An MCP server whose tools, prompt and resource all call the agentmem RPCs through `backend`.
 * Each service's tools live in their own `register…` module, added here.
 */
export function createMcpServer(backend: McpBackend, binding: McpBinding): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  registerMemoryTools(server, backend, binding);
  registerRelationalTools(server, backend, binding);
  registerConversationTools(server, backend, binding);
  registerContext(server, backend, binding);
  return server;
}
