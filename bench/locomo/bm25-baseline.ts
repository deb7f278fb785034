import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import type { LocomoConversation } from "./dataset.js";

/**
 * Plain BM25: the conversation's turns in a bare LanceDB table with the default full-text index
 * (lower-casing, English stemming, stop words), the question's words as the query. Nothing of
 * agentmem is involved. Returns the ranked dia_ids per question.
 */
export async function bm25Rankings(conversation: LocomoConversation, k: number): Promise<string[][]> {
  const dir = await mkdtemp(join(tmpdir(), "locomo-bm25-"));
  const db = await lancedb.connect(dir);
  try {
    const table = await db.createTable("turns", conversation.turns.map((t) => ({ dia_id: t.diaId, text: t.content })));
    await table.createIndex("text", { config: lancedb.Index.fts() });
    const out: string[][] = [];
    for (const q of conversation.questions) {
      const query = (q.question.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
      const rows = (await table.query().fullTextSearch(query, { columns: ["text"] }).limit(k).toArray()) as { dia_id: string }[];
      out.push(rows.map((r) => r.dia_id));
    }
    return out;
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
