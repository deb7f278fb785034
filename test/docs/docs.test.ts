import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

const ROOT = join(import.meta.dirname, "..", "..");
const doc = (name: string) => readFileSync(join(ROOT, name), "utf8");
const API = doc("docs/api.md");

/** The fenced blocks of docs/api.md that follow a `<!-- docs-test: KIND ARG -->` marker, in order. */
function testedBlocks(kind: string): { arg: string; body: string }[] {
  const re = /<!-- docs-test: (\S+)(?: (\S+))? -->\n```\w*\n([\s\S]*?)```/g;
  return [...API.matchAll(re)].filter((m) => m[1] === kind).map((m) => ({ arg: m[2] ?? "", body: m[3] }));
}

/** Shell lines of a block, with `\` continuations joined. */
function commands(body: string): string[] {
  return body.replace(/\\\n\s*/g, "").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/** Splits a command line into words the way sh would for these simple lines. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: RealServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// The snippets spawn the CLI and tsx; on a loaded 2-core machine one spawn can take seconds.
describe("docs/api.md snippets, run against a real server", { timeout: 180_000 }, () => {
  it("curl and buf curl commands answer as the text says", async () => {
    const real = (server = await startRealServer());
    const blocks = testedBlocks("sh");
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const outputs: string[] = [];
    const host = new URL(real.url).host;
    for (const line of blocks.flatMap((b) => commands(b.body))) {
      const local = line.replaceAll("localhost:8080", host).replaceAll("127.0.0.1:8080", host).replace(/^npx buf /, "node_modules/.bin/buf ");
      const r = await run("sh", ["-c", local]);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout);
    }
    const [health, remember, recall, block, tooMany, methods, grpcRecall] = outputs;
    expect(JSON.parse(health)).toEqual({ status: "SERVING" });
    expect(JSON.parse(remember).memoryId).toMatch(/^[0-9a-f]{32}$/);
    const hit = JSON.parse(recall).hits[0];
    expect(hit.memory).toBe("I had knee surgery in March");
    expect(hit.strength).toMatch(/^MATCH_STRENGTH_(STRONG|MODERATE|WEAK)$/);
    expect(Object.keys(hit.components)).toEqual(expect.arrayContaining(["lexical", "vector", "base", "decay", "salience", "fused", "similarity"]));
    expect(JSON.parse(block).block).toContain("(March 10, 2025) I had knee surgery in March");
    const error = JSON.parse(tooMany);
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toBe("k is 1000; the limit is 100");
    expect(JSON.stringify(error.details)).toContain("LIMIT_EXCEEDED");
    expect(methods).toContain("agentmem.v1.MemoryService/Recall");
    expect(JSON.parse(grpcRecall).hits[0].memory).toBe("I had knee surgery in March");
  });

  it("the TypeScript examples are in docs/api.md verbatim and run", async () => {
    const real = (server = await startRealServer());
    const examples = testedBlocks("example");
    expect(examples.map((e) => e.arg)).toEqual(["examples/chat-turn.ts", "examples/maya-move.ts"]);
    for (const e of examples) expect(e.body).toBe(readFileSync(join(ROOT, e.arg), "utf8"));

    const env = { AGENTMEM_URL: real.url };
    const chat = await run(process.execPath, ["--import", "tsx", "examples/chat-turn.ts"], env);
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toMatch(/^emotions: .*anxiety.* \| trust: 0\.51$/m);
    expect(chat.stdout).toMatch(/^recalled: 0\.\d\d User: I'm nervous about my knee surgery on Friday\.$/m);
    expect(chat.stdout).toMatch(/^erased [1-9]\d* memories and [1-9]\d* turns$/m);

    const maya = await run(process.execPath, ["--import", "tsx", "examples/maya-move.ts"], env);
    expect(maya.code, maya.stderr).toBe(0);
    expect(maya.stdout).toContain(`closed: [ "Maya lives in London and works as a nurse at St Thomas'." ]`);
    expect(maya.stdout).toMatch(/^now: .*Paris.* \| replaced: \[ "Maya lives in London/m);
    expect(maya.stdout).toMatch(/^as of 2025-06-01: Maya lives in London/m);
    expect(maya.stdout).toContain("[outdated as of March 02, 2026]");
  });

  it("the CLI walk of Maya's move prints what the text says", async () => {
    const real = (server = await startRealServer());
    const [walk] = testedBlocks("cli");
    const out: string[] = [];
    for (const line of commands(walk.body)) {
      const [npx, agentmem, ...args] = words(line);
      expect([npx, agentmem]).toEqual(["npx", "agentmem"]);
      const r = await run(process.execPath, ["bin/agentmem.js", ...args], { AGENTMEM_URL: real.url });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      out.push(r.stdout + r.stderr);
    }
    const [, move, facts, search, asOf, block] = out;
    expect(move).toMatch(/^superseded 2025-01-14 \.\. 2026-03-02\s+Maya lives in London/m);
    expect(facts).toMatch(/^2025-01-14 \.\. 2026-03-02\s+Maya lives in London.*\[outdated/m);
    expect(facts).toMatch(/^2026-03-02 \.\. now\s+.*Paris/m);
    expect(search).toMatch(/^ 1\. \(March 02, 2026\) .*Paris.*\n.*\n\s+replaced: \(January 14, 2025\) Maya lives in London/m);
    expect(asOf).toMatch(/^ 1\. \(January 14, 2025\) Maya lives in London/m);
    expect(block).toContain("[outdated as of March 02, 2026]");
    expect(block).toMatch(/\(\d+ of 500 tokens/);
  });
});

describe("reference tables in docs/", () => {
  it("README stays a front door that links every manual page", () => {
    const readme = doc("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    for (const page of readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"))) expect(readme, page).toContain(`(docs/${page})`);
  });

  it("README's SDK snippet is the one the agents doc test runs", () => {
    const sdk = /<!-- agents-test: sdk -->\n```ts\n([\s\S]*?)```/.exec(doc("docs/agents.md"))?.[1];
    expect(sdk).toBeDefined();
    expect(doc("README.md")).toContain(`\`\`\`ts\n${sdk}\`\`\``);
  });

  it("docs/benchmarks.md is what scripts/bench-tables.mjs renders from bench/results", async () => {
    const { render } = (await import(join(ROOT, "scripts", "bench-tables.mjs"))) as { render: () => string };
    expect(doc("docs/benchmarks.md")).toBe(render());
  });

  it("name every setting src/config.ts reads", () => {
    const source = readFileSync(join(ROOT, "src", "config.ts"), "utf8");
    const names = [...new Set([...source.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]))];
    expect(names.length).toBeGreaterThan(10);
    // A setting counts when a docs/ page documents it (docs/configuration.md lists the common ones).
    const reference = readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => doc(`docs/${f}`))
      .join("\n");
    for (const name of names) expect(reference, name).toContain(`\`${name}\``);
  });

  it("name every CLI command", () => {
    const table = API.slice(API.indexOf("| command | what it does |"));
    for (const c of createProgram().commands) expect(table, c.name()).toContain(`| \`${c.name()}`);
  });
});
