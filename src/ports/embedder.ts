import type { EmbedderMode } from "../core/embedder-mode.js";

/** Turns text into vectors. Implementations: hash (dev/tests), use (offline default), openai. */
export interface Embedder {
  readonly mode: EmbedderMode;
  /** Model name recorded on every row (`embed_model`), e.g. `hashing-v1`. */
  readonly model: string;
  /** Fixed vector length. */
  readonly dimension: number;
  /** False when vectors only capture shared words (the hashing embedder). */
  readonly semantic: boolean;
  readonly multimodal: boolean;
  /** Embeds texts in order; vectors are L2-normalised. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
