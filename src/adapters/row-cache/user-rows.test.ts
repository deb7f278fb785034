import { describe, expect, it } from "vitest";
import { UserRows } from "./user-rows.js";

const vector = (x: number) => new Float32Array([x, 1 - x]);

describe("UserRows lookups", () => {
  it("keeps a column index across in-place updates that leave its column alone, and drops it when one changes it", () => {
    const p = new UserRows(2, "text");
    p.put("a", { id: "a", text: "first note", superseded_by: "", access_count: 0 }, vector(0.1));
    p.put("b", { id: "b", text: "second note", superseded_by: "", access_count: 0 }, vector(0.2));
    const open = () => p.lookup("superseded_by", new Set([""]), () => true).map((h) => h.row.id);
    const replacedBy = (id: string) => p.lookup("superseded_by", new Set([id]), () => true).map((h) => h.row.id);
    expect(open()).toEqual(["a", "b"]);
    // An access mark: same text, same superseded_by.
    p.put("a", { id: "a", text: "first note", superseded_by: "", access_count: 3 }, vector(0.1));
    expect(p.lookup("superseded_by", new Set([""]), () => true).map((h) => h.row.access_count)).toEqual([3, 0]);
    // Closing a fact in place: same text, superseded_by set.
    p.put("b", { id: "b", text: "second note", superseded_by: "c", access_count: 0 }, vector(0.2));
    expect(open()).toEqual(["a"]);
    expect(replacedBy("c")).toEqual(["b"]);
    // A new text moves the row: every index is rebuilt.
    p.put("a", { id: "a", text: "first note, revised", superseded_by: "", access_count: 3 }, vector(0.1));
    p.remove("b");
    expect(open()).toEqual(["a"]);
    expect(replacedBy("c")).toEqual([]);
  });
});
