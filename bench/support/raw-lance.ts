// Before LanceDB starts: without it the baseline's full-text index build can park the only CPU-pool thread (see engine-env.ts).
import "../../src/adapters/lancedb/engine-env.js";
import * as lancedb from "@lancedb/lancedb";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { renderCondition } from "../../src/adapters/lancedb/filter.js";
import { memoryCodec, memorySchema } from "../../src/adapters/lancedb/memory-codec.js";
import type { MemoryRecord } from "../../src/core/records.js";
import { where } from "../../src/core/condition.js";

/** A memory row shaped like the ones `Remember` writes (for the raw-LanceDB baseline table). */
export function benchRecord(user: string, index: number, text: string, vector: Float32Array, now: number): MemoryRecord {
  return {
    id: `${user}-${index}`,
    namespace: "",
    agent: "",
    session: "",
    user,
    text,
    factType: "semantic",
    category: "",
    importance: 5,
    entities: [],
    tags: {},
    pinned: false,
    contentHash: "",
    vector,
    sourceIds: [`ep-${user}-${index}`],
    parentId: "",
    createdAt: now,
    validFrom: now,
    validTo: null,
    supersededBy: "",
    eventDate: null,
    lastAccessedAt: now,
    accessCount: 0,
    channel: "",
    emotions: [],
    intent: "",
    embedModel: "hashing-v1",
    role: "user",
    name: "",
    traceNumber: 0,
  };
}

/** The raw-LanceDB baseline: an identically shaped table with the same indexes as the server's. */
export interface RawLance {
  /** Adds one user's texts (embedded with the same hash embedder). */
  addUser(user: string, texts: readonly string[]): Promise<void>;
  /** Compacts and indexes (the table at its best, as after maintenance). */
  finish(): Promise<void>;
  /** The same hybrid work as a recall: prefiltered cosine vector search + prefiltered FTS, 3×k each, in parallel. */
  hybrid(user: string, query: string, k: number): Promise<number>;
  close(): void;
}

/**
 * A raw-LanceDB baseline table in `dir`: a new empty one, or with `existing` the one built there
 * before, opened on a new connection and session (caches empty, as in a process started now).
 */
export async function openRawLance(dir: string, options: { existing?: boolean } = {}): Promise<RawLance> {
  const embedder = createHashEmbedder();
  const db = await lancedb.connect(dir, { session: new lancedb.Session(BigInt(256 * 2 ** 20), BigInt(128 * 2 ** 20)) });
  const table = options.existing ? await db.openTable("memories") : await db.createEmptyTable("memories", memorySchema(embedder.dimension), { mode: "overwrite" });
  let pending: Record<string, unknown>[] = [];
  const flush = async () => {
    if (pending.length > 0) await table.add(pending);
    pending = [];
  };
  const now = Date.now();
  return {
    async addUser(user, texts) {
      const vectors = await embedder.embed(texts);
      texts.forEach((t, i) => pending.push(memoryCodec.toRow(benchRecord(user, i, t, vectors[i], now))));
      if (pending.length >= 10_000) await flush();
    },
    async finish() {
      await flush();
      await table.createIndex("user", { config: lancedb.Index.btree(), replace: true });
      await table.createIndex("text", { config: lancedb.Index.fts({ withPosition: false }), replace: true });
      await table.optimize();
    },
    async hybrid(user, query, k) {
      const filter = renderCondition(where.and(where.eq("user", user), where.isNull("valid_to"))) ?? "";
      const [vector] = await embedder.embed([query]);
      const [byVector, byWords] = await Promise.all([
        table.vectorSearch(Array.from(vector)).column("vector").distanceType("cosine").where(filter).limit(3 * k).toArray(),
        table.query().fullTextSearch(query, { columns: ["text"] }).where(filter).limit(3 * k).toArray(),
      ]);
      return byVector.length + byWords.length;
    },
    close() {
      db.close();
    },
  };
}
