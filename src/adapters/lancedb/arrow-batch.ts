import { makeArrowTable } from "@lancedb/lancedb";
import type { Data, DataType, Field, Schema, Table as ArrowTable } from "apache-arrow";
import { arrow } from "./arrow.js";

// Writes hand LanceDB an Arrow table built column by column straight from the row values: the
// generic `makeArrowTable` path infers and copies value by value and cost ~0.5–1 s per 1,000
// memory rows here, more than the commit itself.

const { Type } = arrow;

/** Validity bitmap for a column, or undefined when nothing is null. */
function validity(values: readonly unknown[]): { bitmap?: Uint8Array; nulls: number } {
  let nulls = 0;
  for (const v of values) if (v === null || v === undefined) nulls++;
  if (nulls === 0) return { nulls };
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null && v !== undefined) bitmap[i >> 3] |= 1 << (i & 7);
  });
  return { bitmap, nulls };
}

function utf8Data(type: DataType, values: readonly unknown[]): Data {
  const { bitmap, nulls } = validity(values);
  const offsets = new Int32Array(values.length + 1);
  const strings = values.map((v) => (v === null || v === undefined ? "" : String(v)));
  let size = 0;
  for (const s of strings) size += Buffer.byteLength(s);
  // One buffer for the whole column: no per-string allocation.
  const data = Buffer.allocUnsafe(size);
  let at = 0;
  strings.forEach((s, i) => {
    at += data.write(s, at);
    offsets[i + 1] = at;
  });
  return arrow.makeData({ type, length: values.length, nullCount: nulls, nullBitmap: bitmap, valueOffsets: offsets, data: new Uint8Array(data.buffer, data.byteOffset, size) } as never);
}

function columnData(field: Field, values: readonly unknown[]): Data | undefined {
  const type = field.type as DataType;
  const n = values.length;
  switch (type.typeId) {
    case Type.Utf8:
      return utf8Data(type, values);
    case Type.Float:
    case Type.Int: {
      const { bitmap, nulls } = validity(values);
      const Ctor = (type as unknown as { ArrayType: new (n: number) => Float64Array | Float32Array | Int32Array }).ArrayType;
      const data = new Ctor(n);
      values.forEach((v, i) => (data[i] = v === null || v === undefined ? 0 : Number(v)));
      return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data } as never);
    }
    case Type.Bool: {
      const { bitmap, nulls } = validity(values);
      const data = new Uint8Array((n + 7) >> 3);
      values.forEach((v, i) => {
        if (v) data[i >> 3] |= 1 << (i & 7);
      });
      return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, data } as never);
    }
    case Type.List: {
      const child = (type as unknown as { children: Field[] }).children[0];
      if ((child.type as DataType).typeId !== Type.Utf8) return undefined;
      const { bitmap, nulls } = validity(values);
      const offsets = new Int32Array(n + 1);
      const items: unknown[] = [];
      values.forEach((v, i) => {
        if (v !== null && v !== undefined) items.push(...Array.from(v as ArrayLike<unknown>));
        offsets[i + 1] = items.length;
      });
      return arrow.makeData({ type, length: n, nullCount: nulls, nullBitmap: bitmap, valueOffsets: offsets, child: utf8Data(child.type as DataType, items) } as never);
    }
    case Type.FixedSizeList: {
      const list = type as unknown as { listSize: number; children: Field[] };
      if ((list.children[0].type as DataType).typeId !== Type.Float || values.some((v) => v === null || v === undefined)) return undefined;
      const flat = new Float32Array(n * list.listSize);
      values.forEach((v, i) => flat.set(v as ArrayLike<number>, i * list.listSize));
      const child = arrow.makeData({ type: list.children[0].type, length: flat.length, nullCount: 0, data: flat } as never);
      return arrow.makeData({ type, length: n, nullCount: 0, child } as never);
    }
    default:
      return undefined;
  }
}

/**
 * Rows (column name → value, as codecs make them) as an Arrow table of `schema`; `columns` gives
 * the values of columns the rows do not carry (a packed column, `packed-row.ts`).
 */
export function rowsToArrow(rows: readonly Record<string, unknown>[], schema: Schema, columns: Readonly<Record<string, readonly unknown[]>> = {}): ArrowTable {
  const children: Data[] = [];
  for (const field of schema.fields) {
    const data = columnData(field, columns[field.name] ?? rows.map((r) => r[field.name]));
    if (!data) return makeArrowTable(rows as Record<string, unknown>[], { schema }) as unknown as ArrowTable;
    children.push(data);
  }
  const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children } as never);
  return new arrow.Table([new arrow.RecordBatch(schema, struct as never)]);
}
