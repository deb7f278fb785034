import type { Vector } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { arrow } from "../../src/adapters/lancedb/arrow.js";
import { columnCells } from "../../src/adapters/lancedb/arrow-cells.js";

const { vectorFromArray, Utf8, LargeUtf8, Float64, Int32, Int64, Bool, List, Field, Float16 } = arrow;

/** What iterating the column through Arrow gives, list cells as arrays and 64-bit integers as numbers. */
function viaArrow(column: { [Symbol.iterator](): Iterator<unknown> }): unknown[] {
  return Array.from(column, (v) =>
    typeof v === "bigint" ? Number(v) : v !== null && typeof v === "object" && "toArray" in v ? Array.from((v as { toArray(): ArrayLike<unknown> }).toArray()) : v,
  );
}

describe("columnCells", () => {
  const columns = {
    utf8: vectorFromArray(["a", null, "héllo wörld ✓", "", "z"], new Utf8()),
    largeUtf8: vectorFromArray(["x", "yy", null, "ünï", ""], new LargeUtf8()),
    float64: vectorFromArray([1.5, null, -0, 3e300, 7], new Float64()),
    int32: vectorFromArray([1, 2, null, -4, 5], new Int32()),
    int64: vectorFromArray([1n, null, 3n, -4n, 5n], new Int64()),
    bool: vectorFromArray([true, false, null, true, true], new Bool()),
    list: vectorFromArray([["a", "b"], [], null, ["ç", null], ["e"]], new List(new Field("item", new Utf8(), true))),
  };

  for (const [name, column] of Object.entries(columns) as [string, Vector][]) {
    it(`reads a ${name} column as Arrow does, whole and sliced`, () => {
      expect(columnCells(column)).toEqual(viaArrow(column));
      const sliced = column.slice(1, 4);
      expect(columnCells(sliced)).toEqual(viaArrow(sliced));
      const chunked = column.slice(0, 2).concat(column.slice(2));
      expect(chunked.data.length).toBe(2);
      expect(columnCells(chunked)).toEqual(viaArrow(column));
    });
  }

  it("reads nulls as null and lists as arrays", () => {
    expect(columnCells(columns.list)).toEqual([["a", "b"], [], null, ["ç", null], ["e"]]);
    expect(columnCells(columns.int64)).toEqual([1, null, 3, -4, 5]);
    expect(columnCells(null)).toEqual([]);
  });

  it("leaves other column types to Arrow", () => {
    const half = vectorFromArray([0.5, 1.5], new Float16());
    expect(columnCells(half)).toEqual([0.5, 1.5]);
  });
});
