import { beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/ports/embedder.js";

/** Cosine similarity of two vectors of equal length. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return dot / Math.sqrt(normA * normB);
}

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

/** Expects two vectors to be the same up to float noise (models may differ slightly by batch). */
function expectSameVector(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  expect(cosine(actual, expected)).toBeGreaterThan(0.99999);
}

const SENTENCES = [
  "Caroline went to the LGBTQ support group yesterday.",
  "Melanie painted a sunrise over the lake last year.",
  "The quarterly report is due on Friday.",
  "I moved to Paris last week.",
  "My favourite food is spicy ramen.",
];

/**
 * The behaviour every {@link Embedder} must show. `make` is called once per suite; it may warm the
 * embedder up (the `openai` embedder learns its dimension from the first answer).
 */
export function runEmbedderContract(name: string, make: () => Promise<Embedder>): void {
  describe(`Embedder contract: ${name}`, () => {
    let embedder: Embedder;

    beforeAll(async () => {
      embedder = await make();
    }, 120_000);

    it("describes itself", () => {
      expect(["hash", "use", "openai"]).toContain(embedder.mode);
      expect(embedder.model).not.toBe("");
      expect(embedder.dimension).toBeGreaterThan(0);
    });

    it("returns one vector of `dimension` finite floats per text", async () => {
      const vectors = await embedder.embed(SENTENCES);
      expect(vectors).toHaveLength(SENTENCES.length);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector).toHaveLength(embedder.dimension);
        expect(vector.every(Number.isFinite)).toBe(true);
      }
    });

    it("L2-normalises every vector", async () => {
      for (const vector of await embedder.embed([...SENTENCES, "x", "Hello, WORLD!!"])) {
        expect(norm(vector)).toBeCloseTo(1, 5);
      }
    });

    it("is deterministic", async () => {
      const [first] = await embedder.embed([SENTENCES[0]]);
      const [second] = await embedder.embed([SENTENCES[0]]);
      expectSameVector(second, first);
    });

    it("preserves order in a batch larger than any internal chunk", async () => {
      const texts = Array.from({ length: 70 }, (_, i) => `${SENTENCES[i % SENTENCES.length]} (note ${i})`);
      texts[3] = "A much longer line, ".repeat(40);
      const batch = await embedder.embed(texts);
      expect(batch).toHaveLength(texts.length);
      for (const i of [0, 3, 31, 32, 33, 69]) {
        const [alone] = await embedder.embed([texts[i]]);
        expectSameVector(batch[i], alone);
      }
    });

    it("returns [] for no texts", async () => {
      expect(await embedder.embed([])).toEqual([]);
    });

    it("gives different texts different vectors", async () => {
      const vectors = await embedder.embed(SENTENCES);
      for (let i = 0; i < vectors.length; i++) {
        for (let j = i + 1; j < vectors.length; j++) expect(cosine(vectors[i], vectors[j])).toBeLessThan(0.99);
      }
    });

    it("embeds a 10,000-character text", async () => {
      const long = Array.from({ length: 2_000 }, (_, i) => SENTENCES[i % SENTENCES.length]).join(" ").slice(0, 10_000);
      const [vector] = await embedder.embed([long]);
      expect(vector).toHaveLength(embedder.dimension);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }, 30_000);

    it("embeds the empty string as a unit vector", async () => {
      const [empty, text] = await embedder.embed(["", SENTENCES[0]]);
      expect(norm(empty)).toBeCloseTo(1, 5);
      expectSameVector(text, (await embedder.embed([SENTENCES[0]]))[0]);
    });

    it("answers concurrent calls as if they were sequential", async () => {
      const sequential: Float32Array[] = [];
      for (const text of SENTENCES) sequential.push((await embedder.embed([text]))[0]);
      const concurrent = await Promise.all(SENTENCES.map(async (text) => (await embedder.embed([text]))[0]));
      concurrent.forEach((vector, i) => expectSameVector(vector, sequential[i]));
    });
  });
}
