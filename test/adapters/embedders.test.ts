import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMemError } from "../../src/core/errors.js";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { createOpenAIEmbedder } from "../../src/adapters/embedders/openai-embedder.js";
import { createUseEmbedder } from "../../src/adapters/embedders/use-embedder.js";
import { startFakeOpenAI, fakeTokens, type FakeOpenAI } from "../support/fake-openai.js";
import { cosine, runEmbedderContract } from "./embedder-contract.js";

/** One model instance for the whole file: loading it costs about a second. */
const use = createUseEmbedder();
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ dimension: 48 });
});
afterAll(async () => {
  await fake.close();
});

runEmbedderContract("hash", async () => createHashEmbedder());

runEmbedderContract("use", async () => {
  await use.warmUp();
  return use;
});

runEmbedderContract("openai (fake server)", async () => {
  const embedder = createOpenAIEmbedder({ baseURL: fake.baseURL, model: "fake-embed", batchSize: 16, maxRetries: 0 });
  await embedder.warmUp();
  return embedder;
});

describe("hash embedder", () => {
  const embedder = createHashEmbedder();

  it("is hashing-v1: 384-d, not semantic", () => {
    expect(embedder).toMatchObject({ mode: "hash", model: "hashing-v1", dimension: 384, semantic: false, multimodal: false });
  });

  it("keeps hashing-v1 frozen: stored vectors depend on the exact features", async () => {
    const [vector] = await embedder.embed(["Caroline went to the support group"]);
    const buckets = [...vector.keys()].filter((i) => vector[i] !== 0);
    // 6 words + 5 bigrams, no collisions: 11 buckets of ±1/sqrt(11).
    expect(buckets).toEqual([10, 18, 36, 41, 73, 75, 95, 187, 318, 346, 376]);
    expect(buckets.filter((i) => vector[i] > 0)).toEqual([95]);
    expect(Math.abs(vector[10])).toBeCloseTo(1 / Math.sqrt(11), 6);
  });

  it("ignores case, punctuation and Unicode composition", async () => {
    const [a, b, c, d] = await embedder.embed(["Café, au lait!", "cafe\u0301 AU LAIT", "café au lait", "café noir"]);
    expect(cosine(a, b)).toBeCloseTo(1, 6);
    expect(cosine(a, c)).toBeCloseTo(1, 6);
    expect(cosine(a, d)).toBeLessThan(0.9);
  });

  it("scores shared words above unrelated text", async () => {
    const [query, near, far] = await embedder.embed(["where does Caroline live", "Caroline lives in Paris", "quarterly revenue grew"]);
    expect(cosine(query, near)).toBeGreaterThan(cosine(query, far) + 0.1);
  });

  it("tokenises non-Latin scripts", async () => {
    const [a, b, c] = await embedder.embed(["Москва столица России", "столица России Москва", "東京 大阪"]);
    expect(cosine(a, b)).toBeGreaterThan(0.5);
    expect(cosine(a, c)).toBeLessThan(0.3);
  });

  it("maps every text without words to the same unit vector", async () => {
    const [empty, punctuation] = await embedder.embed(["", " ?! — …"]);
    expect(cosine(empty, punctuation)).toBeCloseTo(1, 6);
  });

  it("embeds 10,000 texts", async () => {
    const texts = Array.from({ length: 10_000 }, (_, i) => `memory ${i}: the user said something about topic ${i % 97} today`);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(10_000);
    expect(cosine(vectors[0], vectors[97])).toBeGreaterThan(cosine(vectors[0], vectors[1]));
  });
});

describe("use embedder", () => {
  const embedder = use;

  it("is Universal Sentence Encoder lite: 512-d, semantic", () => {
    expect(embedder).toMatchObject({ mode: "use", model: "universal-sentence-encoder-lite", dimension: 512, semantic: true });
  });

  it("puts paraphrases nearer than unrelated sentences", async () => {
    const [cat, kitten, revenue] = await embedder.embed(["The cat sat on the mat", "A kitten is sitting on a rug", "Quarterly revenue grew by 5%"]);
    expect(cosine(cat, kitten)).toBeGreaterThan(cosine(cat, revenue) + 0.3);
  }, 60_000);

  it("relates a move to a question about where someone lives", async () => {
    const [moved, where, revenue] = await embedder.embed(["I moved to Paris last week", "where does she live now", "Quarterly revenue grew by 5%"]);
    expect(cosine(moved, where)).toBeGreaterThan(cosine(revenue, where));
  }, 60_000);

  it("embeds a 30,000-character text in pieces, close to its parts", async () => {
    const part = "We hiked in the mountains and camped by a lake. ".repeat(200);
    const [whole, piece, other] = await embedder.embed([part.repeat(3), part, "Quarterly revenue grew by 5%"]);
    expect(cosine(whole, piece)).toBeGreaterThan(0.95);
    expect(cosine(whole, other)).toBeLessThan(0.5);
  }, 60_000);
});

