import type { Table } from "@lancedb/lancedb";

/** The analyzer settings of LanceDB's default FTS index, which `row-cache/fts-terms.ts` reproduces. */
const DEFAULT_ANALYZER: Record<string, unknown> = {
  base_tokenizer: "simple",
  language: "English",
  lower_case: true,
  stem: true,
  remove_stop_words: true,
  ascii_folding: true,
  max_token_length: 40,
  custom_stop_words: null,
};

/** True when the table's FTS index on `column` uses the default analyzer (so in-memory BM25 sees the same terms). */
export async function defaultAnalyzer(table: Table, column: string): Promise<boolean> {
  const index = (await table.listIndices()).find((i) => i.indexType === "FTS" && i.columns.includes(column));
  const details = (index as { indexDetails?: Record<string, unknown> } | undefined)?.indexDetails;
  if (!details) return false;
  return Object.entries(DEFAULT_ANALYZER).every(([k, v]) => (details[k] ?? null) === v);
}
