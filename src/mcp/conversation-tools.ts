import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ListConversationsResponseSchema, ListMessagesResponseSchema } from "../gen/agentmem/v1/conversation_service_pb.js";
import type { McpBackend } from "./backend.js";
import { type McpBinding, scopeFor, userShape } from "./binding.js";
import { guarded, jsonResult, messageJson } from "./tool-result.js";

/** Registers the conversation tools: the user's conversations, newest activity first, and one's messages. */
export function registerConversationTools(server: McpServer, backend: McpBackend, binding: McpBinding): void {
  const { conversations, call } = backend;
  const user = userShape(binding);

  server.registerTool(
    "list_conversations",
    {
      title: "List conversations",
      description: "The user's named conversations, newest activity first (id, title, message count, last message preview), paged.",
      inputSchema: {
        ...user,
        page_size: z.number().int().optional().describe("Conversations per page (default 50)."),
        page_token: z.string().optional().describe("The next_page_token of the previous page, to read on."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const scope = { ...scopeFor(binding, args), session: "" };
        const res = await conversations.listConversations({ scope, pageSize: args.page_size ?? 0, pageToken: args.page_token ?? "" }, call);
        return jsonResult(messageJson(ListConversationsResponseSchema, res));
      }),
  );

  server.registerTool(
    "list_messages",
    {
      title: "List messages",
      description: "The messages of one of the user's conversations, oldest first, with tool-call traces, paged.",
      inputSchema: {
        ...user,
        conversation_id: z.string().describe("The conversation's id (from list_conversations)."),
        page_size: z.number().int().optional().describe("Messages per page (default 50)."),
        page_token: z.string().optional().describe("The next_page_token of the previous page, to read on."),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const scope = { ...scopeFor(binding, args), session: "" };
        const res = await conversations.listMessages(
          { scope, conversationId: args.conversation_id, pageSize: args.page_size ?? 0, pageToken: args.page_token ?? "" },
          call,
        );
        return jsonResult(messageJson(ListMessagesResponseSchema, res));
      }),
  );
}
