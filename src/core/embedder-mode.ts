/** Which embedder family produced a vector (drift calibration depends on it). */
export type EmbedderMode = "hash" | "use" | "openai";
