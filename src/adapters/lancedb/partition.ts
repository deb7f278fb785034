import { ftsTerms } from "./fts-terms.js";
import type { ColumnRow } from "./row-filter.js";

/**
 * Heap bytes of one cached row beyond its vector and text: the row object and its ~30 values,
 * its two small term arrays and map entries. Measured: 10,000 memory rows took 27 MB of heap and
 * 16 MB of array buffers (~4.3 KB a row with a 384-d vector).
 */
const ROW_OVERHEAD = 2_400;
const EMPTY_LIST: readonly unknown[] = Object.freeze([]);

/** BM25 parameters of LanceDB's full-text index. */
const K1 = 1.2;
const B = 0.75;

/** A row with its score, best first. */
export interface PartitionHit {
  row: ColumnRow;
  vector: Float32Array;
  score: number;
}

/**
 * The rows of one partition (one end-user's memories) held in memory: column rows, a dense vector
 * matrix and per-row term statistics, so a recall is a flat cosine scan and an in-memory BM25
 * instead of two prefiltered engine queries. Rows are kept dense (swap-remove).
 */
export class Partition {
  private ids: string[] = [];
  private readonly slot = new Map<string, number>();
  private rows: ColumnRow[] = [];
  private matrix: Float32Array;
  private norms: Float32Array;
  private termIds: Uint32Array[] = [];
  private termFreqs: Uint16Array[] = [];
  private lengths: number[] = [];
  private totalLength = 0;
  private readonly dictionary = new Map<string, number>();
  private readonly strings = new Map<string, string>();
  private docFreq: number[] = [];
  /** Estimated heap bytes held. */
  bytes = 0;

  /** `dimension` 0 keeps no vectors (rows are served without them). */
  constructor(
    private readonly dimension: number,
    private readonly textColumn: string | undefined,
    capacity = 64,
  ) {
    const slots = Math.max(16, capacity);
    this.matrix = new Float32Array(slots * dimension);
    this.norms = new Float32Array(slots);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slot.has(id);
  }

  /** Inserts or replaces a row (with its vector). */
  put(id: string, row: ColumnRow, vector: Float32Array): void {
    const existing = this.slot.get(id);
    if (existing !== undefined) this.removeAt(existing);
    const at = this.ids.length;
    this.grow(at + 1);
    this.ids.push(id);
    this.slot.set(id, at);
    this.rows.push(this.compact(row));
    const v = this.matrix.subarray(at * this.dimension, (at + 1) * this.dimension);
    if (this.dimension > 0) v.set(vector.subarray(0, this.dimension));
    let sum = 0;
    for (let i = 0; i < this.dimension; i++) sum += v[i] * v[i];
    this.norms[at] = Math.sqrt(sum);
    const text = this.textColumn ? String(row[this.textColumn] ?? "") : "";
    this.indexTerms(text);
    this.bytes += this.dimension * 4 + text.length * 2 + ROW_OVERHEAD;
  }

