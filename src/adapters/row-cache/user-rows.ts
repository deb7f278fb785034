import { ftsTerms } from "./fts-terms.js";
import { Postings } from "./postings.js";
import type { ColumnRow } from "../../core/row-filter.js";

/**
 * Heap bytes of one cached row beyond its vector, text and term list: the row object and its
 * values, map entries. Measured with `node --expose-gc` (heap before and after loading 5,000
 * rows): a 30-column memory row with a ~95-character text takes ~1.3 KB of heap plus its 1.5 KB
 * vector; an episode row ~0.9 KB.
 */
const ROW_OVERHEAD = 900;

/** Estimated heap bytes of one held row: its vector, its text, and the rest. */
export function rowBytes(dimension: number, text: string): number {
  return dimension * 4 + text.length * 2 + ROW_OVERHEAD;
}

const EMPTY_LIST: readonly unknown[] = Object.freeze([]);
const EMPTY_VECTOR = new Float32Array(0);

/** Columns whose values are (nearly) unique per row: interning them would only fill the table. */
const UNIQUE_COLUMNS = new Set(["id", "content_hash", "source_ids", "parent_id", "superseded_by", "memory_id"]);

const SAFE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const shapes = new Map<string, (values: readonly unknown[]) => ColumnRow>();

/**
 * A builder of rows with these columns as one object literal. Objects filled by computed keys
 * turn into dictionary mode past a dozen properties (~1.4 KB of property table per 30-column
 * row); a literal gets a fixed shape with the values in-object. Column names come from table
 * schemas, and only plain identifiers are compiled; anything else takes the slow path.
 */
function rowShape(columns: readonly string[]): (values: readonly unknown[]) => ColumnRow {
  const key = columns.join("\u0000");
  let shape = shapes.get(key);
  if (!shape) {
    shape = columns.every((c) => SAFE_IDENTIFIER.test(c))
      ? (new Function("v", `return { ${columns.map((c, i) => `${c}: v[${i}]`).join(", ")} };`) as (values: readonly unknown[]) => ColumnRow)
      : (values) => Object.fromEntries(columns.map((c, i) => [c, values[i]]));
    shapes.set(key, shape);
  }
  return shape;
}

/** BM25 parameters of LanceDB's full-text index. */
const K1 = 1.2;
const B = 0.75;

/** A row with its score, best first. */
export interface RowHit {
  row: ColumnRow;
  vector: Float32Array;
  score: number;
}

/**
 * The rows of one held end-user (all of that user's rows in one table) held in memory: column rows, a dense vector
 * matrix and term postings, so a recall is a flat cosine scan and an in-memory BM25
 * instead of two prefiltered engine queries. Rows are kept dense (swap-remove).
 */
export class UserRows {
  private ids: string[] = [];
  private readonly slot = new Map<string, number>();
  private rows: ColumnRow[] = [];
  private matrix: Float32Array;
  private norms: Float32Array;
  /** Per term id: the rows holding it and its count there. A match touches only the rows of its terms. */
  private readonly postings = new Postings();
  /** Per row: its number of terms. */
  private lengths: number[] = [];
  private totalLength = 0;
  private readonly dictionary = new Map<string, number>();
  private readonly strings = new Map<string, string>();
  /** Per-slot score accumulator of `match` (zero between calls). */
  private scratch = new Float64Array(0);
  /** Lazily built value → slots maps of looked-up columns; dropped on every change. */
  private readonly columnIndexes = new Map<string, Map<unknown, number | number[]>>();
  private columns: string[] | null = null;
  /** The row builder of `columns`. */
  private shape: (values: readonly unknown[]) => ColumnRow = () => ({});
  /** Estimated heap bytes held. */
  bytes = 0;

