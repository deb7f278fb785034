import { createRequire } from "node:module";
import type * as Arrow from "apache-arrow";

// LanceDB is CommonJS; its Arrow and an ESM-imported Arrow are different classes, and schemas
// built from the ESM copy fail with "schemas must be equivalent". Load the CJS build.
const require = createRequire(import.meta.url);

/** The CommonJS apache-arrow module that LanceDB itself uses. */
export const arrow = require("apache-arrow") as typeof Arrow;

const { Field, Utf8, Float64, Float32, FixedSizeList, List, Bool, Int32 } = arrow;

/** Column type builders for table schemas. */
export const col = {
  text: (name: string, nullable = false) => new Field(name, new Utf8(), nullable),
  float: (name: string, nullable = false) => new Field(name, new Float64(), nullable),
  int: (name: string) => new Field(name, new Int32(), false),
  bool: (name: string) => new Field(name, new Bool(), false),
  texts: (name: string) => new Field(name, new List(new Field("item", new Utf8(), true)), false),
  vector: (name: string, dimension: number) =>
    new Field(name, new FixedSizeList(dimension, new Field("item", new Float32(), true)), false),
};

/** Reads an Arrow list cell (or plain array) as strings. */
export function toStrings(value: unknown): string[] {
  if (value == null) return [];
  if (Array.isArray(value)) return value.map(String);
  const v = value as { toArray(): ArrayLike<unknown> };
  return Array.from(v.toArray(), (x) => String(x));
}

/** Reads an Arrow vector cell as a Float32Array. */
export function toVector(value: unknown): Float32Array {
  if (value instanceof Float32Array) return value;
  if (value == null) return new Float32Array(0);
  if (Array.isArray(value)) return Float32Array.from(value as number[]);
  return Float32Array.from((value as { toArray(): ArrayLike<number> }).toArray());
}
