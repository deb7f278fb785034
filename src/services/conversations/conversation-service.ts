import type { ServiceImpl } from "@connectrpc/connect";
import { ConversationService } from "../../gen/agentmem/v1/conversation_service_pb.js";
import { scopeKey } from "../../core/scope.js";
import { noteAudit, resolveTenant } from "../request-context.js";
import { memoryToProto } from "../convert.js";
import type { ServiceDeps } from "../deps.js";
import { Conversations } from "./conversations.js";
import { conversationToProto, messageToProto } from "./convert.js";
import { appendMessages, listMessages } from "./messages.js";
import { appendInput, conversationIdOf, createInput, listInput, listMessagesInput, updateInput } from "./requests.js";

/** The ConversationService handlers (proto ↔ domain). */
export function createConversationService(deps: ServiceDeps): ServiceImpl<typeof ConversationService> {
  const conversations = new Conversations(deps);
  // The scope and id of a request naming one conversation, validated.
  const target = (req: { scope?: Parameters<typeof scopeKey>[0]; conversationId: string }) => {
    const key = scopeKey(req.scope);
    return { key, id: conversationIdOf(req.conversationId) };
  };
  return {
    async createConversation(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const input = createInput(req);
      const row = await conversations.create(tenant, input);
      noteAudit(ctx, {}, { ...input.key, session: row.id });
      return { conversation: conversationToProto(tenant, row) };
    },

    async getConversation(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { key, id } = target(req);
      return { conversation: conversationToProto(tenant, await conversations.load(tenant, key, id)) };
    },

    async listConversations(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const page = await conversations.list(tenant, listInput(req), req.pageToken);
      return { conversations: page.rows.map((c) => conversationToProto(tenant, c)), nextPageToken: page.next };
    },

    async updateConversation(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { key, id } = target(req);
      const row = await conversations.update(tenant, key, id, updateInput(req));
      noteAudit(ctx, {}, { ...key, session: id });
      return { conversation: conversationToProto(tenant, row) };
    },

    async deleteConversation(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { key, id } = target(req);
      noteAudit(ctx, {}, { ...key, session: id });
      const counts = await conversations.delete(tenant, key, id);
      return { messages: BigInt(counts.messages), memories: BigInt(counts.memories), traces: BigInt(counts.traces) };
    },

    async appendMessages(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { key, id } = target(req);
      const input = appendInput(req);
      noteAudit(ctx, {}, { ...key, session: id });
      const result = await appendMessages(deps, conversations, tenant, key, id, input, req.infer);
      return {
        messageIds: result.ids,
        conversation: conversationToProto(tenant, result.conversation),
        facts: result.facts.map((m) => memoryToProto(tenant, m)),
        extractionError: result.extractionError,
      };
    },

    async listMessages(req, ctx) {
      const tenant = resolveTenant(ctx, req.scope?.tenant ?? "");
      const { key, id } = target(req);
      const q = listMessagesInput(req);
      const c = await conversations.load(tenant, key, id);
      const page = await listMessages(deps, tenant, c, { ...q, binding: [key.namespace, key.agent, key.session, key.user] }, req.pageToken);
      return { messages: page.messages.map((m) => messageToProto(m.message, m.turn)), nextPageToken: page.next };
    },
  };
}
