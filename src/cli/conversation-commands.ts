import { toJson } from "@bufbuild/protobuf";
import type { Command } from "commander";
import { ConversationSchema, ListConversationsResponseSchema, ListMessagesResponseSchema, type ConversationMessage } from "../../sdk/index.js";
import { type ClientFlags, clientOptions, connect, out, parseCount, scopeOf } from "./context.js";
import { isoMinute } from "./format.js";

type ListFlags = ClientFlags & { user?: string; size: string; all?: boolean };

/** A message line, and its trace on the next line when it has one. */
function messageLines(m: ConversationMessage): string[] {
  const head = `${String(m.position).padStart(4)}  ${isoMinute(m.observedAt)}  ${(m.name || m.role).padEnd(12)} ${m.content}`;
  const t = m.trace;
  if (!t) return [head];
  const parts = [
    t.toolName && `tool ${t.toolName}`,
    t.arguments && `args ${t.arguments}`,
    t.result && `result ${t.result}`,
    t.model && `model ${t.model}`,
    (t.inputTokens > 0n || t.outputTokens > 0n) && `tokens ${t.inputTokens}→${t.outputTokens}`,
    t.latencyMs > 0n && `${t.latencyMs} ms`,
  ].filter(Boolean);
  return [head, `      trace: ${parts.join(" · ")}`];
}

/** Registers `conversations ls|show|rm`. */
export function registerConversationCommands(program: Command): void {
  const group = program.command("conversations").description("an end-user's named conversations, with messages and traces (ConversationService)");

  clientOptions(
    group
      .command("ls")
      .description("list conversations, newest activity first (ListConversations)")
      .option("--user <id>", "end-user id")
      .option("--size <n>", "conversations per page", "50")
      .option("--all", "follow the pages to the end"),
  ).action(async (flags: ListFlags) => {
    const { client } = connect(flags);
    const scope = scopeOf(flags, flags.user);
    let token = "";
    do {
      const page = await client.conversations.list(scope, { pageSize: parseCount(flags.size, "--size"), pageToken: token });
      if (flags.json) out(JSON.stringify(toJson(ListConversationsResponseSchema, page), null, 2));
      else for (const c of page.conversations) out(`${c.id}  ${isoMinute(c.updatedAt)}  ${String(c.messageCount).padStart(5)} msgs  ${c.archived ? "[archived] " : ""}${c.title || "(untitled)"}`);
      token = flags.all ? page.nextPageToken : "";
      if (!flags.all && page.nextPageToken && !flags.json) process.stderr.write("(more: --all)\n");
    } while (token);
  });

  clientOptions(
    group
      .command("show")
      .description("one conversation and its messages with their traces (GetConversation, ListMessages)")
      .argument("<id>", "conversation id")
      .option("--user <id>", "end-user id"),
  ).action(async (id: string, flags: ClientFlags & { user?: string }) => {
    const { client } = connect(flags);
    const scope = scopeOf(flags, flags.user);
    const c = await client.conversations.get(scope, id);
    const messages: ConversationMessage[] = [];
    let token = "";
    do {
      const page = await client.conversations.messages(scope, id, { pageSize: 1000, pageToken: token });
      messages.push(...page.messages);
      token = page.nextPageToken;
    } while (token);
    if (flags.json) {
      const listed = toJson(ListMessagesResponseSchema, { $typeName: "agentmem.v1.ListMessagesResponse", messages, nextPageToken: "" });
      return out(JSON.stringify({ conversation: toJson(ConversationSchema, c), ...(listed as object) }, null, 2));
    }
    out(`${c.title || "(untitled)"}  [${c.id}]${c.archived ? " [archived]" : ""}`);
    out(`user ${c.scope?.user || "-"} · ${c.messageCount} messages · created ${isoMinute(c.createdAt)} · active ${isoMinute(c.updatedAt)}`);
    const meta = Object.entries(c.metadata).map(([k, v]) => `${k}=${v}`);
    if (meta.length > 0) out(`metadata ${meta.join(" ")}`);
    for (const m of messages) for (const line of messageLines(m)) out(line);
  });

  clientOptions(
    group
      .command("rm")
      .description("delete a conversation with its messages, turns and memories (DeleteConversation)")
      .argument("<id>", "conversation id")
      .option("--user <id>", "end-user id"),
    { json: false },
  ).action(async (id: string, flags: ClientFlags & { user?: string }) => {
    const { client } = connect(flags);
    const res = await client.conversations.delete(scopeOf(flags, flags.user), id);
    out(`deleted ${id}: ${res.messages} messages, ${res.memories} memories`);
  });
}
