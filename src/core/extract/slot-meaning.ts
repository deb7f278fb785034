import { cosine } from "../ranking.js";
import type { SlotName } from "./slots.js";

/**
 * Prototype sentences per slot, for classifying a statement's slot by meaning (the `use`
 * embedder) when no slot pattern matched: how people say where they live, where they work, what
 * they do, who they are with and what they are called, and how they say it changed. "none" holds
 * statements about other people and everyday news. Written for this purpose, not taken from any
 * evaluation set.
 */
export const SLOT_PROTOTYPES: Readonly<Record<SlotName | "none", readonly string[]>> = {
  lives_in: [
    "I live in a small town by the coast.",
    "I rent a flat in the city.",
    "My house is in a village up north.",
    "I moved to a new city.",
    "We relocated to another town last month.",
    "I've settled into my new place in another city.",
    "We left our old town behind and live somewhere new now.",
    "I bought a house in a different town and moved in.",
    "I got transferred and live there now.",
    "My home is in the north of the country.",
    "I'm living by the sea now.",
    "Our new flat is in the city centre.",
  ],
  works_at: [
    "I work at a supermarket.",
    "I'm a nurse at the local hospital.",
    "I drive for a delivery company.",
    "I started a new job at another company.",
    "I left my old employer and joined a new one.",
    "I quit and now work somewhere else.",
    "I got hired by a different firm.",
    "I switched companies this year.",
    "My last day at the old company was Friday and I start at the new one on Monday.",
    "I work for a big company in town.",
    "My office is at the bank's headquarters.",
    "I escaped that place and work at a different hospital now.",
  ],
  job: [
    "I'm a student.",
    "I work as a cleaner.",
    "I'm a stay-at-home parent.",
    "I got promoted to manager.",
    "I changed careers and became a teacher.",
    "I retrained and work as an electrician now.",
    "I qualified as a nurse.",
    "I'm a senior engineer now.",
    "I retired from my job.",
    "I took a new role as director.",
    "I drive a taxi for a living.",
    "I'm a doctor.",
  ],
  relationship: [
    "I'm married to my wife.",
    "I'm dating someone.",
    "I'm single.",
    "I live with my boyfriend.",
    "We got married.",
    "We broke up.",
    "I'm single again.",
    "I got engaged.",
    "I have a new girlfriend.",
    "My husband and I divorced.",
    "I'm seeing someone new.",
    "My partner died and I'm a widow now.",
    "He proposed and I said yes.",
  ],
  name: [
    "My name is Sam Taylor.",
    "I'm called Alex.",
    "Hi, I'm Jordan.",
    "I changed my name.",
    "Please call me by my new name.",
    "I took my husband's surname.",
    "I go by a nickname now.",
    "I went back to my maiden name.",
    "My name is on everything now, passport and bank.",
  ],
  none: [
    "I went to the shops today.",
    "I love pizza.",
    "My sister moved to a new city.",
    "My husband got a new job.",
    "I had a great weekend with friends.",
    "Work was busy today.",
    "I'm reading a good book.",
    "The weather is lovely.",
    "My friend just got divorced.",
    "I'm tired after the gym.",
  ],
};

/** The slot prototypes embedded by a semantic embedder. */
export type SlotPrototypeVectors = readonly { slot: SlotName | "none"; vector: Float32Array }[];

/** The slot prototype sentences in a fixed order, each with its slot. */
export function slotPrototypeTexts(): { slot: SlotName | "none"; text: string }[] {
  return (Object.keys(SLOT_PROTOTYPES) as (SlotName | "none")[]).flatMap((slot) => SLOT_PROTOTYPES[slot].map((text) => ({ slot, text })));
}

/** Thresholds of the slot judgement by meaning (chosen on the tune half of bench/labels; the stored-fact ones by a sweep there, 2026-12-04). */
export interface SlotMeaningThresholds {
  /** Least similarity to the closest prototype of the slot (default 0.5). */
  minSimilarity: number;
  /** Least lead over the closest "none" prototype (default 0.05). */
  minMargin: number;
}

/** The defaults the offline extractor uses for a new statement (which must also tell of a change). */
export const SLOT_MEANING_THRESHOLDS: SlotMeaningThresholds = { minSimilarity: 0.5, minMargin: 0.05 };

/**
 * The defaults for a stored fact: a plain statement of the speaker's state ("Diego drives for
 * Uber most nights") sits further from the prototypes than a told change, and a stored fact's
 * slot only matters once a new statement of change by the speaker names the same slot.
 */
export const STORED_SLOT_THRESHOLDS: SlotMeaningThresholds = { minSimilarity: 0.4, minMargin: 0.02 };

/** Each slot's closest prototype similarity, and the closest "none" prototype's. */
function slotScores(vector: Float32Array, prototypes: SlotPrototypeVectors): { best: Map<SlotName, number>; none: number } {
  const best = new Map<SlotName, number>();
  let none = -2;
  for (const p of prototypes) {
    const s = cosine(vector, p.vector);
    if (p.slot === "none") none = Math.max(none, s);
    else best.set(p.slot, Math.max(best.get(p.slot) ?? -2, s));
  }
  return { best, none };
}

/** The slot a statement speaks of by meaning, or null when it is none or unclear. */
export function slotByMeaning(vector: Float32Array, prototypes: SlotPrototypeVectors, t = SLOT_MEANING_THRESHOLDS): SlotName | null {
  const { best, none } = slotScores(vector, prototypes);
  const [top] = [...best].sort((x, y) => y[1] - x[1]);
  return top !== undefined && top[1] >= t.minSimilarity && top[1] - none >= t.minMargin ? top[0] : null;
}

/**
 * Every slot a stored fact speaks of by meaning: each slot whose closest prototype clears the
 * thresholds, not only the closest. A first turn often says two things at once ("a physio living
 * in Leeds", "a sheep block out past Gisborne, me and the husband"), and the closest slot is then
 * only one of them.
 */
export function slotsByMeaning(vector: Float32Array, prototypes: SlotPrototypeVectors, t = STORED_SLOT_THRESHOLDS): SlotName[] {
  const { best, none } = slotScores(vector, prototypes);
  return [...best].filter(([, s]) => s >= t.minSimilarity && s - none >= t.minMargin).map(([slot]) => slot);
}
