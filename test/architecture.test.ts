import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ImportGraph, layerOf, outwardImports, readImportGraph } from "./support/import-graph.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("import direction (dependencies point inward)", () => {
  const graph = readImportGraph(ROOT);

  it("reads the real graph: static, type-only and dynamic imports", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get("src/services/memory/memory-service.ts")).toContain("src/services/request-context.ts");
    expect(graph.get("src/services/request-context.ts")).toContain("src/core/principal.ts");
    // `await import("./compose/start-server.js")` in the CLI.
    expect(graph.get("src/cli.ts")).toContain("src/compose/start-server.ts");
  });

  it("no module in core/, ports/ or services/ imports server/, adapters/ or the composition root; core imports neither ports/ nor services/; server/ does not import the root", () => {
    const arrows = outwardImports(graph);
    // On failure the message lists every offending arrow, one per line.
    expect(arrows, `outward imports:\n${arrows.join("\n")}`).toEqual([]);
  });

  it("names every outward arrow of a graph that breaks the rules", () => {
    const bad: ImportGraph = new Map([
      ["src/core/ranking.ts", ["src/core/ids.ts", "src/ports/store.ts", "src/services/deps.ts"]],
      ["src/ports/store.ts", ["src/core/records.ts", "src/adapters/lancedb/lance-store.ts"]],
      ["src/services/memory/recall.ts", ["src/ports/store.ts", "src/server/auth.ts", "src/app.ts", "src/compose/start-server.ts"]],
      ["src/server/auth.ts", ["src/services/request-context.ts", "src/app.ts"]],
      ["src/compose/start-server.ts", ["src/server/listener.ts", "src/adapters/providers.ts", "src/app.ts"]],
      ["src/adapters/lancedb/filter.ts", ["src/core/condition.ts"]],
    ]);
    expect(outwardImports(bad)).toEqual([
      "src/core/ranking.ts → src/ports/store.ts",
      "src/core/ranking.ts → src/services/deps.ts",
      "src/ports/store.ts → src/adapters/lancedb/lance-store.ts",
      "src/server/auth.ts → src/app.ts",
      "src/services/memory/recall.ts → src/app.ts",
      "src/services/memory/recall.ts → src/compose/start-server.ts",
      "src/services/memory/recall.ts → src/server/auth.ts",
    ]);
  });

  it("puts app.ts and compose/ in the composition root", () => {
    expect([layerOf("src/app.ts"), layerOf("src/compose/api-interceptors.ts"), layerOf("src/services/x/y.ts"), layerOf("src/config.ts")]).toEqual([
      "root",
      "root",
      "services",
      "src/config.ts",
    ]);
  });
});
