import { describe, expect, it } from "vitest";
import { autoTitle, clip, preview, PREVIEW_CHARS, TITLE_CHARS } from "./title.js";

describe("automatic titles", () => {
  it("takes the first sentence without its full stop", () => {
    expect(autoTitle("Can you help me plan a trip to Lisbon? I leave in May.")).toBe("Can you help me plan a trip to Lisbon?");
    expect(autoTitle("  My  printer is\nbroken. It beeps.")).toBe("My printer is broken");
  });

  it("keeps a message without sentence end whole when short", () => {
    expect(autoTitle("hello there")).toBe("hello there");
    expect(autoTitle("   ")).toBe("");
  });

  it("cuts a long first sentence on a word boundary with an ellipsis", () => {
    const long = `${"word ".repeat(40)}end.`;
    const title = autoTitle(long);
    expect(title.length).toBeLessThanOrEqual(TITLE_CHARS);
    expect(title.endsWith("word…")).toBe(true);
  });

  it("does not split on a dot inside a number or name", () => {
    expect(autoTitle("Version 2.5 crashed on start. Help")).toBe("Version 2.5 crashed on start");
  });
});

describe("previews", () => {
  it("collapses whitespace and caps the length", () => {
    expect(preview("a\n\n b")).toBe("a b");
    expect(preview("x".repeat(500)).length).toBe(PREVIEW_CHARS);
    expect(clip("abc def", 5)).toBe("abc…");
  });
});
