import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServer, startRealServer } from "../support/real-server.js";
import { ok } from "../mcp/mcp-contract.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "agents.md"), "utf8");
const WRITE_KEY = "docs-write-key-0123456789";

/** The fenced block after `<!-- agents-test: NAME -->`. */
function snippet(name: string): string {
  const m = new RegExp(`<!-- agents-test: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(DOC);
  if (!m) throw new Error(`docs/agents.md has no ${name} snippet`);
  return m[1];
}

interface McpConfig {
  mcpServers: Record<string, { command?: string; args?: string[]; type?: string; url?: string; headers?: Record<string, string> }>;
}

let real: RealServer;
beforeAll(async () => {
  real = await startRealServer({ apiKeys: `${WRITE_KEY}:docs:write` });
});
afterAll(async () => real?.close());

describe("docs/agents.md snippets", { timeout: 180_000 }, () => {
  it("the MCP client config: the stdio command starts a server that remembers and recalls", async () => {
    const { mcpServers } = JSON.parse(snippet("mcp-config")) as McpConfig;
    const stdio = Object.values(mcpServers).find((s) => s.command !== undefined);
    expect(stdio?.command).toBe("npx");
    const [name, ...args] = stdio?.args ?? [];
    expect(name).toBe("agentmem");
    const dir = await mkdtemp(join(tmpdir(), "agentmem-docs-mcp-"));
    const client = new Client({ name: "docs-test", version: "1.0.0" });
    try {
      // `npx agentmem` is this checkout's bin; the data directory is a temp one.
      const local = args.map((a) => (a === "./data" ? dir : a));
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, "bin", "agentmem.js"), ...local], env: { ...process.env, AGENTMEM_API_KEYS: "" } as Record<string, string>, stderr: "pipe" }));
      const stored = await ok(client, "remember", { text: "I'm worried about the surgery tomorrow" });
      const found = (await ok(client, "recall", { query: "surgery" })) as { hits: { id: string }[] };
      expect(found.hits[0].id).toBe(stored.memoryId);
      const profile = await client.readResource({ uri: "agentmem://users/patient_42/profile" });
      expect(JSON.parse((profile.contents[0] as { text: string }).text).user).toBe("patient_42");
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the MCP client config: the HTTP URL with its headers reaches /mcp on the serve port", async () => {
    const { mcpServers } = JSON.parse(snippet("mcp-config")) as McpConfig;
    const http = Object.values(mcpServers).find((s) => s.url !== undefined);
    expect(http?.type).toBe("http");
    const url = new URL(http?.url ?? "");
    expect(url.pathname).toBe("/mcp");
    const headers = Object.fromEntries(Object.entries(http?.headers ?? {}).map(([k, v]) => [k, v.replace("YOUR_WRITE_KEY", WRITE_KEY)]));
    const client = new Client({ name: "docs-test", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url.pathname, real.url), { requestInit: { headers } }));
      await ok(client, "remember", { text: "my daughter starts school in September" });
      const found = (await ok(client, "recall", { query: "daughter school" })) as { hits: { memory: string }[] };
      expect(found.hits[0].memory).toBe("my daughter starts school in September");
    } finally {
      await client.close();
    }
  });

  it("the SDK in five lines prints what the second turn recalled", async () => {
    const code = snippet("sdk");
    expect(code.trim().split("\n").length).toBe(5);
    const r = await new Promise<{ code: number; out: string; err: string }>((resolve) =>
      execFile(
        process.execPath,
        ["--input-type=module", "-e", code],
        { cwd: ROOT, env: { ...process.env, AGENTMEM_URL: real.url, AGENTMEM_API_KEY: WRITE_KEY } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
      ),
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^User: I'm worried about the surgery tomorrow$/m);
  });
});
