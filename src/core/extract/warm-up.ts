import { questionNames } from "./entities.js";
import { extractOffline } from "./offline-extractor.js";
import { queryDates } from "../time-cue.js";

/**
 * Runs the text parsers once on a sample turn and question. chrono-node and compromise build
 * their parsers on first use (~150 ms together on 2 cores): paid at start-up, not by the first
 * recall or `Add` that names a month or a person.
 */
export function warmUpParsers(nowMs: number): void {
  extractOffline({
    messages: [{ id: "warm-up", role: "user", name: "Maya", content: "I moved from London to Paris last Friday and started at Acme on March 3, 2024. I love jazz." }],
    observedAt: nowMs,
    storedFacts: [{ id: "warm-up-fact", text: "Maya lives in London" }],
    strategies: [],
  });
  queryDates("What did Maya do in May 2023 or on October 13, 2023?", nowMs);
  questionNames("When did Maya meet John in Berlin?");
}