  /**
   * The row with its short repeated values shared (scope, role, fact type, model names, empty
   * lists …): rows are never mutated here and callers get copies, so sharing is safe.
   */
  private compact(row: ColumnRow): ColumnRow {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (typeof v === "string" && v.length <= 40 && k !== "id" && k !== this.textColumn) out[k] = this.intern(v);
      else if (Array.isArray(v)) out[k] = v.length === 0 ? EMPTY_LIST : v.map((x) => (typeof x === "string" && x.length <= 40 ? this.intern(x) : x));
      else out[k] = v;
    }
    return out;
  }

  private intern(value: string): string {
    let shared = this.strings.get(value);
    if (shared === undefined) {
      if (this.strings.size >= 10_000) return value;
      this.strings.set(value, (shared = value));
    }
    return shared;
  }

  /** Removes a row by id (no-op if absent). */
  remove(id: string): void {
    const at = this.slot.get(id);
    if (at !== undefined) this.removeAt(at);
  }

  /** The row with this id, if held. */
  get(id: string): PartitionHit | undefined {
    const at = this.slot.get(id);
    return at === undefined ? undefined : this.hit(at, 0);
  }

  /** Rows that pass `keep` (at most `limit`), in storage order. */
  filter(keep: (row: ColumnRow) => boolean, limit = Infinity): PartitionHit[] {
    const out: PartitionHit[] = [];
    for (let at = 0; at < this.ids.length && out.length < limit; at++) if (keep(this.rows[at])) out.push(this.hit(at, 0));
    return out;
  }

  /** How many rows pass `keep`. */
  count(keep: (row: ColumnRow) => boolean): number {
    let n = 0;
    for (let at = 0; at < this.ids.length; at++) if (keep(this.rows[at])) n++;
    return n;
  }

  /** Top `limit` rows by cosine similarity among rows that pass `keep`. */
  nearest(query: Float32Array, keep: (row: ColumnRow) => boolean, limit: number): PartitionHit[] {
    const d = this.dimension;
    let qn = 0;
    for (let i = 0; i < d; i++) qn += query[i] * query[i];
    qn = Math.sqrt(qn);
    const scored: { at: number; score: number }[] = [];
    for (let at = 0; at < this.ids.length; at++) {
      if (!keep(this.rows[at])) continue;
      const base = at * d;
      let dot = 0;
      for (let i = 0; i < d; i++) dot += query[i] * this.matrix[base + i];
      const denominator = qn * this.norms[at];
      scored.push({ at, score: denominator > 0 ? dot / denominator : 0 });
    }
    return this.top(scored, limit);
  }

  /** Top `limit` rows by BM25 (over this partition's statistics) among rows that pass `keep`. */
  match(text: string, keep: (row: ColumnRow) => boolean, limit: number): PartitionHit[] {
    const query = [...new Set(ftsTerms(text))].map((t) => this.dictionary.get(t)).filter((t): t is number => t !== undefined);
    if (query.length === 0) return [];
    const n = this.ids.length;
    const avg = this.totalLength / Math.max(1, n);
    const idf = query.map((t) => Math.log(1 + (n - this.docFreq[t] + 0.5) / (this.docFreq[t] + 0.5)));
    const scored: { at: number; score: number }[] = [];
    for (let at = 0; at < n; at++) {
      const ids = this.termIds[at];
      let score = 0;
      for (let q = 0; q < query.length; q++) {
        const i = ids.indexOf(query[q]);
        if (i < 0) continue;
        const tf = this.termFreqs[at][i];
        score += (idf[q] * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[at]) / avg));
      }
      if (score > 0 && keep(this.rows[at])) scored.push({ at, score });
    }
    return this.top(scored, limit);
  }

  private top(scored: { at: number; score: number }[], limit: number): PartitionHit[] {
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit).map(({ at, score }) => this.hit(at, score));
  }

  private hit(at: number, score: number): PartitionHit {
    return { row: this.rows[at], vector: this.matrix.slice(at * this.dimension, (at + 1) * this.dimension), score };
  }

  private indexTerms(text: string): void {
    const counts = new Map<number, number>();
    const terms = ftsTerms(text);
    for (const term of terms) {
      let id = this.dictionary.get(term);
      if (id === undefined) {
        id = this.docFreq.length;
        this.dictionary.set(term, id);
        this.docFreq.push(0);
        this.bytes += term.length * 2 + 48;
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const ids = Uint32Array.from(counts.keys());
    for (const id of ids) this.docFreq[id]++;
    this.termIds.push(ids);
    this.termFreqs.push(Uint16Array.from(counts.values(), (c) => Math.min(c, 65535)));
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    this.bytes += ids.length * 6;
  }

  private removeAt(at: number): void {
    const last = this.ids.length - 1;
    const text = this.textColumn ? String(this.rows[at][this.textColumn] ?? "") : "";
    this.bytes -= this.dimension * 4 + text.length * 2 + ROW_OVERHEAD + this.termIds[at].length * 6;
    for (const id of this.termIds[at]) this.docFreq[id]--;
    this.totalLength -= this.lengths[at];
    this.slot.delete(this.ids[at]);
    if (at !== last) {
      this.ids[at] = this.ids[last];
      this.rows[at] = this.rows[last];
      this.termIds[at] = this.termIds[last];
      this.termFreqs[at] = this.termFreqs[last];
      this.lengths[at] = this.lengths[last];
      this.norms[at] = this.norms[last];
      this.matrix.copyWithin(at * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.slot.set(this.ids[at], at);
    }
    this.ids.pop();
    this.rows.pop();
    this.termIds.pop();
    this.termFreqs.pop();
    this.lengths.pop();
  }

  private grow(needed: number): void {
    if (needed <= this.norms.length) return;
    const capacity = Math.max(needed, Math.ceil(this.norms.length * 1.5));
    const matrix = new Float32Array(capacity * this.dimension);
    matrix.set(this.matrix);
    const norms = new Float32Array(capacity);
    norms.set(this.norms);
    this.matrix = matrix;
    this.norms = norms;
  }
}
