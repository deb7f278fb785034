import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { Scope } from "../src/gen/agentmem/v1/common_pb.js";
import { ConversationService } from "../src/gen/agentmem/v1/conversation_service_pb.js";
import { DriftService } from "../src/gen/agentmem/v1/drift_service_pb.js";
import {
  type AddRequestSchema,
  MemoryService,
  type PromptBlockRequestSchema,
  type RecallRequestSchema,
  type RememberRequestSchema,
  type SearchRequestSchema,
} from "../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../src/gen/agentmem/v1/privacy_service_pb.js";
import { type ProcessRequestSchema, RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { Conversations } from "./conversations.js";

export { Code, ConnectError } from "@connectrpc/connect";
export * from "../src/gen/agentmem/v1/common_pb.js";
export * from "../src/gen/agentmem/v1/memory_service_pb.js";
export * from "../src/gen/agentmem/v1/drift_service_pb.js";
export * from "../src/gen/agentmem/v1/relational_service_pb.js";
export * from "../src/gen/agentmem/v1/privacy_service_pb.js";
export * from "../src/gen/agentmem/v1/conversation_service_pb.js";
export { Conversations, type MessageInit } from "./conversations.js";

/** Options for {@link AgentMem}. */
export interface AgentMemOptions {
  /** Server root, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** API key, sent as `Authorization: Bearer …` (omit in dev mode). */
  apiKey?: string;
  /** Wire protocol (default `connect`, over HTTP/1.1). `grpc` uses HTTP/2. */
  protocol?: "connect" | "grpc" | "grpc-web";
  /** A ready transport instead of the above (tests, custom stacks). */
  transport?: Transport;
}

type ScopeInit = Partial<Omit<Scope, "$typeName">>;

/**
 * A thin client over the generated agentmem clients. Each method is one RPC; errors surface as
 * `ConnectError` with a `Code` and an ErrorInfo reason. The raw clients are there too.
 */
export class AgentMem {
  readonly memory: Client<typeof MemoryService>;
  readonly relational: Client<typeof RelationalService>;
  readonly drift: Client<typeof DriftService>;
  readonly privacy: Client<typeof PrivacyService>;
  /** Named conversations with messages and traces (`create`, `list`, `append`, `messages`, `delete`, …). */
  readonly conversations: Conversations;

  constructor(options: AgentMemOptions) {
    const transport = options.transport ?? makeTransport(options);
    this.memory = createClient(MemoryService, transport);
    this.relational = createClient(RelationalService, transport);
    this.drift = createClient(DriftService, transport);
    this.privacy = createClient(PrivacyService, transport);
    this.conversations = new Conversations(createClient(ConversationService, transport));
  }

  /** Stores one turn; returns its memory id. */
  async remember(request: MessageInitShape<typeof RememberRequestSchema>): Promise<string> {
    return (await this.memory.remember(request)).memoryId;
  }

  /** Hybrid recall in a scope. */
  recall(request: MessageInitShape<typeof RecallRequestSchema>) {
    return this.memory.recall(request);
  }

  /** The fact write path (extract, dedup, supersede). */
  add(request: MessageInitShape<typeof AddRequestSchema>) {
    return this.memory.add(request);
  }

  /** The fact read path. */
  search(request: MessageInitShape<typeof SearchRequestSchema>) {
    return this.memory.search(request);
  }

  /** A dated memory block for a prompt. */
  promptBlock(request: MessageInitShape<typeof PromptBlockRequestSchema>) {
    return this.memory.promptBlock(request);
  }

  /** One chat turn: detect, retrieve, update the relation, reply, store. */
  process(request: MessageInitShape<typeof ProcessRequestSchema>) {
    return this.relational.process(request);
  }

  /** Scores an agent answer against the scope's goal and constraints. */
  driftCheck(scope: ScopeInit, check: { goal?: string; constraints?: string[]; response?: string }) {
    return this.drift.check({ scope, ...check });
  }

  /** Erases everything stored about an end-user (admin key). */
  clearHistory(externalId: string) {
    return this.privacy.erase({ externalId });
  }

  /** Alias of {@link clearHistory} for parity with the Python-style name. */
  clear_history(externalId: string) {
    return this.clearHistory(externalId);
  }
}

function makeTransport(options: AgentMemOptions): Transport {
  const interceptors: Interceptor[] = options.apiKey
    ? [
        (next) => (req) => {
          req.header.set("authorization", `Bearer ${options.apiKey}`);
          return next(req);
        },
      ]
    : [];
  const base = { baseUrl: options.baseUrl, interceptors };
  switch (options.protocol ?? "connect") {
    case "grpc":
      return createGrpcTransport({ ...base });
    case "grpc-web":
      return createGrpcWebTransport({ ...base, httpVersion: "1.1" });
    default:
      return createConnectTransport({ ...base, httpVersion: "1.1" });
  }
}
