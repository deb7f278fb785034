import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { MemorySchema } from "../../gen/agentmem/v1/common_pb.js";
import { supersedeChains } from "./timeline.js";

const fact = (id: string, day: string, supersededBy = "") =>
  create(MemorySchema, { id, text: id, validFrom: timestampFromMs(Date.parse(day)), supersededBy, validTo: supersededBy ? timestampFromMs(Date.parse(day) + 1) : undefined });

describe("supersedeChains", () => {
  it("groups rows into chains oldest first, ordered by each chain's newest row", () => {
    const rows = [fact("paris", "2026-03-02"), fact("cat", "2025-05-01"), fact("london", "2025-01-14", "paris"), fact("berlin", "2024-01-01", "london")];
    expect(supersedeChains(rows).map((c) => c.map((m) => m.id))).toEqual([["cat"], ["berlin", "london", "paris"]]);
  });

  it("keeps a row whose successor is not in the page, and survives a cycle", () => {
    expect(supersedeChains([fact("a", "2025-01-01", "missing")]).map((c) => c.map((m) => m.id))).toEqual([["a"]]);
    const cycle = [fact("x", "2025-01-01", "y"), fact("y", "2025-01-02", "x")];
    expect(supersedeChains(cycle).map((c) => c.map((m) => m.id))).toEqual([["x", "y"]]);
  });
});
