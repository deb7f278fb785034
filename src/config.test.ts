import { describe, expect, it } from "vitest";
import { loadConfig, parseApiKeys } from "./config.js";

describe("config", () => {
  it("takes flags over env over defaults and freezes the result", () => {
    const c = loadConfig({ port: "9000" }, { AGENTMEM_PORT: "7000", AGENTMEM_EMBEDDER: "hash" });
    expect(c).toMatchObject({ port: 9000, embedder: "hash", host: "127.0.0.1", data: "./data", llm: "none" });
    expect(Object.isFrozen(c)).toBe(true);
    expect(loadConfig({}, {}).embedder).toBe("use");
  });

  it("parses API keys and rejects bad ones", () => {
    expect(parseApiKeys("k0123456789abcdef:acme:read, k1123456789abcdef:globex:admin")).toEqual([
      { key: "k0123456789abcdef", tenant: "acme", role: "read" },
      { key: "k1123456789abcdef", tenant: "globex", role: "admin" },
    ]);
    expect(() => parseApiKeys("short:acme:read")).toThrow();
    expect(() => parseApiKeys("k0123456789abcdef:acme:root")).toThrow();
  });

  it("refuses a public address without keys and rejects invalid values", () => {
    expect(() => loadConfig({ host: "0.0.0.0" }, {})).toThrow(/refusing to listen/);
    expect(loadConfig({ host: "0.0.0.0" }, { AGENTMEM_API_KEYS: "k0123456789abcdef:acme:admin" }).apiKeys).toHaveLength(1);
    expect(() => loadConfig({ embedder: "bert" }, {})).toThrow(/embedder/);
    expect(() => loadConfig({ port: "99999" }, {})).toThrow(/port/);
  });

  it("reads the start-up warm-up budget in seconds (0 = off)", () => {
    expect(loadConfig({}, {}).storage.warmUpMs).toBe(10_000);
    expect(loadConfig({}, { AGENTMEM_WARM_UP_SECONDS: "0" }).storage.warmUpMs).toBe(0);
    expect(loadConfig({}, { AGENTMEM_WARM_UP_SECONDS: "2.5" }).storage.warmUpMs).toBe(2_500);
    expect(() => loadConfig({}, { AGENTMEM_WARM_UP_SECONDS: "-1" })).toThrow();
  });
});
