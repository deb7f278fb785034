import type { Data, Vector } from "apache-arrow";
import { arrow } from "./arrow.js";

// Reading an engine result cell by cell through Arrow's `Vector.get` (a visitor per cell, a new
// `Vector` per list cell) cost a cold recall's three reads ~2.2 ms of the main thread at 1M memories
// (CPU profile, 400 recalls, 2026-12-07). The column types the codecs store are read here straight
// from their buffers; any other type goes through Arrow.

const { Type } = arrow;

/** Whether cell `i` of `d` holds a value (not null). */
function valid(d: Data, i: number): boolean {
  if (d.nullCount <= 0 || !d.nullBitmap || d.nullBitmap.length === 0) return true;
  const at = d.offset + i;
  return (d.nullBitmap[at >> 3] & (1 << (at & 7))) !== 0;
}

/** The bytes of a variable-width column as a Buffer (no copy), for `toString("utf8", start, end)`. */
function bytesOf(d: Data): Buffer {
  const v = d.values as Uint8Array;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** String `i` of a Utf8 / LargeUtf8 chunk (its offsets are already sliced to the chunk). */
function stringAt(d: Data, bytes: Buffer, i: number): string {
  const offsets = d.valueOffsets as Int32Array | BigInt64Array;
  return bytes.toString("utf8", Number(offsets[i]), Number(offsets[i + 1]));
}

const isString = (d: Data) => d.typeId === Type.Utf8 || d.typeId === Type.LargeUtf8;

/** Reads chunk `d` into `out` from `at`; false when its type is not one read here. */
function readChunk(d: Data, out: unknown[], at: number): boolean {
  const n = d.length;
  if (isString(d)) {
    const bytes = bytesOf(d);
    for (let i = 0; i < n; i++) out[at + i] = valid(d, i) ? stringAt(d, bytes, i) : null;
    return true;
  }
  if (d.typeId === Type.Float || (d.typeId === Type.Int && (d.type as unknown as { bitWidth: number }).bitWidth <= 32)) {
    if ((d.type as unknown as { precision?: number }).precision === 0) return false; // half floats
    const values = d.values as Float64Array | Float32Array | Int32Array;
    for (let i = 0; i < n; i++) out[at + i] = valid(d, i) ? values[i] : null;
    return true;
  }
  if (d.typeId === Type.Int) {
    const values = d.values as BigInt64Array;
    for (let i = 0; i < n; i++) out[at + i] = valid(d, i) ? Number(values[i]) : null;
    return true;
  }
  if (d.typeId === Type.Bool) {
    const values = d.values as Uint8Array;
    for (let i = 0; i < n; i++) {
      const bit = d.offset + i;
      out[at + i] = valid(d, i) ? (values[bit >> 3] & (1 << (bit & 7))) !== 0 : null;
    }
    return true;
  }
  if (d.typeId === Type.List && d.children.length === 1 && isString(d.children[0])) {
    const child = d.children[0];
    const bytes = bytesOf(child);
    const offsets = d.valueOffsets as Int32Array;
    for (let i = 0; i < n; i++) {
      if (!valid(d, i)) {
        out[at + i] = null;
        continue;
      }
      const list: (string | null)[] = [];
      for (let j = offsets[i]; j < offsets[i + 1]; j++) list.push(valid(child, j) ? stringAt(child, bytes, j) : null);
      out[at + i] = list;
    }
    return true;
  }
  return false;
}

/**
 * The cells of one result column as plain values: strings, numbers, booleans, arrays for list
 * cells, null for nulls (what iterating the column gives, with list cells as arrays).
 */
export function columnCells(column: Vector | null): unknown[] {
  if (!column) return [];
  const out: unknown[] = new Array(column.length);
  let at = 0;
  for (const chunk of column.data) {
    if (!readChunk(chunk, out, at)) return viaArrow(column);
    at += chunk.length;
  }
  return out;
}

/** Arrow's own reading, for column types not read above. */
function viaArrow(column: Vector): unknown[] {
  return Array.from(column, (v) => (v !== null && typeof v === "object" && "toArray" in v ? Array.from((v as { toArray(): ArrayLike<unknown> }).toArray()) : v));
}