  /** `dimension` 0 keeps no vectors (rows are served without them). */
  /** `vectorColumn`, when rows passed in still carry it, is left out of the held row (the matrix holds it). */
  constructor(
    private readonly dimension: number,
    private readonly textColumn: string | undefined,
    capacity = 64,
    private readonly vectorColumn?: string,
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

  /** Makes room for `more` rows at once (a committed batch), so its puts do not regrow the matrix step by step. */
  reserve(more: number): void {
    this.grow(this.ids.length + more);
  }

  /** Inserts or replaces a row (with its vector). */
  put(id: string, row: ColumnRow, vector: Float32Array): void {
    const text = this.textColumn ? String(row[this.textColumn] ?? "") : "";
    const existing = this.slot.get(id);
    if (existing !== undefined && text === (this.textColumn ? String(this.rows[existing][this.textColumn] ?? "") : "")) {
      // Same text (an access mark, a closed fact): update in place, the term statistics stand, and
      // so do the column indexes whose value is unchanged (rebuilding them after every access mark
      // made long-lived garbage that each scavenge had to copy).
      const before = this.rows[existing];
      const after = this.compact(row);
      for (const column of this.columnIndexes.keys()) if (before[column] !== after[column]) this.columnIndexes.delete(column);
      this.rows[existing] = after;
      this.setVector(existing, vector);
      return;
    }
    this.columnIndexes.clear();
    if (existing !== undefined) this.removeAt(existing);
    const at = this.ids.length;
    this.grow(at + 1);
    this.ids.push(id);
    this.slot.set(id, at);
    this.rows.push(this.compact(row));
    this.setVector(at, vector);
    this.indexTerms(at, text);
    this.bytes += rowBytes(this.dimension, text);
  }

  private setVector(at: number, vector: Float32Array): void {
    const v = this.matrix.subarray(at * this.dimension, (at + 1) * this.dimension);
    if (this.dimension > 0) v.set(vector.subarray(0, this.dimension));
    let sum = 0;
    for (let i = 0; i < this.dimension; i++) sum += v[i] * v[i];
    this.norms[at] = Math.sqrt(sum);
  }

  /**
   * The row with its short repeated values shared (scope, role, fact type, model names, empty
   * lists …): rows are never mutated here and callers get copies, so sharing is safe.
   */
  private compact(row: ColumnRow): ColumnRow {
    // One column order for every row of the user (loaded rows come in schema order, written
    // ones in codec order), so all rows share one object shape and property reads stay monomorphic.
    const keys = Object.keys(row);
    if (this.vectorColumn !== undefined && this.vectorColumn in row) keys.splice(keys.indexOf(this.vectorColumn), 1);
    if (this.columns === null || keys.length !== this.columns.length || !this.columns.every((c) => c in row)) {
      this.columns = keys.sort();
      this.shape = rowShape(this.columns);
    }
    const columns = this.columns;
    const values = columns.map((k) => {
      const v = row[k];
      if (typeof v === "string" && v.length <= 40 && !UNIQUE_COLUMNS.has(k) && k !== this.textColumn) return this.intern(v);
      if (Array.isArray(v)) return v.length === 0 ? EMPTY_LIST : v.map((x) => (typeof x === "string" && x.length <= 40 && !UNIQUE_COLUMNS.has(k) ? this.intern(x) : x));
      return v;
    });
    return this.shape(values);
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
  get(id: string, withVector = true): RowHit | undefined {
    const at = this.slot.get(id);
    return at === undefined ? undefined : this.hit(at, 0, withVector);
  }

  /** Rows that pass `keep` (at most `limit`), in storage order. */
  filter(keep: (row: ColumnRow) => boolean, limit = Infinity, withVector = true): RowHit[] {
    const out: RowHit[] = [];
    for (let at = 0; at < this.ids.length && out.length < limit; at++) if (keep(this.rows[at])) out.push(this.hit(at, 0, withVector));
    return out;
  }

  /** How many rows pass `keep`. */
  count(keep: (row: ColumnRow) => boolean): number {
    let n = 0;
    for (let at = 0; at < this.ids.length; at++) if (keep(this.rows[at])) n++;
    return n;
  }

  /**
   * Rows whose `column` holds one of `values` and that pass `keep` (at most `limit`), in storage
   * order: `id` through the slot map, other columns through an index built on first use.
   */
  lookup(column: string, values: ReadonlySet<unknown>, keep: (row: ColumnRow) => boolean, limit = Infinity, withVector = true): RowHit[] {
    const slots: number[] = [];
    if (column === "id") {
      for (const v of values) {
        const at = this.slot.get(String(v));
        if (at !== undefined) slots.push(at);
      }
    } else {
      const index = this.columnIndex(column);
      for (const v of values) {
        const held = index.get(v);
        if (typeof held === "number") slots.push(held);
        else if (held !== undefined) slots.push(...held);
      }
    }
    slots.sort((a, b) => a - b);
    const out: RowHit[] = [];
    for (const at of slots) {
      if (out.length >= limit) break;
      if (keep(this.rows[at])) out.push(this.hit(at, 0, withVector));
    }
    return out;
  }

  /** Value → its slot, or its slots when several rows share it (no array per unique value). */
  private columnIndex(column: string): Map<unknown, number | number[]> {
    let index = this.columnIndexes.get(column);
    if (!index) {
      index = new Map();
      for (let at = 0; at < this.rows.length; at++) {
        const value = this.rows[at][column];
        const held = index.get(value);
        if (held === undefined) index.set(value, at);
        else if (typeof held === "number") index.set(value, [held, at]);
        else held.push(at);
      }
      this.columnIndexes.set(column, index);
    }
    return index;
  }

  /**
   * Top `limit` rows by cosine similarity among rows that pass `keep`. Every row is scored, but
   * `keep` runs only on rows good enough to enter the running top (a min-heap), so a filter that
   * passes most rows is evaluated a few dozen times rather than once per row.
   */
  nearest(query: Float32Array, keep: (row: ColumnRow) => boolean, limit: number, withVector = true): RowHit[] {
    const n = this.ids.length;
    if (limit <= 0 || n === 0) return [];
    const qn = norm(query, this.dimension);
    const heap = new TopHeap(limit);
    for (let at = 0; at < n; at++) {
      const score = this.cosineAt(at, query, qn);
      if (heap.accepts(score) && keep(this.rows[at])) heap.push(at, score);
    }
    return heap.sorted().map(({ at, score }) => this.hit(at, score, withVector));
  }

  /** `nearest` among the rows with these ids only (no scan of the others). */
  nearestAmong(ids: ReadonlySet<unknown>, query: Float32Array, keep: (row: ColumnRow) => boolean, limit: number, withVector = true): RowHit[] {
    if (limit <= 0) return [];
    const qn = norm(query, this.dimension);
    const heap = new TopHeap(limit);
    const slots = [...ids].map((id) => this.slot.get(String(id))).filter((at): at is number => at !== undefined);
    for (const at of slots.sort((a, b) => a - b)) {
      const score = this.cosineAt(at, query, qn);
      if (heap.accepts(score) && keep(this.rows[at])) heap.push(at, score);
    }
    return heap.sorted().map(({ at, score }) => this.hit(at, score, withVector));
  }

  /** Cosine similarity of the row at `at` to `query` (whose norm is `qn`). */
  private cosineAt(at: number, query: Float32Array, qn: number): number {
    const d = this.dimension;
    const matrix = this.matrix;
    const base = at * d;
    let d0 = 0;
    let d1 = 0;
    let d2 = 0;
    let d3 = 0;
    let i = 0;
    for (; i + 3 < d; i += 4) {
      d0 += query[i] * matrix[base + i];
      d1 += query[i + 1] * matrix[base + i + 1];
      d2 += query[i + 2] * matrix[base + i + 2];
      d3 += query[i + 3] * matrix[base + i + 3];
    }
    for (; i < d; i++) d0 += query[i] * matrix[base + i];
    const denominator = qn * this.norms[at];
    return denominator > 0 ? (d0 + d1 + d2 + d3) / denominator : 0;
  }

  /**
   * Top `limit` rows by BM25 (over this user's statistics) among rows that pass `keep`:
   * scores accumulate over the query terms' postings, then `keep` runs only on rows that would
   * enter the top, visited in storage order (ties keep the earlier row).
   */
  match(text: string, keep: (row: ColumnRow) => boolean, limit: number, withVector = true): RowHit[] {
    const query = [...new Set(ftsTerms(text))].map((t) => this.dictionary.get(t)).filter((t): t is number => t !== undefined);
    const n = this.ids.length;
    if (query.length === 0 || limit <= 0 || n === 0) return [];
    const avg = this.totalLength / n;
    if (this.scratch.length < n) this.scratch = new Float64Array(this.norms.length);
    const scores = this.scratch;
    const touched: number[] = [];
    const postings = this.postings;
    const pairs = postings.data;
    for (const t of query) {
      const df = postings.df(t);
      if (df === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = postings.begin(t), end = postings.end(t); i < end; i += 2) {
        const at = pairs[i];
        const tf = pairs[i + 1];
        if (scores[at] === 0) touched.push(at);
        scores[at] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[at]) / avg));
      }
    }
    touched.sort((a, b) => a - b);
    const found = touched.map((at) => {
      const score = scores[at];
      scores[at] = 0;
      return score;
    });
    const heap = new TopHeap(limit);
    for (let i = 0; i < touched.length; i++) {
      if (found[i] > 0 && heap.accepts(found[i]) && keep(this.rows[touched[i]])) heap.push(touched[i], found[i]);
    }
    return heap.sorted().map(({ at, score }) => this.hit(at, score, withVector));
  }

  /** A row with its score, and a copy of its vector (empty when not wanted: copying is most of a lookup's cost). */
  private hit(at: number, score: number, withVector: boolean): RowHit {
    const vector = withVector ? this.matrix.slice(at * this.dimension, (at + 1) * this.dimension) : EMPTY_VECTOR;
    return { row: this.rows[at], vector, score };
  }

  /** Adds the terms of the row at `at` (the last slot) to the postings. */
  private indexTerms(at: number, text: string): void {
    const counts = new Map<number, number>();
    const terms = ftsTerms(text);
    for (const term of terms) {
      let id = this.dictionary.get(term);
      if (id === undefined) {
        id = this.postings.addTerm();
        this.dictionary.set(internTerm(term), id);
        this.bytes += 32;
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [id, tf] of counts) this.postings.add(id, at, tf);
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    this.bytes += counts.size * 16;
  }

  private textAt(at: number): string {
    return this.textColumn ? String(this.rows[at][this.textColumn] ?? "") : "";
  }

  /** The distinct term ids of the row at `at` (its text is analysed again: rows keep no term list). */
  private termIdsAt(at: number): Set<number> {
    const ids = new Set<number>();
    for (const term of ftsTerms(this.textAt(at))) {
      const id = this.dictionary.get(term);
      if (id !== undefined) ids.add(id);
    }
    return ids;
  }

  private removeAt(at: number): void {
    this.columnIndexes.clear();
    const last = this.ids.length - 1;
    const gone = this.termIdsAt(at);
    for (const id of gone) this.postings.remove(id, at);
    this.bytes -= rowBytes(this.dimension, this.textAt(at)) + gone.size * 16;
    this.totalLength -= this.lengths[at];
    this.slot.delete(this.ids[at]);
    if (at !== last) {
      for (const id of this.termIdsAt(last)) this.postings.renumber(id, last, at);
      this.ids[at] = this.ids[last];
      this.rows[at] = this.rows[last];
      this.lengths[at] = this.lengths[last];
      this.norms[at] = this.norms[last];
      this.matrix.copyWithin(at * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.slot.set(this.ids[at], at);
    }
    this.ids.pop();
    this.rows.pop();
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

/** The L2 norm of the first `dimension` components. */
function norm(vector: Float32Array, dimension: number): number {
  let sum = 0;
  for (let i = 0; i < dimension; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/**
 * Terms are shared by every held user (one string per distinct term in the process, not one per
 * user holding it), up to a bound.
 */
const TERMS = new Map<string, string>();
const MAX_SHARED_TERMS = 500_000;

function internTerm(term: string): string {
  const shared = TERMS.get(term);
  if (shared !== undefined) return shared;
  if (TERMS.size < MAX_SHARED_TERMS) TERMS.set(term, term);
  return term;
}

/** The best `size` (slot, score) pairs seen so far: a binary min-heap on score. */
class TopHeap {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly size: number) {}

  /** True when a row with this score would enter the top (strictly better than the worst kept). */
  accepts(score: number): boolean {
    return this.scores.length < this.size || score > this.scores[0];
  }

  push(at: number, score: number): void {
    const { slots, scores } = this;
    if (scores.length < this.size) {
      slots.push(at);
      scores.push(score);
      let i = scores.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent] <= scores[i]) break;
        this.swap(i, parent);
        i = parent;
      }
      return;
    }
    slots[0] = at;
    scores[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < scores.length && scores[l] < scores[smallest]) smallest = l;
      if (r < scores.length && scores[r] < scores[smallest]) smallest = r;
      if (smallest === i) break;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  /** Kept pairs, best first (ties by slot, i.e. storage order). */
  sorted(): { at: number; score: number }[] {
    return this.slots.map((at, i) => ({ at, score: this.scores[i] })).sort((a, b) => b.score - a.score || a.at - b.at);
  }

  private swap(i: number, j: number): void {
    [this.slots[i], this.slots[j]] = [this.slots[j], this.slots[i]];
    [this.scores[i], this.scores[j]] = [this.scores[j], this.scores[i]];
  }
}
