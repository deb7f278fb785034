import { detect, type Detection } from "../../core/relational/detector.js";
import { EMOTION_WEIGHTS, EMOTION_WEIGHTS_MODEL } from "../../core/relational/emotion-weights.js";
import { type MessageMeaning, type PrototypeVectors, prototypeTexts, prototypeVectors } from "../../core/relational/meaning.js";
import type { Embedder } from "../../ports/embedder.js";

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
    pending = embedder
      .embed([...texts.crisis.map(([, t]) => t), ...texts.safe, ...texts.emotions.map(([, t]) => t), ...texts.examples.map(([, , t]) => t)])
      .then((vectors) => prototypeVectors(vectors, embedder.model === EMOTION_WEIGHTS_MODEL ? { weights: EMOTION_WEIGHTS } : null));
    pending.catch(() => cache.delete(embedder));
    cache.set(embedder, pending);
  }
  return pending;
}

/** Detects emotions, crisis and intent in `message`, with meaning when `vector` comes from a semantic `embedder`. */
export async function judgeMessage(embedder: Embedder, message: string, vector: Float32Array | undefined): Promise<Detection> {
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
