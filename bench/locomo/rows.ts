import { type ChannelFloors, DEFAULT_FLOORS } from "../../src/core/channel-scaling.js";
import type { FusionWeights } from "../../src/core/ranking.js";
import type { RecallTuning } from "../../src/services/memory/recall.js";

/** Knobs of an in-process row: tuning fields plus partial default weights. */
export type TuningOverride = Partial<Omit<RecallTuning, "weights">> & { weights?: Partial<FusionWeights> };

/**
 * One measured configuration. `api` rows call Recall over HTTP, with per-request `weights` when
 * given; `in-process` rows call the same `recall()` with other tuning (knobs that are not
 * per-request weights); `bm25` is the bare LanceDB baseline. Every row starts from its own copy
 * of the ingested data, so use counts written by one row never reach another.
 */
export interface RowSpec {
  name: string;
  via: "api" | "in-process" | "bm25";
  /** Per-request channel weights (api rows). */
  weights?: Partial<FusionWeights>;
  /** Tuning (in-process rows). */
  tuning?: TuningOverride;
  /** What the row shows. */
  why: string;
  /** Word-vector vocabulary (most frequent words kept) when the row uses the word channel; default 50,000. */
  wordVocabulary?: number;
  /** Also scored on every import variant (bench/locomo/import-variants.ts), not only the first. */
  acrossImports?: boolean;
}

const scaled = (f: ChannelFloors, by: number): ChannelFloors => ({ lexical: f.lexical * by, vector: f.vector * by, words: f.words * by });
const half = (f: ChannelFloors) => scaled(f, 0.5);
const twice = (f: ChannelFloors) => scaled(f, 2);

const PURE = { expandQuery: false, questionFactor: 1 } as const;

/** The rows of a full run, headline first. */
export const ROWS: readonly RowSpec[] = [
  { name: "agentmem default", via: "api", acrossImports: true, why: "what `agentmem serve` does (use embedder, no LLM)" },
  { name: "BM25 baseline", via: "bm25", why: "bare LanceDB FTS over the same turns" },
  {
    name: "lexical alone",
    via: "in-process",
    tuning: { ...PURE, weights: { lexical: 1, vector: 0, names: 0, context: 0, time: 0, salience: 0 } },
    why: "agentmem's BM25 channel only",
  },
  {
    name: "vector alone",
    via: "in-process",
    tuning: { ...PURE, weights: { lexical: 0, vector: 1, names: 0, context: 0, time: 0, salience: 0 } },
    why: "USE cosine only",
  },
  {
    name: "vector alone + expansion",
    via: "in-process",
    tuning: { questionFactor: 1, expandQuery: true, weights: { lexical: 0, vector: 1, names: 0, context: 0, time: 0, salience: 0 } },
    why: "query vector averaged with its content words'",
  },
  {
    name: "spec fusion (Lucenia)",
    via: "in-process",
    tuning: { ...PURE, weights: { lexical: 0.35, vector: 0.65, names: 0, context: 0, time: 0 } },
    why: "0.35 lexical + 0.65 vector, decay, salience 0.25; nothing added",
  },
  { name: "default − context", via: "api", acrossImports: true, weights: { context: 0 }, why: "no inheritance from the previous turn" },
  { name: "default − names", via: "api", acrossImports: true, weights: { names: 0 }, why: "no names channel" },
  { name: "default − time", via: "api", weights: { time: 0 }, why: "no time channel" },
  { name: "default − expansion", via: "in-process", acrossImports: true, tuning: { expandQuery: false }, why: "query vector from the raw query only" },
  { name: "default − question factor", via: "in-process", acrossImports: true, tuning: { questionFactor: 1 }, why: "turns that only ask are not discounted" },
  { name: "default, names in text", via: "in-process", tuning: { namesFromText: true }, why: "names channel also counts mentions" },
  { name: "default − salience", via: "api", weights: { salience: 0 }, why: "no salience blend" },
  { name: "default, next turn 0.5", via: "in-process", tuning: { nextContext: 0.5 }, why: "a turn also inherits 0.5 × the match of the turn after it" },
  { name: "default, next turn 0.8", via: "in-process", acrossImports: true, tuning: { nextContext: 0.8 }, why: "a turn also inherits 0.8 × the match of the turn after it" },
  { name: "default, context 0.6", via: "api", weights: { context: 0.6 }, why: "weaker inheritance" },
  { name: "default, context 1.0", via: "api", weights: { context: 1 }, why: "full inheritance" },
  { name: "default, names 0.3", via: "api", weights: { names: 0.3 }, why: "stronger names channel" },
  { name: "default, min-max scaling", via: "in-process", tuning: { scaling: { kind: "minmax" } }, why: "plain min-max: a tiny spread fills 0..1" },
  { name: "default, rank scaling", via: "in-process", tuning: { scaling: { kind: "rank" } }, why: "reciprocal-rank scaling per channel" },
  { name: "default, floors ×0.5", via: "in-process", tuning: { scaling: { kind: "floor", floors: half(DEFAULT_FLOORS) } }, why: "lower floors on the spread" },
  { name: "default, floors ×2", via: "in-process", tuning: { scaling: { kind: "floor", floors: twice(DEFAULT_FLOORS) } }, why: "higher floors on the spread" },
  { name: "default, words 0.15", via: "in-process", tuning: { weights: { words: 0.15 } }, why: "word-vector channel (50k words)" },
  { name: "default, words 0.3", via: "in-process", tuning: { weights: { words: 0.3 } }, why: "word-vector channel (50k words)" },
  { name: "default, words 0.5", via: "in-process", tuning: { weights: { words: 0.5 } }, why: "word-vector channel (50k words)" },
  {
    name: "default, words 0.15, 150k words",
    via: "in-process",
    tuning: { weights: { words: 0.15 } },
    wordVocabulary: 150_000,
    why: "what the 50k-word file keeps of a 150k one",
  },
  { name: "default, lexical 0.35", via: "in-process", acrossImports: true, tuning: { weights: { lexical: 0.35, vector: 0.65 } }, why: "the spec's 0.35 / 0.65 split (the default before)" },
  { name: "default, lexical 0.65", via: "in-process", acrossImports: true, tuning: { weights: { lexical: 0.65, vector: 0.35 } }, why: "lexical ahead" },
  { name: "lexical 0.5, words 0.15", via: "in-process", tuning: { weights: { lexical: 0.5, vector: 0.5, words: 0.15 } }, why: "even split + word vectors" },
  { name: "lexical 0.5, words 0.3", via: "in-process", tuning: { weights: { lexical: 0.5, vector: 0.5, words: 0.3 } }, why: "even split + word vectors" },
  { name: "default, lexical 0.42", via: "in-process", tuning: { weights: { lexical: 0.42, vector: 0.58 } }, why: "a little more lexical" },
  { name: "lexical 0.5, words 0.15, 150k", via: "in-process", tuning: { weights: { lexical: 0.5, vector: 0.5, words: 0.15 } }, wordVocabulary: 150_000, why: "even split + word vectors, 150k words" },
  { name: "lexical 0.42, words 0.1", via: "in-process", tuning: { weights: { lexical: 0.42, vector: 0.58, words: 0.1 } }, why: "a little more lexical + light word vectors" },
  { name: "lexical 0.45, words 0.2", via: "in-process", tuning: { weights: { lexical: 0.45, vector: 0.55, words: 0.2 } }, why: "between" },
];
