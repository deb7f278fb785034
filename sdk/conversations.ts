import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { Scope } from "../src/gen/agentmem/v1/common_pb.js";
import type {
  Conversation,
  ConversationMessageSchema,
  ConversationService,
  ListConversationsRequestSchema,
  ListMessagesRequestSchema,
} from "../src/gen/agentmem/v1/conversation_service_pb.js";

type ScopeInit = Partial<Omit<Scope, "$typeName">>;
type ListOptions = Omit<MessageInitShape<typeof ListConversationsRequestSchema>, "scope" | "$typeName">;
type MessagesOptions = Omit<MessageInitShape<typeof ListMessagesRequestSchema>, "scope" | "conversationId" | "$typeName">;

/** A message to append: `role` (default "user"), `name`, `content`, `observedAt`, `trace`. */
export type MessageInit = MessageInitShape<typeof ConversationMessageSchema>;

/**
 * Conversations of an end-user (`client.conversations`): each method is one ConversationService
 * RPC. A conversation's id is the `session` of its scope, so its messages are turns the memory
 * verbs see.
 */
export class Conversations {
  constructor(readonly client: Client<typeof ConversationService>) {}

  /** Starts a conversation; `id` is optional (default a new random one). */
  async create(scope: ScopeInit, init: { id?: string; title?: string; metadata?: Record<string, string> } = {}): Promise<Conversation> {
    const res = await this.client.createConversation({ scope, conversationId: init.id, title: init.title, metadata: init.metadata });
    return res.conversation!;
  }

  /** One conversation (NOT_FOUND outside the scope). */
  async get(scope: ScopeInit, id: string): Promise<Conversation> {
    return (await this.client.getConversation({ scope, conversationId: id })).conversation!;
  }

  /** One page of conversations, newest activity first; pass `pageToken` from the previous page. */
  list(scope: ScopeInit, options: ListOptions = {}) {
    return this.client.listConversations({ scope, ...options });
  }

  /** Changes the title, metadata (an empty value removes a key) or archived flag. */
  async update(scope: ScopeInit, id: string, change: { title?: string; metadata?: Record<string, string>; archived?: boolean }): Promise<Conversation> {
    return (await this.client.updateConversation({ scope, conversationId: id, ...change })).conversation!;
  }

  /** Appends messages in order; `infer` runs the fact extractor as `add` does. */
  append(scope: ScopeInit, id: string, messages: MessageInit[], options: { infer?: boolean } = {}) {
    return this.client.appendMessages({ scope, conversationId: id, messages, infer: options.infer });
  }

  /** One page of messages (oldest first unless `newestFirst`; `since` a message's `createdAt`). */
  messages(scope: ScopeInit, id: string, options: MessagesOptions = {}) {
    return this.client.listMessages({ scope, conversationId: id, ...options });
  }

  /** Deletes the conversation with its messages, turns and memories; returns what went. */
  delete(scope: ScopeInit, id: string) {
    return this.client.deleteConversation({ scope, conversationId: id });
  }
}
