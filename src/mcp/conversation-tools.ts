import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ListConversationsResponseSchema } from "../gen/agentmem/v1/conversation_service_pb.js";
import type { McpBackend } from "./backend.js";
import { type McpBinding, scopeFor, userShape } from "./binding.js";
import { timeArg } from "./memory-tools.js";
import { guarded, jsonResult, messageJson } from "./tool-result.js";

/** list_conversations (ConversationService/ListConversations). */
export function registerConversationTools(server: McpServer, backend: McpBackend, binding: McpBinding): void {
  server.registerTool(
    "list_conversations",
    {
      title: "List conversations",
      description:
        "The user's named conversations, most recently active first: id (use it as `session` in other tools), title, message count and a preview of the last message. Page with page_token.",
      inputSchema: {
        ...userShape(binding),
        page_size: z.number().int().optional().describe("Conversations per page (default 50)."),
        page_token: z.string().optional().describe("next_page_token of the previous page."),
        since: z.string().optional().describe("RFC 3339: only conversations active at or after this time."),
        until: z.string().optional().describe("RFC 3339: only conversations last active before this time."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const { session: _all, ...scope } = scopeFor(binding, args);
        const res = await backend.conversations.listConversations(
          { scope, pageSize: args.page_size ?? 0, pageToken: args.page_token ?? "", since: timeArg("since", args.since), until: timeArg("until", args.until) },
          backend.call,
        );
        return jsonResult(messageJson(ListConversationsResponseSchema, res));
      }),
  );
}
