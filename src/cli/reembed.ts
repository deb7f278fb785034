import type { DataDirectory, DataTable } from "../compose/data-directory.js";
import { where } from "../core/condition.js";
import type { EpisodeRecord, MemoryRecord } from "../core/records.js";
import type { Collection } from "../ports/collection.js";
import type { Embedder } from "../ports/embedder.js";
import type { Store } from "../ports/store.js";
import { spokenLine } from "../core/names.js";

/** The tables whose vectors are a cache of their text (anchors re-embed themselves on read). */
const KINDS = ["memories", "episodes"] as const;
type Kind = (typeof KINDS)[number];
type Row = MemoryRecord | EpisodeRecord;

/** Options for {@link reembedStore}. */
export interface ReembedOptions {
  /** The LanceDB directory or URI the server uses (`--data`). */
  uri: string;
  /** Opens a data directory (the composition root's `openDataDirectory`). */
  open: (uri: string) => Promise<DataDirectory>;
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
 * Memory id → speaker, for the memories of `tenant` that are a turn stored by Remember (its
 * episode points at it). Read from the episodes table itself, before any table of the run is rewritten.
 */
async function speakersOf(db: DataDirectory, tables: readonly DataTable[], tenant: string): Promise<Map<string, string>> {
  const episodes = tables.find((t) => t.kind === "episodes" && t.tenant === tenant);
  if (episodes === undefined) return new Map();
  const store = db.store((await db.describe(episodes.name)).dimension);
  try {
    // Every shard table of the tenant's episodes (the store fans the read out).
    const rows = await (await store.episodes(tenant)).project(where.all(), ["memory_id", "name"]);
    return new Map(rows.filter((r) => r.memory_id !== "" && r.memory_id !== null).map((r) => [String(r.memory_id), String(r.name ?? "")]));
  } finally {
    await store.close();
  }
}

/** A tenant's tables of one kind: one table, or its shard tables (`memories.s03of08__…`), re-embedded together. */
interface TableGroup {
  kind: Kind;
  tenant: string;
  names: string[];
  /** The name reported: `<kind>__<encoded tenant>`, whatever the shards. */
  label: string;
}

/** The data directory's `memories` and `episodes` tables grouped by kind and tenant. */
function groupsOf(tables: readonly DataTable[]): TableGroup[] {
  const out = new Map<string, TableGroup>();
  for (const t of tables) {
    const kind = kindOf(t.kind);
    if (!kind) continue;
    const key = `${kind}\u0000${t.tenant}`;
    const group = out.get(key) ?? { kind, tenant: t.tenant, names: [], label: `${kind}__${t.name.slice(t.name.indexOf("__") + 2)}` };
    group.names.push(t.name);
    out.set(key, group);
  }
  return [...out.values()];
}

const kindOf = (kind: string): Kind | undefined => KINDS.find((k) => k === kind);

function collectionOf(store: Store, kind: Kind, tenant: string): Promise<Collection<Row>> {
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
  const db = await options.open(uri);
  const staging = await options.open(stagingUri);
  const target = db.store(embedder.dimension);
  const stage = staging.store(embedder.dimension);
  const report: ReembedReport = { tables: [], rows: 0 };
  try {
    let tables = await db.tables();
    const present = new Set(groupsOf(tables).map((g) => `${g.kind}/${g.tenant}`));
    // Tables dropped by an interrupted run: finish copying them back from staging.
    for (const g of groupsOf(await staging.tables())) {
      if (present.has(`${g.kind}/${g.tenant}`)) continue;
      const rows = await (await collectionOf(stage, g.kind, g.tenant)).find(where.all());
      await upsertInChunks(await collectionOf(target, g.kind, g.tenant), rows);
    }
    tables = await db.tables();
    const work: (TableGroup & { rows: number; dimension: number; speakers: Map<string, string> })[] = [];
    for (const g of groupsOf(tables)) {
      const speakers = g.kind === "memories" ? await speakersOf(db, tables, g.tenant) : new Map<string, string>();
      const described = await Promise.all(g.names.map((n) => db.describe(n)));
      work.push({ ...g, rows: described.reduce((n, d) => n + d.rows, 0), dimension: described[0].dimension, speakers });
    }
    const total = work.reduce((n, w) => n + w.rows, 0);
    let done = 0;
    options.onProgress?.(0, total);
    for (const w of work) {
      const source = db.store(w.dimension);
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
        for (const name of w.names) await db.dropTable(name);
        await upsertInChunks(await collectionOf(target, w.kind, w.tenant), rows);
        for (const t of await staging.tables()) if (kindOf(t.kind) === w.kind && t.tenant === w.tenant) await staging.dropTable(t.name);
      }
      report.tables.push({ table: w.label, rows: rows.length, fromDimension: w.dimension, toDimension: embedder.dimension });
      report.rows += rows.length;
    }
    return report;
  } finally {
    await Promise.all([target.close(), stage.close()]);
    db.close();
    staging.close();
  }
}
