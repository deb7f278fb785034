import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { Scope } from "../src/gen/agentmem/v1/common_pb.js";
import { ConversationService } from "../src/gen/agentmem/v1/conversation_service_pb.js";
import { DriftService } from "../src/gen/agentmem/v1/drift_service_pb.js";
import {
  AddRequestSchema,
  MemoryService,
  PromptBlockRequestSchema,
  RecallRequestSchema,
  RememberRequestSchema,
  SearchRequestSchema,
} from "../src/gen/agentmem/v1/memory_service_pb.js";
import { PrivacyService } from "../src/gen/agentmem/v1/privacy_service_pb.js";
import { ProcessRequestSchema, RelationalService } from "../src/gen/agentmem/v1/relational_service_pb.js";
import { Conversations } from "./conversations.js";
import { checkRequestShape, optionsObject, requireString } from "./request-shape.js";

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
  /**
   * HTTP/2 (`grpc`): close a connection after this long without a call (default 30,000). Keep it
   * below the server's `AGENTMEM_IDLE_TIMEOUT_SECONDS` (60 s): a server that closes an idle
   * connection first refuses the calls a client sends in the moment its GOAWAY is on the wire.
   */
  idleConnectionTimeoutMs?: number;
  /** A ready transport instead of the above (tests, custom stacks). */
  transport?: Transport;
}

type ScopeInit = Partial<Omit<Scope, "$typeName">>;

/** The scope around the end-user in the user-first call forms (each optional; the tenant comes from the key). */
export interface ScopeOptions {
  tenant?: string;
  namespace?: string;
  agent?: string;
  session?: string;
}

type Init<D extends DescMessage> = MessageInitShape<D>;
/** `remember(userId, text, options)`: any RememberRequest field besides scope and content. */
export type RememberOptions = ScopeOptions & Omit<Init<typeof RememberRequestSchema>, "scope" | "content" | "$typeName">;
/** `recall(userId, query, options)`: k, as_of, fact_types, tags, include_history, weights. */
export type RecallOptions = ScopeOptions & Omit<Init<typeof RecallRequestSchema>, "scope" | "query" | "$typeName">;
/** `process(userId, message, options)`: channel, at, k, min_similarity. */
export type ProcessOptions = ScopeOptions & Omit<Init<typeof ProcessRequestSchema>, "scope" | "message" | "$typeName">;

/** A request in the user-first form: scope from `userId` + options, the text under `textField`. */
function userFirst(userId: unknown, textField: string, textName: string, text: unknown, options: object | undefined): Record<string, unknown> {
  const { tenant, namespace, agent, session, ...rest } = optionsObject("options", options as ScopeOptions | undefined);
  return { ...rest, scope: { user: requireString("userId", userId), tenant, namespace, agent, session }, [textField]: requireString(textName, text) };
}

/** Checks a request's shape (INVALID_ARGUMENT on a mistake) and hands it on. */
function checked<D extends DescMessage>(schema: D, request: unknown): Init<D> {
  checkRequestShape(schema, request);
  return request as Init<D>;
}

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

  /** Stores one turn for an end-user (`remember("patient_42", "I had knee surgery")`); returns its memory id. */
  remember(userId: string, text: string, options?: RememberOptions): Promise<string>;
  /** Stores one turn from a full RememberRequest; returns its memory id. */
  remember(request: Init<typeof RememberRequestSchema>): Promise<string>;
  async remember(first: unknown, text?: unknown, options?: RememberOptions): Promise<string> {
    const request = typeof first === "string" ? userFirst(first, "content", "text", text, options) : first;
    return (await this.memory.remember(checked(RememberRequestSchema, request))).memoryId;
  }

  /** Hybrid recall for an end-user (`recall("patient_42", "surgery", { k: 5 })`). */
  recall(userId: string, query: string, options?: RecallOptions): ReturnType<AgentMem["memory"]["recall"]>;
  /** Hybrid recall from a full RecallRequest. */
  recall(request: Init<typeof RecallRequestSchema>): ReturnType<AgentMem["memory"]["recall"]>;
  async recall(first: unknown, query?: unknown, options?: RecallOptions) {
    const request = typeof first === "string" ? userFirst(first, "query", "query", query, options) : first;
    return this.memory.recall(checked(RecallRequestSchema, request));
  }

  /** The fact write path (extract, dedup, supersede). */
  async add(request: Init<typeof AddRequestSchema>) {
    return this.memory.add(checked(AddRequestSchema, request));
  }

  /** The fact read path. */
  async search(request: Init<typeof SearchRequestSchema>) {
    return this.memory.search(checked(SearchRequestSchema, request));
  }

  /** A dated memory block for a prompt. */
  async promptBlock(request: Init<typeof PromptBlockRequestSchema>) {
    return this.memory.promptBlock(checked(PromptBlockRequestSchema, request));
  }

  /**
   * One chat turn for an end-user, as in the seeds: `process("patient_42", "I'm worried about the
   * surgery tomorrow")` — detect, retrieve, update the relation, reply, store.
   */
  process(userId: string, message: string, options?: ProcessOptions): ReturnType<AgentMem["relational"]["process"]>;
  /** One chat turn from a full ProcessRequest. */
  process(request: Init<typeof ProcessRequestSchema>): ReturnType<AgentMem["relational"]["process"]>;
  async process(first: unknown, message?: unknown, options?: ProcessOptions) {
    const request = typeof first === "string" ? userFirst(first, "message", "message", message, options) : first;
    return this.relational.process(checked(ProcessRequestSchema, request));
  }

  /** Scores an agent answer against the scope's goal and constraints. */
  driftCheck(scope: ScopeInit, check: { goal?: string; constraints?: string[]; response?: string }) {
    return this.drift.check({ scope, ...check });
  }

  /** Erases everything stored about an end-user (admin key). */
  async clearHistory(userId: string) {
    return this.privacy.erase({ externalId: requireString("userId", userId) });
  }

  /** Alias of {@link clearHistory} for parity with the Python-style name. */
  clear_history(userId: string) {
    return this.clearHistory(userId);
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
      return createGrpcTransport({ ...base, idleConnectionTimeoutMs: options.idleConnectionTimeoutMs ?? 30_000 });
    case "grpc-web":
      return createGrpcWebTransport({ ...base, httpVersion: "1.1" });
    default:
      return createConnectTransport({ ...base, httpVersion: "1.1" });
  }
}
