import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";

/** Every tool any session offers; `erase_user` only where the caller may erase. */
export const TOOLS = ["remember", "recall", "add_facts", "search_facts", "prompt_block", "forget", "history", "get_relationship", "process_turn", "drift_check", "list_conversations", "list_messages"];

/** Calls a tool and returns its result (never throws for a tool-level error). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured answer of a successful call. */
export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await call(client, name, args);
  expect(res.isError ?? false, JSON.stringify(res.content)).toBe(false);
  const text = (res.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(res.structuredContent);
  return res.structuredContent as Record<string, unknown>;
}

/** The `{ code, reason, field }` of a refused call. */
export async function refused(client: Client, name: string, args: Record<string, unknown>) {
  const res = await call(client, name, args);
  expect(res.isError, JSON.stringify(res.content)).toBe(true);
  return (res.structuredContent as { error: { code: string; reason: string; field: string; message: string } }).error;
}

/**
 * What a transport under test provides: a client acting for one end-user (bound or by argument).
 * The tests use distinct data, so one session may serve them all.
 */
export interface McpSessionFactory {
  /**
   * A connected client whose calls act for an end-user derived from `user`: `args` carries it when
   * tools take it as an argument; `actsFor` is the id the server stores under.
   */
  connect(user: string): Promise<{ client: Client; args: Record<string, unknown>; actsFor: string }>;
}

/** Behaviour every MCP transport must show (stdio embedded, stdio over --url, HTTP). */
export function runMcpContract(factory: () => McpSessionFactory): void {
  it("lists the tools with input schemas an LLM can follow", async () => {
    const { client } = await factory().connect("schema_user");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of TOOLS) expect(names).toContain(name);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe("object");
    }
    const remember = tools.find((t) => t.name === "remember");
    expect(remember?.inputSchema.required).toContain("text");
    const text = remember?.inputSchema.properties?.text as { type: string; description: string };
    expect(text.type).toBe("string");
    expect(text.description).toMatch(/remember/i);
  });

  it("remember then recall finds the memory", async () => {
    const { client, args } = await factory().connect("recall_user");
    const stored = await ok(client, "remember", { ...args, text: "I had knee surgery in March and I am afraid of stairs" });
    expect(stored.memoryId).toMatch(/^[0-9a-f]{32}$/);
    const found = (await ok(client, "recall", { ...args, query: "knee surgery" })) as { hits: { id: string; memory: string; strength: string }[] };
    expect(found.hits[0].id).toBe(stored.memoryId);
    expect(found.hits[0].memory).toBe("I had knee surgery in March and I am afraid of stairs");
    expect(found.hits[0].strength).toMatch(/^MATCH_STRENGTH_/);
  });

  it("add_facts then search_facts shows the superseded fact closed", async () => {
    const { client, args } = await factory().connect("maya");
    const first = (await ok(client, "add_facts", {
      ...args,
      messages: [{ role: "user", name: "Maya", content: "Hi! I live in London and work as a nurse at St Thomas'." }],
    })) as { added: { id: string; text: string }[] };
    const london = first.added.find((f) => f.text.includes("London"));
    expect(london).toBeDefined();
    const second = (await ok(client, "add_facts", {
      ...args,
      messages: [{ role: "user", name: "Maya", content: "Big news: I just moved from London to Paris for a job at a payments startup." }],
    })) as { added: { id: string }[]; superseded: { id: string; supersededBy: string; validTo?: string }[] };
    expect(second.superseded.map((m) => m.id)).toEqual([london?.id]);
    expect(second.superseded[0].supersededBy).toBe(second.added[0].id);
    const search = (await ok(client, "search_facts", { ...args, query: "Where does Maya live?" })) as {
      hits: { id: string; memory: string; validTo?: string; history?: { id: string; validTo?: string; supersededBy: string }[] }[];
    };
    const paris = search.hits.find((h) => h.id === second.added[0].id);
    expect(paris?.memory).toMatch(/Paris/);
    expect(paris?.validTo).toBeUndefined();
    expect(paris?.history?.[0].id).toBe(london?.id);
    expect(paris?.history?.[0].validTo).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(search.hits.some((h) => h.id === london?.id)).toBe(false);
  });

  it("an oversized argument is an isError result with the RPC's reason, and nothing is stored", async () => {
    const { client, args } = await factory().connect("oversized_user");
    const error = await refused(client, "remember", { ...args, text: "x".repeat(40_000) });
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", reason: "LIMIT_EXCEEDED", field: "content" });
    const history = (await ok(client, "history", { ...args, size: 1000 })) as { turns?: { content: string }[] };
    expect((history.turns ?? []).filter((t) => t.content.startsWith("xxxx"))).toEqual([]);
    const recall = (await ok(client, "recall", { ...args, query: "x".repeat(100) })) as { hits?: { memory: string }[] };
    expect((recall.hits ?? []).filter((h) => h.memory.startsWith("xxxx"))).toEqual([]);
  });

  it("list_conversations answers for the user; list_messages of a conversation the user lacks is NOT_FOUND", async () => {
    const { client, args } = await factory().connect("conversation_user");
    const listed = (await ok(client, "list_conversations", { ...args, page_size: 10 })) as { conversations?: unknown[] };
    expect(listed.conversations ?? []).toEqual([]);
    const error = await refused(client, "list_messages", { ...args, conversation_id: "no-such-conversation" });
    expect(error.code).toBe("NOT_FOUND");
  });

  it("process_turn twice: the second recalls the first and the relationship moves", async () => {
    const { client, args } = await factory().connect("patient_42");
    await ok(client, "process_turn", { ...args, message: "I'm worried about the surgery tomorrow" });
    const second = (await ok(client, "process_turn", { ...args, message: "Can you remind me what I said about the surgery?" })) as {
      memory: { relevantMemories: { text: string }[]; interactionCount: string };
    };
    expect(second.memory.relevantMemories.map((m) => m.text).join("\n")).toContain("worried about the surgery tomorrow");
    const rel = (await ok(client, "get_relationship", args)) as { user: { familiarity: number }; interactionCount: string };
    expect(Number(rel.interactionCount)).toBe(2);
    expect(rel.user.familiarity).toBeGreaterThan(0);
  });

  it("the memory_context prompt and the profile resource answer for the user", async () => {
    const { client, args, actsFor } = await factory().connect("context_user");
    await ok(client, "remember", { ...args, text: "I prefer tea over coffee" });
    const prompt = await client.getPrompt({ name: "memory_context", arguments: { ...(args as Record<string, string>), query: "tea or coffee" } });
    expect((prompt.messages[0].content as { text: string }).text).toContain("I prefer tea over coffee");
    const resource = await client.readResource({ uri: `agentmem://users/${actsFor}/profile` });
    const body = JSON.parse((resource.contents[0] as { text: string }).text) as { user: string; relationship: { user: { trust: number } } };
    expect(body.user).toBe(actsFor);
    expect(body.relationship.user.trust).toBeGreaterThanOrEqual(0.5);
    expect(body.relationship.user.trust).toBeLessThanOrEqual(0.95);
  });
}
