import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMem } from "../../sdk/index.js";
import { type RealServer, startRealServer } from "../support/real-server.js";
import { call, ok, refused, runMcpContract, TOOLS } from "./mcp-contract.js";

const WRITE = "write-key-0123456789abcdef";
const READ = "read-key-0123456789abcdef";
const ADMIN = "admin-key-0123456789abcdef";
const OTHER = "other-key-0123456789abcdef";

let real: RealServer;
const clients: Client[] = [];

beforeAll(async () => {
  real = await startRealServer({ apiKeys: `${WRITE}:acme:write,${READ}:acme:read,${ADMIN}:acme:admin,${OTHER}:globex:admin` });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await real?.close();
});

/** The official MCP client over Streamable HTTP at /mcp with a key and extra headers. */
async function connect(key: string | undefined, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "agentmem-test", version: "1.0.0" });
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", real.url), { requestInit: { headers: { ...auth, ...headers } } }));
  clients.push(client);
  return client;
}

describe("MCP over Streamable HTTP at /mcp", { timeout: 120_000 }, () => {
  describe("the user named by a tool argument", () => {
    runMcpContract(() => ({ connect: async (user) => ({ client: await connect(WRITE), args: { user }, actsFor: user }) }));
  });

  describe("the user bound by X-Agentmem-User", () => {
    runMcpContract(() => ({ connect: async (user) => ({ client: await connect(WRITE, { "x-agentmem-user": `hdr_${user}` }), args: {}, actsFor: `hdr_${user}` }) }));
  });

  it("a read key may recall but calling remember is refused with the RPC's reason", async () => {
    const reader = await connect(READ);
    const error = await refused(reader, "remember", { user: "read_user", text: "should not be stored" });
    expect(error).toMatchObject({ code: "PERMISSION_DENIED", reason: "ROLE_TOO_LOW" });
    await ok(reader, "recall", { user: "read_user", query: "stored" });
    const admin = new AgentMem({ baseUrl: real.url, apiKey: ADMIN });
    expect((await admin.memory.history({ scope: { user: "read_user" } })).turns).toEqual([]);
  });

  it("a call without a user is an isError result and nothing is stored", async () => {
    const writer = await connect(WRITE);
    const error = await refused(writer, "remember", { text: "whose memory is this?" });
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_SCOPE", field: "scope.user" });
    const bad = await refused(writer, "remember", { user: "no spaces allowed", text: "x" });
    expect(bad).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_SCOPE" });
    const admin = new AgentMem({ baseUrl: real.url, apiKey: ADMIN });
    const all = await admin.memory.listMemories({ scope: {} });
    expect(all.memories.map((m) => m.text)).not.toContain("whose memory is this?");
  });

  it("erase_user is offered to admin keys only, and erases", async () => {
    const writer = await connect(WRITE);
    expect((await writer.listTools()).tools.map((t) => t.name)).not.toContain("erase_user");
    const admin = await connect(ADMIN);
    const names = (await admin.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...TOOLS, "erase_user"]));
    await ok(admin, "remember", { user: "gone_user", text: "please forget me" });
    const erased = (await ok(admin, "erase_user", { user: "gone_user" })) as { memories?: string };
    expect(Number(erased.memories)).toBe(1);
    expect((await ok(admin, "history", { user: "gone_user" })).turns ?? []).toEqual([]);
  });

  it("list_conversations shows the user's conversations, newest first", async () => {
    const sdk = new AgentMem({ baseUrl: real.url, apiKey: WRITE });
    const first = await sdk.conversations.create({ user: "conv_user" }, { title: "Knee rehab" });
    const second = await sdk.conversations.create({ user: "conv_user" }, { title: "Diet plan" });
    await sdk.conversations.create({ user: "someone_else" }, { title: "Not mine" });
    const writer = await connect(WRITE, { "x-agentmem-user": "conv_user" });
    const listed = (await ok(writer, "list_conversations", {})) as { conversations: { id: string; title: string }[] };
    expect(listed.conversations.map((c) => c.id)).toEqual([second.id, first.id]);
    expect(listed.conversations.map((c) => c.title)).toEqual(["Diet plan", "Knee rehab"]);
  });

  it("the key's tenant pins every tool call: another tenant sees nothing", async () => {
    const acme = await connect(WRITE);
    await ok(acme, "remember", { user: "shared_id", text: "acme secret about the merger" });
    const globex = await connect(OTHER);
    const found = (await ok(globex, "recall", { user: "shared_id", query: "merger secret" })) as { hits?: unknown[] };
    expect(found.hits ?? []).toEqual([]);
  });

  it("a missing or wrong key gets 401 before any tool runs", async () => {
    await expect(connect(undefined)).rejects.toThrow(/401|UNAUTHENTICATED/);
    await expect(connect("wrong-key-0123456789abcdef")).rejects.toThrow(/401|UNAUTHENTICATED/);
    const res = await fetch(new URL("/mcp", real.url), { method: "GET", headers: { authorization: `Bearer ${WRITE}` } });
    expect(res.status).toBe(405);
  });

  it("a malformed argument is refused by the schema, nothing stored", async () => {
    const writer = await connect(WRITE);
    const res = await call(writer, "remember", { user: "schema_bad", text: 42 });
    expect(res.isError).toBe(true);
    const admin = new AgentMem({ baseUrl: real.url, apiKey: ADMIN });
    expect((await admin.memory.history({ scope: { user: "schema_bad" } })).turns).toEqual([]);
  });
});
