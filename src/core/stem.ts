import { createRequire } from "node:module";

// The Porter2 (English) stemmer LanceDB's default full-text analyzer uses too.
const stemWord = createRequire(import.meta.url)("wink-porter2-stemmer") as (word: string) => string;

// Stemming dominates text analysis and words repeat (Zipf): stems are remembered, with a bound.
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;

/** The Porter2 stem of a lower-case word (memoised). */
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= MAX_STEMS) stems.clear();
    stems.set(word, (s = stemWord(word)));
  }
  return s;
}
