import { describe, expect, it } from "vitest";
import { where } from "../../core/condition.js";
import { inFragments, literal, renderCondition } from "./filter.js";

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
    expect(inFragments([0, 3])).toBe("(_rowid >= 0 AND _rowid < 4294967296) OR (_rowid >= 12884901888 AND _rowid < 17179869184)");
    expect(inFragments([3_000_000])).toContain("_rowid >= 12884901888000000 AND");
    expect(inFragments([])).toBe("FALSE");
    expect(() => inFragments([-1])).toThrow(/fragment id/);
  });
});