describe("openai embedder", () => {
  it("learns its dimension from the first answer and reports usage per request", async () => {
    const usage: [number, number][] = [];
    const embedder = createOpenAIEmbedder({
      baseURL: fake.baseURL,
      apiKey: "sk-test",
      model: "fake-embed",
      batchSize: 2,
      onUsage: (tokens, chars) => usage.push([tokens, chars]),
    });
    expect(embedder.dimension).toBe(0);
    fake.requests.length = 0;
    await embedder.embed(["alpha", "beta", "gamma"]);
    expect(embedder.dimension).toBe(48);
    expect(usage).toEqual([
      [fakeTokens("alpha") + fakeTokens("beta"), 9],
      [fakeTokens("gamma"), 5],
    ]);
    expect(fake.requests.map((r) => r.body)).toEqual([
      { model: "fake-embed", input: ["alpha", "beta"], encoding_format: "float" },
      { model: "fake-embed", input: ["gamma"], encoding_format: "float" },
    ]);
    expect(fake.requests[0].headers.authorization).toBe("Bearer sk-test");
  });

  it("orders vectors by the answer's index, not by position", async () => {
    const embedder = createOpenAIEmbedder({ baseURL: fake.baseURL, model: "fake-embed", maxRetries: 0 });
    const inOrder = await embedder.embed(["alpha", "beta", "gamma"]);
    fake.setIntercept(async (request) => {
      if (request.path !== "/v1/embeddings") return undefined;
      fake.setIntercept(undefined);
      const response = await fetch(`${fake.baseURL}/embeddings`, { method: "POST", body: JSON.stringify(request.body) });
      const answer = (await response.json()) as { data: unknown[] };
      return { status: 200, body: JSON.stringify({ ...answer, data: answer.data.reverse() }) };
    });
    try {
      const shuffled = await embedder.embed(["alpha", "beta", "gamma"]);
      shuffled.forEach((vector, i) => expect(cosine(vector, inOrder[i])).toBeCloseTo(1, 6));
    } finally {
      fake.setIntercept(undefined);
    }
  });

  it("rejects answers of another dimension", async () => {
    const embedder = createOpenAIEmbedder({ baseURL: fake.baseURL, model: "fake-embed", dimension: 1536 });
    await expect(embedder.embed(["alpha"])).rejects.toMatchObject({ code: "FAILED_PRECONDITION", reason: "EMBEDDING_DIMENSION_MISMATCH" });
  });

  it("translates HTTP failures to EMBEDDER_UNAVAILABLE after its retries", async () => {
    const embedder = createOpenAIEmbedder({ baseURL: fake.baseURL, model: "fake-embed", maxRetries: 1 });
    fake.setIntercept(() => ({ status: 503, body: '{"error":{"message":"overloaded"}}' }));
    fake.requests.length = 0;
    try {
      const failure = await embedder.embed(["alpha"]).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AgentMemError);
      expect(failure).toMatchObject({ code: "UNAVAILABLE", reason: "EMBEDDER_UNAVAILABLE", metadata: { status: "503" } });
      expect(fake.requests).toHaveLength(2);
    } finally {
      fake.setIntercept(undefined);
    }
  });

  it("translates a refused connection to EMBEDDER_UNAVAILABLE", async () => {
    const closed = await startFakeOpenAI();
    await closed.close();
    const embedder = createOpenAIEmbedder({ baseURL: closed.baseURL, model: "fake-embed", maxRetries: 0 });
    await expect(embedder.warmUp()).rejects.toMatchObject({ code: "UNAVAILABLE", reason: "EMBEDDER_UNAVAILABLE" });
  });

  it("times out a hanging endpoint", async () => {
    const embedder = createOpenAIEmbedder({ baseURL: fake.baseURL, model: "fake-embed", timeoutMs: 200, maxRetries: 0 });
    fake.setIntercept(() => new Promise((resolve) => setTimeout(() => resolve(undefined), 2_000)));
    try {
      await expect(embedder.embed(["alpha"])).rejects.toMatchObject({ code: "UNAVAILABLE", reason: "EMBEDDER_UNAVAILABLE" });
    } finally {
      fake.setIntercept(undefined);
    }
  });
});
