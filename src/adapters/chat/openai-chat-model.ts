import OpenAI from "openai";
import { type AgentMemError, ProviderFailure } from "../../core/errors.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../../ports/chat-model.js";

/** Options of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** Endpoint root including `/v1`. Default `https://api.openai.com/v1` (the environment is not read). */
  baseURL?: string;
  /** Bearer key. Default: a placeholder, for local servers (Ollama, vLLM) that need none. */
  apiKey?: string;
  /** Model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** Called after every answer with the tenant billed, its token usage and the characters sent. */
  onUsage?: (tenant: string, promptTokens: number, completionTokens: number, chars: number) => void;
  /** Timeout per HTTP attempt in milliseconds. Default 60,000. */
  timeoutMs?: number;
  /** Retries after a failed attempt (connection errors, 408, 409, 429, 5xx). Default 1. */
  maxRetries?: number;
}

/**
 * Creates a chat model over any OpenAI-compatible `/v1/chat/completions` endpoint. `json: true`
 * sends `response_format: {type: "json_object"}`; `maxTokens` is sent as `max_tokens`, which
 * compatible servers understand. A missing answer is returned as "" for the caller to reject.
 * Failures become `UNAVAILABLE` / `LLM_UNAVAILABLE` with the HTTP status in the metadata.
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const client = new OpenAI({
    baseURL: options.baseURL ?? "https://api.openai.com/v1",
    apiKey: options.apiKey ?? "no-key",
    timeout: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 1,
  });

  async function complete(request: ChatRequest): Promise<ChatResponse> {
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await client.chat.completions.create({
        model: options.model,
        messages: request.messages,
        ...(request.json ? { response_format: { type: "json_object" } } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      });
    } catch (cause) {
      throw unavailable(options.model, cause);
    }
    const promptTokens = completion.usage?.prompt_tokens ?? 0;
    const completionTokens = completion.usage?.completion_tokens ?? 0;
    const chars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
    options.onUsage?.(request.tenant, promptTokens, completionTokens, chars);
    return { content: completion.choices?.[0]?.message?.content ?? "", promptTokens, completionTokens };
  }

  return { mode: "openai", model: options.model, available: true, complete };
}

function unavailable(model: string, cause: unknown): AgentMemError {
  const status = cause instanceof OpenAI.APIError && cause.status !== undefined ? String(cause.status) : "";
  const detail = cause instanceof Error ? cause.message : String(cause);
  const metadata: Record<string, string> = status ? { model, status } : { model };
  const message = `the chat model ${model} failed${status ? ` (HTTP ${status})` : ""}; details are in the server log`;
  return new ProviderFailure("LLM_UNAVAILABLE", message, metadata, detail);
}
