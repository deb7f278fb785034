import { autoTitle, clip, TITLE_CHARS } from "../../core/conversations/title.js";
import type { ServiceDeps } from "../deps.js";

const PROMPT =
  "Write a title of at most 8 words for a conversation that starts with the user message below. " +
  "Answer with the title only: no quotes, no full stop.";

/**
 * The automatic title of a conversation from its first user message: with a chat model
 * configured, one short call; without one, or when the call fails or answers nothing usable,
 * the first sentence of the message (`autoTitle`).
 */
export async function titleFor(deps: ServiceDeps, tenant: string, firstUserMessage: string): Promise<string> {
  if (!deps.chat.available) return autoTitle(firstUserMessage);
  try {
    const answer = await deps.chat.complete({
      messages: [
        { role: "system", content: PROMPT },
        { role: "user", content: clip(firstUserMessage, 2_000) },
      ],
      tenant,
      temperature: 0,
      maxTokens: 24,
    });
    const line = answer.content.split("\n").find((l) => l.trim() !== "") ?? "";
    const title = clip(line.replace(/^\s*(title:\s*)?["'“”]*|["'“”.]*\s*$/gi, ""), TITLE_CHARS);
    if (title !== "") return title;
  } catch (cause) {
    deps.logger.warn({ tenant, err: cause instanceof Error ? cause.message : String(cause) }, "conversation title from the model failed; first sentence used");
  }
  return autoTitle(firstUserMessage);
}
