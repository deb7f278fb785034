import type { Config } from "../config.js";
import type { ChatModel } from "../ports/chat-model.js";
import type { Embedder } from "../ports/embedder.js";
import { noChatModel } from "./chat/no-chat-model.js";
import { createOpenAIChatModel } from "./chat/openai-chat-model.js";
import { createHashEmbedder } from "./embedders/hash-embedder.js";
import { createOpenAIEmbedder } from "./embedders/openai-embedder.js";
import { createUseEmbedder } from "./embedders/use-embedder.js";

/** Usage callbacks the providers report to (tokens billed, characters sent off the machine). */
export interface ProviderUsageHooks {
  onEmbedding?: (tokens: number, chars: number) => void;
  onChat?: (tenant: string, promptTokens: number, completionTokens: number, chars: number) => void;
}

/** Builds the configured embedder and loads it (the one place that picks an embedder by name). */
export async function createEmbedder(config: Config, hooks: ProviderUsageHooks = {}): Promise<Embedder> {
  switch (config.embedder) {
    case "hash":
      return createHashEmbedder();
    case "use": {
      const e = createUseEmbedder();
      await e.warmUp();
      return e;
    }
    case "openai": {
      const e = createOpenAIEmbedder({
        baseURL: config.openai.baseURL,
        apiKey: config.openai.apiKey,
        model: config.openai.embedModel,
        onUsage: hooks.onEmbedding,
      });
      await e.warmUp();
      return e;
    }
  }
}

/** Builds the configured chat model (the one place that picks a chat model by name). */
export function createChatModel(config: Config, hooks: ProviderUsageHooks = {}): ChatModel {
  if (config.llm === "none") return noChatModel;
  return createOpenAIChatModel({
    baseURL: config.openai.baseURL,
    apiKey: config.openai.apiKey,
    model: config.openai.llmModel,
    onUsage: hooks.onChat,
  });
}
