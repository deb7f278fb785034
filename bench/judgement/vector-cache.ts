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

const SCORES = join("node_modules", ".cache", "agentmem", "crisis-oof-scores.json");

/** Out-of-fold scores of a chosen model (with its penalty and class weight). */
export interface ChosenModel {
  l2: number;
  positiveWeight: number;
  auc: number;
  oof: number[];
}

/**
 * The crisis trainer's chosen models and out-of-fold scores: computed by `compute` (and kept on
 * disk), or, when `reuse` is set and the kept ones are for the same texts, read back.
 */
export async function cachedScores<T extends Record<string, ChosenModel>>(texts: readonly string[], reuse: boolean | undefined, compute: () => T | Promise<T>): Promise<T> {
  if (reuse && existsSync(SCORES)) {
    const kept = JSON.parse(readFileSync(SCORES, "utf8")) as { texts: string[]; models: T };
    if (kept.texts.length === texts.length && kept.texts.every((t, i) => t === texts[i])) return kept.models;
  }
  const models = await compute();
  mkdirSync(dirname(SCORES), { recursive: true });
  writeFileSync(SCORES, JSON.stringify({ texts, models }));
  return models;
}
