import OpenAI from "openai";
import { AgentMemError, ProviderFailure } from "../../core/errors.js";
import type { Embedder } from "../../ports/embedder.js";

/** Options of {@link createOpenAIEmbedder}. */
export interface OpenAIEmbedderOptions {
  /** Endpoint root including `/v1`. Default `https://api.openai.com/v1` (the environment is not read). */
  baseURL?: string;
  /** Bearer key. Default: a placeholder, for local servers (Ollama, vLLM, TEI) that need none. */
  apiKey?: string;
  /** Model name sent with every request and recorded on rows, e.g. `text-embedding-3-small`. */
  model: string;
  /**
   * Expected vector length. Default: learnt from the first response (`dimension` is 0 until then;
   * call `warmUp()` first). Any response of another length fails with `EMBEDDING_DIMENSION_MISMATCH`.
   */
  dimension?: number;
  /** Called once per HTTP request with the tokens billed (`usage.prompt_tokens`) and the characters sent. */
  onUsage?: (tokens: number, chars: number) => void;
  /** Inputs per request. Default 128 (OpenAI accepts up to 2,048 and 300k tokens per request). */
  batchSize?: number;
  /** Timeout per HTTP attempt in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** Retries after a failed attempt (connection errors, 408, 409, 429, 5xx). Default 1. */
  maxRetries?: number;
}

/** The `openai` embedder, with a probe that fixes `dimension` before the first real request. */
export interface OpenAIEmbedder extends Embedder {
  readonly mode: "openai";
  /** Embeds a probe string, so `dimension` is known and the endpoint proven to answer. */
  warmUp(): Promise<void>;
}

/**
 * Creates an embedder over any OpenAI-compatible `/v1/embeddings` endpoint. Vectors are requested
 * as floats (not every compatible server speaks base64) and L2-normalised here, because not every
 * model returns unit vectors. Empty strings are sent as a single space: OpenAI rejects them.
 * Failures become `UNAVAILABLE` / `EMBEDDER_UNAVAILABLE` with the HTTP status in the metadata.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): OpenAIEmbedder {
  const client = new OpenAI({
    baseURL: options.baseURL ?? "https://api.openai.com/v1",
    apiKey: options.apiKey ?? "no-key",
    timeout: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 1,
  });
  const batchSize = options.batchSize ?? 128;
  let dimension = options.dimension ?? 0;

  async function embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    const input = texts.map((text) => (text.length === 0 ? " " : text));
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await client.embeddings.create({ model: options.model, input, encoding_format: "float" });
    } catch (cause) {
      throw unavailable(options.model, cause);
    }
    const chars = input.reduce((sum, text) => sum + text.length, 0);
    options.onUsage?.(response.usage?.prompt_tokens ?? 0, chars);
    if (response.data?.length !== input.length) {
      throw unavailable(options.model, new Error(`got ${response.data?.length ?? 0} embeddings for ${input.length} inputs`));
    }
    const vectors = new Array<Float32Array | undefined>(input.length);
    for (const item of response.data) {
      if (item.index >= 0 && item.index < input.length) vectors[item.index] = toUnitVector(item.embedding, options.model);
    }
    const ordered = vectors.filter((vector) => vector !== undefined);
    if (ordered.length !== input.length) {
      throw unavailable(options.model, new Error("the response does not hold one embedding per input index"));
    }
    if (dimension === 0) dimension = ordered[0].length;
    for (const vector of ordered) {
      if (vector.length !== dimension) throw dimensionMismatch(options.model, dimension, vector.length);
    }
    return ordered;
  }

  async function embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      vectors.push(...(await embedBatch(texts.slice(start, start + batchSize))));
    }
    return vectors;
  }

  return {
    mode: "openai",
    model: options.model,
    get dimension() {
      return dimension;
    },
    semantic: true,
    multimodal: false,
    embed,
    async warmUp() {
      await embed(["agentmem probe"]);
    },
  };
}

function toUnitVector(values: readonly number[], model: string): Float32Array {
  const vector = Float32Array.from(values);
  let sumSquares = 0;
  for (const x of vector) sumSquares += x * x;
  if (!(sumSquares > 0) || !Number.isFinite(sumSquares)) {
    throw unavailable(model, new Error("the endpoint returned a zero or non-finite vector"));
  }
  const scale = 1 / Math.sqrt(sumSquares);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

function dimensionMismatch(model: string, expected: number, actual: number): AgentMemError {
  return new AgentMemError(
    "FAILED_PRECONDITION",
    "EMBEDDING_DIMENSION_MISMATCH",
    `embedding model ${model} returned ${actual} dimensions, expected ${expected}`,
    undefined,
    { model, expected: String(expected), actual: String(actual) },
  );
}

function unavailable(model: string, cause: unknown): AgentMemError {
  const status = cause instanceof OpenAI.APIError && cause.status !== undefined ? String(cause.status) : "";
  const detail = cause instanceof Error ? cause.message : String(cause);
  const metadata: Record<string, string> = status ? { model, status } : { model };
  const message = `the embedding model ${model} failed${status ? ` (HTTP ${status})` : ""}; details are in the server log`;
  return new ProviderFailure("EMBEDDER_UNAVAILABLE", message, metadata, detail);
}
