import { createRequire } from "node:module";

interface Vader {
  SentimentIntensityAnalyzer: { polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number } };
}

// vader-sentiment is a CommonJS webpack bundle without named ESM exports; load it through require.
const vader = createRequire(import.meta.url)("vader-sentiment") as Vader;

/**
 * Valence of a text in [-1,1]: VADER's compound score (Hutto & Gilbert, 2014), a lexicon-and-rules
 * model built for short social text that handles negation, intensifiers, capitals and `!`.
 * Conventional cut-offs: ≥ 0.05 positive, ≤ −0.05 negative.
 */
export function valence(text: string): number {
  if (text.trim() === "") return 0;
  // The detector and the crisis word model read the same message's valence: the last one is remembered.
  if (text !== lastText) {
    lastValue = vader.SentimentIntensityAnalyzer.polarity_scores(text).compound;
    lastText = text;
  }
  return lastValue;
}

let lastText = "";
let lastValue = 0;
