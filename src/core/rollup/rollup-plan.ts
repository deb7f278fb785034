import type { MemoryRecord, ScopeKey } from "../records.js";

/** Rollup defaults from the Lucenia design (the minimum is not a request field). */
export const ROLLUP_DEFAULTS = {
  olderThanDays: 30,
  maxSources: 100,
  /** Fewer aged memories than this and the scope is left alone. */
  minSources: 3,
  /**
   * Cap on the source text folded into one summary, so the summary fits one embedding request
   * (OpenAI's embedding models take 8,191 tokens, about 4 characters each); the rest waits for
   * the next pass.
   */
  maxSummaryChars: 24_000,
} as const;

/** The category that marks a summary written by rollup (its `source_ids` are memory ids). */
export const ROLLUP_CATEGORY = "rollup";

const DAY_MS = 86_400_000;

/** The newest observation time (`valid_from`) a memory may have to be rolled up. */
export function rollupCutoff(now: number, olderThanDays: number): number {
  return now - olderThanDays * DAY_MS;
}

/** True for rows rollup may fold: open, not pinned, not a summary, observed at or before `cutoff`. */
export function isRollupCandidate(m: MemoryRecord, cutoff: number): boolean {
  return m.validTo === null && !m.pinned && m.factType !== "summary" && m.validFrom <= cutoff;
}

/**
 * Picks the sources of one pass: candidates oldest first (by observation), at most `maxSources`
 * and at most `maxChars` of text (the first is always taken).
 */
export function selectSources(rows: readonly MemoryRecord[], cutoff: number, maxSources: number, maxChars: number = ROLLUP_DEFAULTS.maxSummaryChars): MemoryRecord[] {
  const sorted = rows.filter((m) => isRollupCandidate(m, cutoff)).sort((a, b) => a.validFrom - b.validFrom || a.id.localeCompare(b.id));
  const picked: MemoryRecord[] = [];
  let chars = 0;
  for (const m of sorted) {
    if (picked.length >= maxSources) break;
    if (picked.length > 0 && chars + m.text.length > maxChars) break;
    picked.push(m);
    chars += m.text.length;
  }
  return picked;
}

/** The scope every source shares: each field keeps its value when all sources agree, else "". */
export function commonScope(sources: readonly ScopeKey[]): ScopeKey {
  const pick = (f: keyof ScopeKey) => (sources.every((s) => s[f] === sources[0][f]) ? sources[0][f] : "");
  return { namespace: pick("namespace"), agent: pick("agent"), session: pick("session"), user: pick("user") };
}

/** Tags every source carries with the same value. */
export function commonTags(sources: readonly MemoryRecord[]): Record<string, string> {
  const [first, ...rest] = sources;
  if (!first) return {};
  return Object.fromEntries(Object.entries(first.tags).filter(([k, v]) => rest.every((m) => m.tags[k] === v)));
}

/** `YYYY-MM-DD` (UTC) of an epoch-ms time. */
function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The deterministic, near-lossless summary: a header and one bullet per source, oldest first,
 * dated by observation; every source's text is kept verbatim, so deleting the sources is safe.
 */
export function mergeSummary(sources: readonly MemoryRecord[]): string {
  const bullets = sources.map((m) => `- (${day(m.validFrom)}) ${m.text}`);
  return [`Consolidated summary of ${sources.length} memories:`, ...bullets].join("\n");
}
