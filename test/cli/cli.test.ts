import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

/** A small LoCoMo-format conversation written for this test (a clone has no `../shared` datasets). */
const LOCOMO = join(import.meta.dirname, "..", "fixtures", "invented-conversation.json");
const ADMIN = "cli-admin-key-0123456789abcdef";
const READER = "cli-read-key-0123456789abcdef";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/agentmem.js …` against a server, as a user would. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["bin/agentmem.js", ...args],
      { env: { ...process.env, AGENTMEM_URL: server.url, AGENTMEM_API_KEY: ADMIN, ...env }, maxBuffer: 64 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: RealServer;
let dir: string;

beforeAll(async () => {
  server = await startRealServer({ apiKeys: `${ADMIN}:acme:admin,${READER}:acme:read` });
  dir = await mkdtemp(join(tmpdir(), "agentmem-cli-test-"));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

// Every step spawns the real CLI; on a loaded 2-core machine one spawn can take seconds.
describe("agentmem CLI against a running server", { timeout: 180_000 }, () => {
  it("imports a LoCoMo file with progress and a count, then search prints dated results and block stays in budget", async () => {
    const imported = await cli(["import", LOCOMO, "--user", "demo"]);
    expect(imported.stderr).toMatch(/LoCoMo conversation, 4 sessions/);
    expect(imported.stderr).toMatch(/100% \| 40\/40 turns/);
    expect(imported.stdout.trim()).toMatch(/^imported 40 turns as 40 memories for user demo in [\d.]+ s/);
    expect(imported.code).toBe(0);

    const search = await cli(["search", "demo", "When did Ines join the pottery class?", "-k", "5"]);
    expect(search.code).toBe(0);
    const results = search.stdout.split("\n").filter((l) => /^\s*\d+\. /.test(l));
    expect(results).toHaveLength(5);
    for (const line of results) expect(line).toMatch(/^\s*\d+\. \((January|February|March|April|May|June|July|August|September|October|November|December) \d{2}, 20\d\d\) /);
    expect(search.stdout).toContain("(March 14, 2024) Ines: I joined a pottery class yesterday");

    const block = await cli(["block", "demo", "When did Ines join the pottery class?", "--budget", "500"]);
    expect(block.code).toBe(0);
    const used = /\((\d+) of 500 tokens/.exec(block.stderr);
    expect(used).not.toBeNull();
    expect(Number(used![1])).toBeGreaterThan(0);
    expect(Number(used![1])).toBeLessThanOrEqual(500);
    expect(block.stdout).toMatch(/\(March 14, 2024\) .*pottery class/);
    const small = await cli(["block", "demo", "When did Ines join the pottery class?", "--budget", "60"]);
    expect(small.stdout.length).toBeLessThan(block.stdout.length);
  });

  it("remembers, recalls, lists facts, history and state, and prints JSON with --json", async () => {
    expect((await cli(["remember", "maya", "I", "had", "knee", "surgery", "--at", "2025-01-14", "--name", "Maya"])).code).toBe(0);
    expect((await cli(["remember", "maya", "My daughter Lea starts school in September", "--tag", "topic=family"])).code).toBe(0);

    const recall = await cli(["recall", "maya", "surgery", "-k", "3"]);
    expect(recall.code).toBe(0);
    expect(recall.stdout).toMatch(/1\. \(January 14, 2025\) I had knee surgery\n\s+(strong|moderate|weak) · score/);

    const facts = await cli(["facts", "maya"]);
    expect(facts.stdout).toMatch(/^2025-01-14 \.\. now\s+I had knee surgery/m);
    expect(facts.stdout.trim().split("\n")).toHaveLength(2);

    const history = await cli(["history", "maya"]);
    expect(history.stdout).toMatch(/^2025-01-14 00:00\s+Maya\s+I had knee surgery$/m);
    expect(history.stderr).toContain("(2 of 2 turns)");

    const state = await cli(["state", "maya"]);
    expect(state.stdout).toMatch(/^trust\s+0\.\d{3}$/m);
    expect(state.stdout).toMatch(/^familiarity\s+0\.\d{3}$/m);

    const json = JSON.parse((await cli(["recall", "maya", "surgery", "--json"])).stdout) as { hits: { memory: string; strength: string }[] };
    expect(json.hits[0].memory).toBe("I had knee surgery");
    expect(json.hits[0].strength).toMatch(/^MATCH_STRENGTH_/);
  });

  it("imports JSONL of RememberRequests, exports and erases an end-user", async () => {
    const file = join(dir, "turns.jsonl");
    const lines = [
      { content: "I moved to Paris", observedAt: "2026-03-02T10:00:00Z" },
      { content: "I love croissants", tags: { topic: "food" } },
      { scope: { user: "someone-else" }, content: "Not Sam's memory" },
    ];
    await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const imported = await cli(["import", file, "--user", "sam"]);
    expect(imported.stdout).toMatch(/^imported 3 turns as 3 memories for 2 users/);

    const exported = await cli(["export", "sam"]);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout) as { externalId: string; memories: { text: string }[] };
    expect(doc.externalId).toBe("sam");
    expect(doc.memories.map((m) => m.text).sort()).toEqual(["I love croissants", "I moved to Paris"]);

    const refused = await cli(["erase", "sam"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split("\n")).toEqual(["agentmem: erase deletes everything stored about sam and cannot be undone: add --yes to confirm"]);
    const erased = await cli(["erase", "sam", "--yes"]);
    expect(erased.stdout).toMatch(/^erased sam: 2 memories, 2 turns/);
    expect((await cli(["facts", "sam"])).stdout.trim()).toBe("no facts stored for sam");
    expect((await cli(["facts", "someone-else"])).stdout).toContain("Not Sam's memory");
  });

  it("prints one clear line and exits non-zero on errors", async () => {
    const oneLine = (r: Run) => {
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      return r.stderr.trim();
    };
    // Independent failures, spawned side by side.
    const [unreachable, wrongKey, reader, zeroK, badDate, missingFile, badUrl, missingArg, unknownOption] = await Promise.all([
      cli(["facts", "maya"], { AGENTMEM_URL: "http://127.0.0.1:9" }),
      cli(["facts", "maya"], { AGENTMEM_API_KEY: "wrong-key-0123456789abcdef" }),
      cli(["remember", "maya", "hello"], { AGENTMEM_API_KEY: READER }),
      cli(["search", "maya", "x", "-k", "0"]),
      cli(["search", "maya", "x", "--as-of", "someday"]),
      cli(["import", join(dir, "missing.jsonl")]),
      cli(["recall", "maya", "x", "--url", "ftp://nowhere"]),
      cli(["search", "maya"]),
      cli(["facts", "maya", "--colour"]),
    ]);
    expect(oneLine(unreachable)).toMatch(/^agentmem: cannot reach the agentmem server/);
    expect(oneLine(wrongKey)).toMatch(/^agentmem: not authenticated \(INVALID_API_KEY\)/);
    expect(oneLine(reader)).toMatch(/^agentmem: PERMISSION_DENIED \(ROLE_TOO_LOW\)/);
    expect(oneLine(zeroK)).toBe("agentmem: -k: expected a positive whole number, got 0");
    expect(oneLine(badDate)).toMatch(/^agentmem: --as-of: not a date/);
    expect(oneLine(missingFile)).toMatch(/^agentmem: ENOENT/);
    expect(oneLine(badUrl)).toBe("agentmem: invalid server URL: ftp://nowhere (expected http://host:port)");
    expect(oneLine(missingArg)).toBe("agentmem: missing required argument 'question'");
    expect(oneLine(unknownOption)).toBe("agentmem: unknown option '--colour'");
  });

  it("has --help on every command", async () => {
    const commands = ["serve", "remember", "recall", "facts", "search", "block", "history", "state", "import", "export", "erase", "reembed"];
    const [top, search] = await Promise.all([cli(["--help"]), cli(["search", "--help"])]);
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.stdout).toMatch(new RegExp(`^  ${c} `, "m"));
    expect(search.code).toBe(0);
    expect(search.stdout).toContain("Usage: agentmem search [options] <user> <question>");
    expect(search.stdout).toContain("--as-of <date>");
    // The same program, in-process, for every other command (spawning twelve times adds nothing).
    const program = createProgram();
    for (const c of commands) {
      const help = program.commands.find((cmd) => cmd.name() === c)?.helpInformation() ?? "";
      expect(help).toContain(`Usage: agentmem ${c}`);
    }
  });
});
