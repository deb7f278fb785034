import type { ExtractorContext } from "../../core/extract/extractor-prompt.js";
import { type SlotMeaning, statementSentences } from "../../core/extract/offline-extractor.js";
import { type SlotPrototypeVectors, slotByMeaning, slotPrototypeTexts, slotsByMeaning } from "../../core/extract/slot-meaning.js";
import type { SlotName } from "../../core/extract/slots.js";
import type { Embedder } from "../../ports/embedder.js";

// One slot prototype set per embedder instance, embedded on first use.
const cache = new WeakMap<Embedder, Promise<SlotPrototypeVectors>>();

function prototypes(embedder: Embedder): Promise<SlotPrototypeVectors> {
  let pending = cache.get(embedder);
  if (!pending) {
    const texts = slotPrototypeTexts();
    pending = embedder.embed(texts.map((t) => t.text)).then((vectors) => texts.map((t, i) => ({ slot: t.slot, vector: vectors[i] })));
    pending.catch(() => cache.delete(embedder));
    cache.set(embedder, pending);
  }
  return pending;
}

/**
 * The slots of the user's statement sentences and of the stored facts by meaning, for the offline
 * extractor: one embed call for the sentences, the stored facts' own vectors. Undefined with an
 * embedder that only captures shared words (`hash`) or when embedding fails (the rules still run).
 */
export async function slotMeaningFor(embedder: Embedder, context: ExtractorContext): Promise<SlotMeaning | undefined> {
  if (!embedder.semantic) return undefined;
  const sentences = [...new Set(context.messages.filter((m) => m.role === "user").flatMap((m) => statementSentences(m.content)))];
  try {
    const [protos, vectors] = await Promise.all([prototypes(embedder), embedder.embed(sentences)]);
    const bySentence = new Map<string, SlotName>();
    sentences.forEach((s, i) => {
      const slot = slotByMeaning(vectors[i], protos);
      if (slot) bySentence.set(s, slot);
    });
    const stored = new Map<string, SlotName[]>();
    for (const f of context.storedFacts) {
      const slots = f.vector && f.vector.length === vectors[0]?.length ? slotsByMeaning(f.vector, protos) : [];
      if (slots.length > 0) stored.set(f.id, slots);
    }
    return { sentences: bySentence, stored };
  } catch {
    // Meaning is an aid to the rules, never a reason to lose a turn's facts.
    return undefined;
  }
}
