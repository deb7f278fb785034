import * as lancedb from "@lancedb/lancedb";
import { LanceStore } from "../adapters/lancedb/lance-store.js";
import { decodeTenant } from "../adapters/lancedb/table-names.js";
import type { EpisodeRecord, MemoryRecord } from "../core/records.js";
import type { Collection } from "../ports/collection.js";
import { where } from "../ports/condition.js";
import type { Embedder } from "../ports/embedder.js";
import { spokenLine } from "../core/names.js";

/** The tables whose vectors are a cache of their text (anchors re-embed themselves on read). */
const KINDS = ["memories", "episodes"] as const;
type Kind = (typeof KINDS)[number];
type Row = MemoryRecord | EpisodeRecord;

/** Options for {@link reembedStore}. */
export interface ReembedOptions {
  /** The LanceDB directory or URI the server uses (`--data`). */
  uri: string;
  /** The new embedder. */
  embedder: Embedder;
  /** Texts per embed call (default 128). */
  batchSize?: number;
  /** Called once with the row total, then after every batch. */
  onProgress?: (done: number, total: number) => void;
}

/** What a run changed, per table. */
export interface ReembedReport {
  tables: { table: string; rows: number; fromDimension: number; toDimension: number }[];
  rows: number;
}

/**
 * The text a row's vector was computed from: a turn stored by Remember (an episode that points at
 * its memory, and that memory) as its spoken line (`"<name>: <text>"`, see `spokenLine`); anything
 * else (facts, Add's raw turns) as its text. `speakers`: memory id → speaker of its Remember turn.
 */
function textOf(kind: Kind, row: Row, speakers: ReadonlyMap<string, string>): string {
  if (kind === "episodes") {
    const e = row as EpisodeRecord;
    return e.memoryId === "" ? e.content : spokenLine(e.name, e.content);
  }
  const m = row as MemoryRecord;
  const speaker = speakers.get(m.id);
  return speaker === undefined ? m.text : spokenLine(speaker, m.text);
}

/**
 * Memory id → speaker, for the memories that are a turn stored by Remember (its episode points at
 * it). Read from the episodes table itself, before any table of the run is rewritten.
 */
async function speakersOf(db: lancedb.Connection, episodesTable: string | undefined): Promise<Map<string, string>> {
  if (episodesTable === undefined) return new Map();
  const rows = (await (await db.openTable(episodesTable)).query().select(["memory_id", "name"]).toArray()) as { memory_id: string; name: string }[];
  return new Map(rows.filter((r) => r.memory_id !== "").map((r) => [String(r.memory_id), String(r.name)]));
}

async function vectorDimension(table: lancedb.Table): Promise<number> {
  const field = (await table.schema()).fields.find((f) => f.name === "vector");
  return (field?.type as { listSize?: number } | undefined)?.listSize ?? 0;
}

function collectionOf(store: LanceStore, kind: Kind, tenant: string): Promise<Collection<Row>> {
  return (kind === "memories" ? store.memories(tenant) : store.episodes(tenant)) as Promise<Collection<Row>>;
}

async function upsertInChunks(collection: Collection<Row>, rows: readonly Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await collection.upsert(rows.slice(i, i + 1000));
}

/**
 * Rebuilds every memory and episode vector from its text with a new embedder, offline, on the
 * data directory (the server must be stopped: this is a single-writer operation). Same dimension:
 * rows are upserted in place. New dimension: the re-embedded rows are first written to a staging
 * store under `<uri>/_reembed_staging`, then the table is dropped and recreated (with its indexes)
 * from them; a run interrupted between the two finishes the copy from staging the next time.
 */
export async function reembedStore(options: ReembedOptions): Promise<ReembedReport> {
  const { uri, embedder } = options;
  const batchSize = options.batchSize ?? 128;
  const stagingUri = `${uri.replace(/\/+$/, "")}/_reembed_staging`;
  const db = await lancedb.connect(uri);
  const staging = await lancedb.connect(stagingUri);
  const target = new LanceStore({ uri, dimension: embedder.dimension });
  const stage = new LanceStore({ uri: stagingUri, dimension: embedder.dimension });
  const report: ReembedReport = { tables: [], rows: 0 };
  try {
    const names = await db.tableNames();
    // A table dropped by an interrupted run: finish copying it back from staging.
    for (const name of await staging.tableNames()) {
      const [kind, tenant] = split(name);
      if (!kind || names.includes(name)) continue;
      const rows = await (await collectionOf(stage, kind, tenant)).find(where.all());
      await upsertInChunks(await collectionOf(target, kind, tenant), rows);
      names.push(name);
    }
    const work: { name: string; kind: Kind; tenant: string; table: lancedb.Table; rows: number; dimension: number; speakers: Map<string, string> }[] = [];
    for (const name of names) {
      const [kind, tenant] = split(name);
      if (!kind) continue;
      const table = await db.openTable(name);
      const episodesTable = names.find((n) => split(n)[0] === "episodes" && split(n)[1] === tenant);
      const speakers = kind === "memories" ? await speakersOf(db, episodesTable) : new Map<string, string>();
      work.push({ name, kind, tenant, table, rows: await table.countRows(), dimension: await vectorDimension(table), speakers });
    }
    const total = work.reduce((n, w) => n + w.rows, 0);
    let done = 0;
    options.onProgress?.(0, total);
    for (const w of work) {
      const source = new LanceStore({ uri, dimension: w.dimension });
      const rows = await (await collectionOf(source, w.kind, w.tenant)).find(where.all());
      await source.close();
      for (let i = 0; i < rows.length; i += batchSize) {
        const slice = rows.slice(i, i + batchSize);
        const vectors = await embedder.embed(slice.map((r) => textOf(w.kind, r, w.speakers)));
        slice.forEach((r, j) => {
          r.vector = vectors[j];
          if (w.kind === "memories") (r as MemoryRecord).embedModel = embedder.model;
        });
        done += slice.length;
        options.onProgress?.(done, total);
      }
      if (w.dimension === embedder.dimension) {
        await upsertInChunks(await collectionOf(target, w.kind, w.tenant), rows);
      } else {
        await upsertInChunks(await collectionOf(stage, w.kind, w.tenant), rows);
        await stage.close();
        await db.dropTable(w.name);
        await upsertInChunks(await collectionOf(target, w.kind, w.tenant), rows);
        await staging.dropTable(w.name);
      }
      report.tables.push({ table: w.name, rows: rows.length, fromDimension: w.dimension, toDimension: embedder.dimension });
      report.rows += rows.length;
    }
    return report;
  } finally {
    await Promise.all([target.close(), stage.close()]);
    db.close();
    staging.close();
  }
}

/** `memories__<tenant>` → ["memories", tenant]; other tables → [undefined, ""]. */
function split(name: string): [Kind | undefined, string] {
  const at = name.indexOf("__");
  const kind = KINDS.find((k) => k === name.slice(0, at));
  return kind ? [kind, decodeTenant(name.slice(at + 2))] : [undefined, ""];
}
