import { describe, expect, it } from "vitest";
import { where } from "../../core/condition.js";
import { inFragments, literal, MAX_FRAGMENT_RUNS, renderCondition } from "./filter.js";

describe("filter rendering", () => {
  it("escapes quotes in string values", () => {
    expect(literal("o'brien")).toBe("'o''brien'");
    expect(renderCondition(where.eq("user", "x' OR '1'='1"))).toBe("`user` = 'x'' OR ''1''=''1'");
  });

  it("renders nested conditions and drops match-all parts", () => {
    const c = where.and(where.eq("user", "u"), where.all(), where.or(where.isNull("valid_to"), where.gt("valid_to", 5)));
    expect(renderCondition(c)).toBe("(`user` = 'u') AND ((`valid_to` IS NULL) OR (`valid_to` > 5))");
    expect(renderCondition(where.and())).toBeUndefined();
    expect(renderCondition(where.in("id", []))).toBe("FALSE");
    expect(renderCondition(where.hasAll("tag_pairs", ["a=b"]))).toBe("array_has_all(`tag_pairs`, ['a=b'])");
  });

  it("rejects column names that are not identifiers and non-finite numbers", () => {
    expect(() => renderCondition(where.eq("user; DROP", "x"))).toThrow(/invalid column/);
    expect(() => renderCondition(where.lt("created_at", Number.NaN))).toThrow(/non-finite/);
  });

  it("selects fragments by row address, exactly past 2^53", () => {
    expect(inFragments([0, 3])).toEqual(["(_rowid >= 0 AND _rowid < 4294967296) OR (_rowid >= 12884901888 AND _rowid < 17179869184)"]);
    expect(inFragments([3_000_000])[0]).toContain("_rowid >= 12884901888000000 AND");
    expect(inFragments([])).toEqual([]);
    expect(() => inFragments([-1])).toThrow(/fragment id/);
    // Consecutive ids are one range; past MAX_FRAGMENT_RUNS ranges, another filter.
    expect(inFragments([5, 3, 4, 7], "_rowaddr")).toEqual([`(_rowaddr >= ${3n << 32n} AND _rowaddr < ${6n << 32n}) OR (_rowaddr >= ${7n << 32n} AND _rowaddr < ${8n << 32n})`]);
    expect(inFragments(Array.from({ length: 1000 }, (_, i) => i))).toHaveLength(1);
    const scattered = inFragments(Array.from({ length: 450 }, (_, i) => 2 * i));
    expect(scattered).toHaveLength(3);
    for (const f of scattered) expect(f.split(" AND ").length - 1).toBeLessThanOrEqual(MAX_FRAGMENT_RUNS);
  });
});
