import type { ChatMessage } from "../core/chat-message.js";

/** A chat completion request. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Ask for a JSON object (`response_format: {type: "json_object"}`). */
  json?: boolean;
  /** Tenant billed for the tokens. */
  tenant: string;
  temperature?: number;
  maxTokens?: number;
}

/** A chat completion answer with its token usage. */
export interface ChatResponse {
  content: string;
  promptTokens: number;
  completionTokens: number;
}

/** A chat model: `none` (no model configured) or any OpenAI-compatible endpoint. */
export interface ChatModel {
  readonly mode: "none" | "openai";
  readonly model: string;
  /** True when a model is configured and `complete` can be called. */
  readonly available: boolean;
  complete(request: ChatRequest): Promise<ChatResponse>;
}
