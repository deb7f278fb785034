import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Embedder } from "../../src/ports/embedder.js";

/**
 * Embeds texts through a disk cache (node_modules/.cache/agentmem/judgement-vectors-<model>.json,
 * keyed by text), so that the trainers' cross-validation runs do not re-embed the label sets.
 */
export async function embedCached(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const file = join("node_modules", ".cache", "agentmem", `judgement-vectors-${embedder.model}.json`);
  const cache: Record<string, number[]> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const missing = [...new Set(texts.filter((t) => !cache[t]))];
  if (missing.length > 0) {
    const vectors = await embedder.embed(missing);
    missing.forEach((t, i) => {
      cache[t] = Array.from(vectors[i], (x) => Number(x.toFixed(6)));
    });
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(cache));
  }
  return texts.map((t) => Float32Array.from(cache[t]));
}

const OUT_OF_FOLD = join("node_modules", ".cache", "agentmem", "crisis-out-of-fold.json");

/** Keeps the crisis trainer's out-of-fold decisions per tune text (for the emotion trainer). */
export function writeOutOfFold(decisions: Record<string, boolean>): void {
  mkdirSync(dirname(OUT_OF_FOLD), { recursive: true });
  writeFileSync(OUT_OF_FOLD, JSON.stringify(decisions));
}

/** The crisis trainer's out-of-fold decisions, or null before it has run. */
export function readOutOfFold(): Record<string, boolean> | null {
  return existsSync(OUT_OF_FOLD) ? JSON.parse(readFileSync(OUT_OF_FOLD, "utf8")) : null;
}
