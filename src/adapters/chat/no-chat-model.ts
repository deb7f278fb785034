import { AgentMemError } from "../../core/errors.js";
import type { ChatModel } from "../../ports/chat-model.js";

/** The `none` chat model: nothing configured; `complete` rejects with `LLM_NOT_CONFIGURED`. */
export const noChatModel: ChatModel = Object.freeze({
  mode: "none",
  model: "",
  available: false,
  complete(): Promise<never> {
    return Promise.reject(
      new AgentMemError("FAILED_PRECONDITION", "LLM_NOT_CONFIGURED", "no chat model is configured (start the server with --llm openai)"),
    );
  },
});
