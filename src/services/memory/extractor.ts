import { AgentMemError, logDetailOf } from "../../core/errors.js";
import { type ExtractorContext, extractorMessages, keepForStrategies, retryMessages } from "../../core/extract/extractor-prompt.js";
import { extractOffline } from "../../core/extract/offline-extractor.js";
import { type ProposedFact, parseExtractorAnswer } from "../../core/extract/proposed-fact.js";
import type { ChatModel } from "../../ports/chat-model.js";
import type { Embedder } from "../../ports/embedder.js";
import { slotMeaningFor } from "./slot-meaning.js";

/** Model calls and tokens an extraction cost (also reported by the chat adapter's `onUsage`). */
export interface ExtractionUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** What an extraction gave: facts, or an error with the raw turns left as they are. */
export type ExtractionOutcome =
  | { ok: true; facts: ProposedFact[]; usage: ExtractionUsage }
  | { ok: false; error: string; /** For the server log only. */ detail?: string; usage: ExtractionUsage };

/** Turns new messages into proposed facts. */
export interface Extractor {
  /** "llm" with a chat model configured, else "offline" (rules). */
  readonly mode: "llm" | "offline";
  extract(tenant: string, context: ExtractorContext): Promise<ExtractionOutcome>;
}

/** Longest extractor answer asked for, in tokens. */
const MAX_ANSWER_TOKENS = 2_000;

/** A zeroed usage record. */
export function noUsage(): ExtractionUsage {
  return { calls: 0, promptTokens: 0, completionTokens: 0 };
}

/**
 * The extractor for a chat model: one JSON-mode call (`response_format: json_object`) validated
 * by the schema; an invalid answer gets one retry that shows the model its answer and the problem.
 * A model that fails, or answers invalid JSON twice, gives an error and no facts. Without a model
 * the rules-based offline extractor runs instead, with slots by meaning when `embedder` is semantic.
 */
export function createExtractor(chat: ChatModel, embedder?: Embedder): Extractor {
  if (!chat.available) {
    return {
      mode: "offline",
      extract: async (_tenant, context) => ({
        ok: true,
        facts: extractOffline({
          messages: context.messages,
          observedAt: context.observedAt,
          storedFacts: context.storedFacts,
          strategies: context.strategies,
          meaning: embedder ? await slotMeaningFor(embedder, context) : undefined,
        }),
        usage: noUsage(),
      }),
    };
  }

  async function extract(tenant: string, context: ExtractorContext): Promise<ExtractionOutcome> {
    const usage = noUsage();
    const ask = async (messages: ReturnType<typeof extractorMessages>) => {
      usage.calls++;
      const answer = await chat.complete({ messages, json: true, tenant, temperature: 0, maxTokens: MAX_ANSWER_TOKENS });
      usage.promptTokens += answer.promptTokens;
      usage.completionTokens += answer.completionTokens;
      return answer.content;
    };
    const request = extractorMessages(context);
    try {
      const first = await ask(request);
      let parsed = parseExtractorAnswer(first);
      if (!parsed.ok) {
        const second = await ask(retryMessages(request, first, parsed.problem));
        parsed = parseExtractorAnswer(second);
        if (!parsed.ok) return { ok: false, error: `INVALID_EXTRACTOR_ANSWER: ${parsed.problem} (after one retry)`, usage };
      }
      return { ok: true, facts: parsed.facts.filter((f) => keepForStrategies(f.factType, context.strategies)), usage };
    } catch (cause) {
      // Only our own (generic) message reaches the tenant; the provider's text goes to the log.
      if (!(cause instanceof AgentMemError)) return { ok: false, error: "LLM_UNAVAILABLE: the chat model failed; details are in the server log", detail: logDetailOf(cause), usage };
      return { ok: false, error: `${cause.reason}: ${cause.message}`, detail: logDetailOf(cause), usage };
    }
  }

  return { mode: "llm", extract };
}
