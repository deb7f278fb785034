import { describe, expect, it } from "vitest";
import { speakerPrefix } from "./names.js";

describe("speakerPrefix", () => {
  it("reads the speaker a transcript line opens with", () => {
    expect(speakerPrefix("Caroline: I went to the LGBTQ support group.")).toBe("Caroline");
    expect(speakerPrefix("Jon Snow: winter is coming")).toBe("Jon Snow");
  });

  it("is empty for text that does not open with a name and a colon", () => {
    expect(speakerPrefix("I went to the support group: it was great.")).toBe("");
    expect(speakerPrefix("The plan: rest")).toBe("");
    expect(speakerPrefix("caroline: lower case")).toBe("");
  });
});
