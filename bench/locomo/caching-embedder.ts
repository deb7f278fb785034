import type { Embedder } from "../../src/ports/embedder.js";

/**
 * The embedder with a cache in front, by text: every row of a run asks the same questions and the
 * import variants share most turn texts, so each text is embedded once per run. Same vectors, less
 * CPU — latency figures come from the first row, whose queries are not cached yet.
 */
export function cachingEmbedder(inner: Embedder): Embedder {
  const cache = new Map<string, Float32Array>();
  return {
    mode: inner.mode,
    model: inner.model,
    dimension: inner.dimension,
    semantic: inner.semantic,
    multimodal: inner.multimodal,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length > 0) (await inner.embed(missing)).forEach((v, i) => cache.set(missing[i], v));
      return texts.map((t) => cache.get(t) as Float32Array);
    },
  };
}
