import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** Module → the modules it imports (relative imports only, repo-relative `.ts` paths). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    // Unit tests beside pure modules may use a port's test double (the manual clock): they are not part of a layer.
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * Reads every `.ts` module under `root/src` (tests excepted) with the TypeScript pre-processor: static imports,
 * `import type`, `export … from` and dynamic `import()` all count. Paths are relative to `root`,
 * with the `.js` of ESM specifiers mapped back to `.ts`.
 */
export function readImportGraph(root: string): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(join(root, "src"))) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => relative(root, resolve(dirname(file), name)).replace(/\.js$/, ".ts"));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The layer a module belongs to; `root` is the composition root (`src/app.ts`, `src/compose/`). */
export function layerOf(path: string): string {
  if (path === "src/app.ts" || path.startsWith("src/compose/")) return "root";
  const m = /^src\/([^/]+)\//.exec(path);
  return m ? m[1] : path;
}

/** Which layers each inner layer must not import: dependencies point inward only. */
export const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  core: ["ports", "services", "server", "adapters", "root"],
  ports: ["services", "server", "adapters", "root"],
  services: ["server", "adapters", "root"],
  server: ["root"],
};

/** Every import that points outward, as `from → to` arrows (empty when the layering holds). */
export function outwardImports(graph: ImportGraph): string[] {
  const arrows: string[] = [];
  for (const [from, targets] of graph) {
    const banned = FORBIDDEN[layerOf(from)] ?? [];
    for (const to of targets) if (banned.includes(layerOf(to))) arrows.push(`${from} → ${to}`);
  }
  return arrows.sort();
}
