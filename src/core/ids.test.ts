import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { contentHash, derivedId, memoryId, memoryIdentity } from "./ids.js";

const key = { namespace: "ns", agent: "coach", session: "s1", user: "u1" };

it("memoryIdentity gives the same id and content hash as memoryId and contentHash", () => {
  for (const text of ["I moved to Lisbon.", "  I MOVED   to lisbon. ", "ﬁve cafés", ""]) {
    expect(memoryIdentity("acme", key, text)).toEqual({ id: memoryId("acme", key, text), contentHash: contentHash(text) });
  }
});

it("ids depend on tenant and scope, not on case or spacing of the text", () => {
  expect(memoryId("acme", key, "I moved to Lisbon.")).toBe(memoryId("acme", key, "  i moved   TO lisbon. "));
  expect(memoryId("acme", key, "I moved to Lisbon.")).not.toBe(memoryId("other", key, "I moved to Lisbon."));
  expect(memoryId("acme", key, "I moved to Lisbon.")).not.toBe(memoryId("acme", { ...key, user: "u2" }, "I moved to Lisbon."));
  expect(memoryId("acme", key, "x")).toMatch(/^[0-9a-f]{32}$/);
});

it("ids are SHA-256 over the normalised text and scope, as stored ids have always been", () => {
  expect(contentHash("  Hello   WORLD ")).toBe(createHash("sha256").update("hello world").digest("hex"));
  const joined = ["acme", "ns", "coach", "s1", "u1", "i moved to lisbon."].join("\u0000");
  expect(memoryId("acme", key, "I moved to Lisbon.")).toBe(createHash("sha256").update(joined).digest("hex").slice(0, 32));
  expect(derivedId("ep", "a", 1)).toBe(`ep_${createHash("sha256").update("a\u00001").digest("hex").slice(0, 24)}`);
});
