import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMem } from "../../sdk/index.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "conversations.md"), "utf8");

/** The commands of the doc's tested `sh` blocks: each starts at a line beginning with `curl`. */
function curlCommands(): string[] {
  const blocks = [...DOC.matchAll(/<!-- docs-test: sh -->\n```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const out: string[] = [];
  for (const line of blocks.join("").split("\n")) {
    if (line.startsWith("curl ")) out.push(line);
    else if (out.length > 0 && line.trim() !== "") out[out.length - 1] += `\n${line}`;
  }
  return out;
}

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(() => server?.close());

// Spawning curl and the CLI can take seconds each on a loaded 2-core machine.
describe("conversations from outside: the doc's curl lines, the SDK and the CLI", { timeout: 180_000 }, () => {
  it("docs/conversations.md curl examples answer as the text says", async () => {
    const host = new URL(server.url).host;
    const outputs: unknown[] = [];
    const lines = curlCommands();
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      const r = await run("sh", ["-c", line.replaceAll("localhost:8080", host)]);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      outputs.push(JSON.parse(r.stdout));
    }
    const [created, appended, listed, messages, recalled, deleted] = outputs as Record<string, any>[];
    expect(created.conversation).toMatchObject({ id: "trip-to-porto", metadata: { channel: "web" } });
    expect(created.conversation).not.toHaveProperty("messageCount");
    expect(appended.messageIds).toHaveLength(3);
    expect(listed.conversations[0]).toMatchObject({ id: "trip-to-porto", title: "Find me a morning train to Porto on Friday", messageCount: "3" });
    expect(messages.messages.map((m: { role: string }) => m.role)).toEqual(["user", "tool", "assistant"]);
    expect(messages.messages[1].trace).toMatchObject({ toolName: "train_search", arguments: '{"to": "Porto"}', latencyMs: "412" });
    expect(messages.messages[2].trace).toMatchObject({ model: "gpt-4o-mini", inputTokens: "812", outputTokens: "23" });
    expect(recalled.hits[0].memory).toBe("The 07:09 Alfa Pendular leaves from platform 4.");
    expect(deleted).toEqual({ messages: "3", memories: "3", traces: "3" });
  });

  it("the SDK's conversations.create / append / list / messages / delete, and the CLI's ls / show / rm", async () => {
    const client = new AgentMem({ baseUrl: server.url });
    const sam = { user: "sam" };
    const first = await client.conversations.create(sam, { title: "Printer trouble", metadata: { ticket: "T-1" } });
    await client.conversations.append(sam, first.id, [
      { role: "user", content: "My printer shows error E7." },
      { role: "tool", content: "kb_lookup(E7)", trace: { toolName: "kb_lookup", arguments: '{"code":"E7"}', result: "paper jam in tray 2" } },
      { role: "assistant", content: "E7 is a paper jam in tray 2.", trace: { model: "m-small", inputTokens: 50n, outputTokens: 9n, latencyMs: 120n } },
    ]);
    const second = await client.conversations.create(sam, { id: "sam-2" });
    await client.conversations.append(sam, second.id, [{ content: "Is the store open on Sunday? Thanks." }]);
    const page = await client.conversations.list(sam, { pageSize: 1 });
    expect(page.conversations.map((c) => c.title)).toEqual(["Is the store open on Sunday?"]);
    const rest = await client.conversations.list(sam, { pageSize: 1, pageToken: page.nextPageToken });
    expect(rest.conversations.map((c) => c.id)).toEqual([first.id]);
    expect(rest.nextPageToken).toBe("");
    const newest = await client.conversations.messages(sam, first.id, { newestFirst: true, pageSize: 1 });
    expect(newest.messages[0].content).toBe("E7 is a paper jam in tray 2.");
    expect((await client.conversations.update(sam, first.id, { archived: true })).archived).toBe(true);
    // An update is activity too: the archived conversation is now the newest.

    const env = { AGENTMEM_URL: server.url };
    const ls = await run(process.execPath, ["bin/agentmem.js", "conversations", "ls", "--user", "sam"], env);
    expect(ls.code, ls.stderr).toBe(0);
    const rows = ls.stdout.trim().split("\n");
    expect(rows[0]).toMatch(new RegExp(`^${first.id} .* 3 msgs {2}\\[archived\\] Printer trouble$`));
    expect(rows[1]).toMatch(/^sam-2 .* 1 msgs {2}Is the store open on Sunday\?$/);
    const show = await run(process.execPath, ["bin/agentmem.js", "conversations", "show", first.id, "--user", "sam"], env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("Printer trouble");
    expect(show.stdout).toContain("metadata ticket=T-1");
    expect(show.stdout).toMatch(/kb_lookup\(E7\)\n {6}trace: tool kb_lookup · args \{"code":"E7"\} · result paper jam in tray 2/);
    expect(show.stdout).toMatch(/trace: model m-small · tokens 50→9 · 120 ms/);
    const other = await run(process.execPath, ["bin/agentmem.js", "conversations", "show", first.id, "--user", "someone-else"], env);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/not found/i);
    const rm = await run(process.execPath, ["bin/agentmem.js", "conversations", "rm", first.id, "--user", "sam"], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout.trim()).toBe(`deleted ${first.id}: 3 messages, 3 memories`);
    expect((await client.conversations.list(sam)).conversations.map((c) => c.id)).toEqual(["sam-2"]);
    await client.conversations.delete(sam, "sam-2");
  });
});
