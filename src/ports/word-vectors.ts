import type { WordLookup } from "../core/word-channel.js";

/** A fixed vocabulary of L2-normalised word vectors (the recall's word channel reads it). */
export interface WordVectors extends WordLookup {
  /** Words held. */
  readonly size: number;
}
