import type { Logger } from "pino";
import { AgentMemError, logDetailOf } from "../../core/errors.js";
import { detect, type Detection, hasComplaintCue } from "../../core/relational/detector.js";
import { CRISIS_THRESHOLD, CRISIS_WEIGHTS, CRISIS_WEIGHTS_MODEL } from "../../core/relational/crisis-weights.js";
import { EMOTION_CLASS_BIAS, EMOTION_WEIGHTS, EMOTION_WEIGHTS_MODEL } from "../../core/relational/emotion-weights.js";
import { type MessageMeaning, type PrototypeVectors, prototypeTexts, prototypeVectors } from "../../core/relational/meaning.js";
import { WORD_VOCABULARY } from "../../core/relational/word-vocabulary.js";
import { type ModelJudgement, modelJudgementPrompt, parseModelJudgement, withModelJudgement } from "../../core/relational/model-judgement.js";
import type { ChatModel } from "../../ports/chat-model.js";
import type { Embedder } from "../../ports/embedder.js";

/** Longest judgement answer asked for: the JSON object is a few dozen tokens. */
const MAX_JUDGEMENT_TOKENS = 120;

// One prototype set per embedder instance, embedded on first use.
const cache = new WeakMap<Embedder, Promise<PrototypeVectors>>();

/**
 * The prototype sentences embedded by `embedder`, once (lazily, cached per embedder), or null for
 * an embedder that only captures shared words (`hash`): then the detector's rules run alone. A
 * failed embedding is not cached, so the next message tries again.
 */
export function prototypesFor(embedder: Embedder): Promise<PrototypeVectors> | null {
  if (!embedder.semantic) return null;
  let pending = cache.get(embedder);
  if (!pending) {
    const texts = prototypeTexts();
    // With a trained crisis model the labelled examples of the nearest-sentence vote are not needed.
    const crisisModel = embedder.model === CRISIS_WEIGHTS_MODEL ? { weights: CRISIS_WEIGHTS, threshold: CRISIS_THRESHOLD } : null;
    const examples = crisisModel ? [] : texts.examples.map(([, , t]) => t);
    pending = embedder
      .embed([...texts.crisis.map(([, t]) => t), ...texts.safe, ...texts.emotions.map(([, t]) => t), ...examples])
      .then((vectors) => prototypeVectors(vectors, embedder.model === EMOTION_WEIGHTS_MODEL ? { weights: EMOTION_WEIGHTS, vocabulary: WORD_VOCABULARY, bias: EMOTION_CLASS_BIAS } : null, crisisModel));
    pending.catch(() => cache.delete(embedder));
    cache.set(embedder, pending);
  }
  return pending;
}

/** Detects emotions, crisis and intent in `message` offline: rules, and meaning when `vector` comes from a semantic `embedder`. */
export async function judgeOffline(embedder: Embedder, message: string, vector: Float32Array | undefined): Promise<Detection> {
  const prototypes = vector ? prototypesFor(embedder) : null;
  let meaning: MessageMeaning | undefined;
  if (prototypes && vector) {
    try {
      meaning = { vector, prototypes: await prototypes };
    } catch {
      // The prototypes could not be embedded: judge by the rules alone this time (retried next message).
      meaning = undefined;
    }
  }
  return detect(message, {}, meaning);
}

/**
 * Asks the chat model for a strict-JSON judgement (validated; one retry after an invalid answer
 * or a failed call). Null when no valid answer came: the caller keeps the offline judgement.
 */
export async function askModelJudgement(chat: ChatModel, logger: Logger, tenant: string, message: string): Promise<ModelJudgement | null> {
  const request = modelJudgementPrompt(message);
  let problem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const answer = await chat.complete({ messages: request, json: true, tenant, temperature: 0, maxTokens: MAX_JUDGEMENT_TOKENS });
      const judgement = parseModelJudgement(answer.content);
      if (judgement) return judgement;
      problem = "INVALID_JUDGEMENT_ANSWER";
    } catch (error) {
      if (!(error instanceof AgentMemError)) throw error;
      problem = `${error.reason}: ${logDetailOf(error)}`;
    }
  }
  logger.warn({ tenant, problem }, "process: the chat model gave no valid judgement after one retry; using the offline detector");
  return null;
}

/** What {@link judgeMessage} needs. */
export interface JudgementDeps {
  embedder: Embedder;
  chat: ChatModel;
  logger: Logger;
}

/**
 * Detects emotions, crisis and intent in `message`. Offline always; with a chat model configured
 * the model is asked as well (side by side): crisis is the OR of both and the emotions are the
 * model's; any model failure leaves the offline judgement.
 */
export async function judgeMessage(deps: JudgementDeps, tenant: string, message: string, vector: Float32Array | undefined): Promise<Detection> {
  const [offline, model] = await Promise.all([
    judgeOffline(deps.embedder, message, vector),
    deps.chat.available ? askModelJudgement(deps.chat, deps.logger, tenant, message) : null,
  ]);
  return model ? withModelJudgement(message, offline, model, hasComplaintCue(message)) : offline;
}
