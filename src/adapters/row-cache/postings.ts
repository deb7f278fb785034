/**
 * Term postings of one held end-user, `(slot, tf)` pairs per term id, all in one `Int32Array` pool:
 * each term owns a region that doubles (moving to the pool's end) when full, and the pool is
 * compacted when it is full and a third of it is abandoned regions. A few typed arrays instead of an
 * array per term: a user of a few thousand distinct terms is a handful of heap objects, so a
 * major GC has ~three objects per term and user less to mark.
 */
export class Postings {
  private pool = new Int32Array(1024);
  private used = 0;
  private wasted = 0;
  private start = new Int32Array(64);
  private length = new Int32Array(64);
  private capacity = new Int32Array(64);
  private terms = 0;

  /** Number of term ids handed out. */
  get size(): number {
    return this.terms;
  }

  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.pool.byteLength + this.start.byteLength * 3;
  }

  /** A new, empty term id. */
  addTerm(): number {
    if (this.terms === this.start.length) {
      this.start = grown(this.start, this.terms * 2);
      this.length = grown(this.length, this.terms * 2);
      this.capacity = grown(this.capacity, this.terms * 2);
    }
    return this.terms++;
  }

  /** Rows holding the term (its document frequency). */
  df(term: number): number {
    return this.length[term] >> 1;
  }

  /** Appends `(slot, tf)` to the term's list. */
  add(term: number, slot: number, tf: number): void {
    if (this.length[term] === this.capacity[term]) this.relocate(term, Math.max(4, this.capacity[term] * 2));
    const at = this.start[term] + this.length[term];
    this.pool[at] = slot;
    this.pool[at + 1] = tf;
    this.length[term] += 2;
  }

  /** Drops the slot's pair from the term's list (the list's last pair takes its place). */
  remove(term: number, slot: number): void {
    const i = this.pairIndex(term, slot);
    const last = this.start[term] + this.length[term] - 2;
    this.pool[i] = this.pool[last];
    this.pool[i + 1] = this.pool[last + 1];
    this.length[term] -= 2;
  }

  /** The pair of `from` now belongs to slot `to` (a row moved). */
  renumber(term: number, from: number, to: number): void {
    this.pool[this.pairIndex(term, from)] = to;
  }

  /** The pool the term's pairs live in, from `begin(term)` to `end(term)` (valid until the next change). */
  get data(): Int32Array {
    return this.pool;
  }

  begin(term: number): number {
    return this.start[term];
  }

  end(term: number): number {
    return this.start[term] + this.length[term];
  }

  private pairIndex(term: number, slot: number): number {
    const end = this.start[term] + this.length[term];
    for (let i = this.start[term]; i < end; i += 2) if (this.pool[i] === slot) return i;
    throw new Error(`slot ${slot} missing from its term's postings`);
  }

  private relocate(term: number, capacity: number): void {
    if (this.used + capacity > this.pool.length) {
      if (this.wasted * 3 > this.used) this.compact();
      if (this.used + capacity > this.pool.length) this.pool = grown(this.pool, Math.max(this.used + capacity, this.pool.length * 2));
    }
    this.pool.copyWithin(this.used, this.start[term], this.start[term] + this.length[term]);
    this.wasted += this.capacity[term];
    this.start[term] = this.used;
    this.capacity[term] = capacity;
    this.used += capacity;
  }

  /** Packs every region to the pool's front (keeping each term's capacity). */
  private compact(): void {
    const pool = new Int32Array(this.pool.length);
    let used = 0;
    for (let t = 0; t < this.terms; t++) {
      pool.set(this.pool.subarray(this.start[t], this.start[t] + this.length[t]), used);
      this.start[t] = used;
      used += this.capacity[t];
    }
    this.pool = pool;
    this.used = used;
    this.wasted = 0;
  }
}

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size);
  out.set(array);
  return out;
}
