/** A fixed vocabulary of L2-normalised word vectors (the recall's word channel reads it). */
export interface WordVectors {
  /** Vector length. */
  readonly dimension: number;
  /** Words held. */
  readonly size: number;
  /** The vector of a lower-case word, or undefined when the vocabulary lacks it. */
  vector(word: string): Float32Array | undefined;
  /** Frequency rank of a word held (0 = most frequent), or undefined. */
  rank(word: string): number | undefined;
}
