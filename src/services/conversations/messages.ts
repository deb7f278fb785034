import { preview } from "../../core/conversations/title.js";
import type { ConversationRecord, MessageRecord } from "../../core/conversations/conversation-record.js";
import type { EpisodeRecord, MemoryRecord, ScopeKey } from "../../core/records.js";
import { where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import { addMessages } from "../memory/add.js";
import { episodeId, rememberAll, type RememberInput } from "../memory/remember.js";
import type { Conversations } from "./conversations.js";
import { decodeCursor, encodeCursor } from "./cursor-token.js";
import type { MessageInput } from "./requests.js";
import { titleFor } from "./title-model.js";

/** What an append stored. */
export interface AppendResult {
  ids: string[];
  conversation: ConversationRecord;
  facts: MemoryRecord[];
  extractionError: string;
}

/** A stored message with its transcript turn, in the order asked for. */
export interface ListedMessage {
  message: MessageRecord;
  turn: EpisodeRecord;
}

/**
 * Appends messages at the end of a conversation. Each becomes a transcript turn in the
 * conversation's session (position = trace_number) and, unless `infer`, a verbatim memory as
 * Remember stores it; with `infer` the turns go through Add's extractor instead. The message rows
 * (position, trace) are written first and removed again if the turns fail, so a listed message
 * always has its turn. Messages get strictly increasing `created_at` within the conversation.
 */
export async function appendMessages(
  deps: ServiceDeps,
  conversations: Conversations,
  tenant: string,
  key: ScopeKey,
  id: string,
  input: readonly MessageInput[],
  infer: boolean,
): Promise<AppendResult> {
  return conversations.exclusive(tenant, id, async () => {
    const c = await conversations.load(tenant, key, id);
    const turnKey: ScopeKey = { namespace: c.namespace, agent: c.agent, session: c.id, user: c.user };
    const now = deps.clock.now().getTime();
    const first = Math.max(now, c.lastMessageAt + 1);
    const createdAt = input.map((_, i) => first + i);
    // Add stores every turn of a call at one observation time; Remember keeps each message's own.
    const sharedAt = Math.max(...input.map((m, i) => m.observedAt ?? createdAt[i]));
    const turns: RememberInput[] = input.map((m, i) => ({
      key: turnKey,
      content: m.content,
      role: m.role,
      name: m.name,
      factType: "semantic",
      pinned: false,
      tags: {},
      parentId: "",
      traceNumber: c.lastPosition + 1 + i,
      observedAt: infer ? sharedAt : (m.observedAt ?? createdAt[i]),
      channel: "",
    }));
    const rows: MessageRecord[] = turns.map((t, i) => ({ ...turnKey, id: episodeId(tenant, t), position: t.traceNumber, createdAt: createdAt[i], trace: input[i].trace }));
    const messages = await deps.store.conversationMessages(tenant);
    await messages.upsert(rows);
    let facts: MemoryRecord[] = [];
    let extractionError = "";
    try {
      if (infer) {
        const result = await addMessages(deps, tenant, {
          key: turnKey,
          messages: input.map((m) => ({ role: m.role, name: m.name, content: m.content })),
          observedAt: sharedAt,
          strategies: [],
          extras: { tags: {}, pinned: false, channel: "", parentId: "", traceNumber: c.lastPosition + 1 },
        });
        facts = result.added;
        extractionError = result.extractionError;
        await deps.retention.enforce(tenant, [{ namespace: "", agent: "", user: c.user }]);
      } else {
        await rememberAll(deps, tenant, turns);
      }
    } catch (error) {
      await messages.delete(where.and(where.eq("user", c.user), where.in("id", rows.map((r) => r.id))));
      throw error;
    }
    const firstUser = input.find((m) => m.role === "user");
    const title = c.title === "" && !c.titleGiven && firstUser ? await titleFor(deps, tenant, firstUser.content) : "";
    const last = input[input.length - 1];
    const [conversation] = await (await deps.store.conversations(tenant)).patch([id], (row) => ({
      ...row,
      // An UpdateConversation cannot have run meanwhile (same lock); the check keeps a title given by one anyway.
      title: title !== "" && row.title === "" && !row.titleGiven ? title : row.title,
      messageCount: row.messageCount + rows.length,
      lastPosition: row.lastPosition + rows.length,
      lastMessageAt: createdAt[createdAt.length - 1],
      updatedAt: Math.max(row.updatedAt, createdAt[createdAt.length - 1]),
      lastMessagePreview: preview(last.content),
    }));
    return { ids: rows.map((r) => r.id), conversation: conversation ?? c, facts, extractionError };
  });
}

/** One page of a conversation's messages by position (oldest or newest first), `since` a `created_at`. */
export async function listMessages(
  deps: ServiceDeps,
  tenant: string,
  c: ConversationRecord,
  q: { size: number; since?: number; newestFirst: boolean; binding: readonly string[] },
  token: string,
): Promise<{ messages: ListedMessage[]; next: string }> {
  const binding = ["conversation_messages", tenant, c.id, ...q.binding, String(q.since), String(q.newestFirst)];
  const after = decodeCursor(token, binding);
  const mine = where.and(where.eq("user", c.user), where.eq("session", c.id), where.eq("namespace", c.namespace), where.eq("agent", c.agent));
  const rows = await (await deps.store.conversationMessages(tenant)).find(
    where.and(
      mine,
      q.since === undefined ? undefined : where.gt("created_at", q.since),
      after === null ? undefined : q.newestFirst ? where.lt("position", after.at) : where.gt("position", after.at),
    ),
    { withoutVector: true },
  );
  rows.sort((a, b) => (q.newestFirst ? b.position - a.position : a.position - b.position));
  const page = rows.slice(0, q.size);
  const turns = page.length === 0 ? [] : await (await deps.store.episodes(tenant)).find(where.and(where.eq("user", c.user), where.in("id", page.map((m) => m.id))), { withoutVector: true });
  const byId = new Map(turns.map((t) => [t.id, t]));
  const last = page[page.length - 1];
  return {
    // A message whose turn a retention cap just removed is skipped, never shown half.
    messages: page.flatMap((message) => {
      const turn = byId.get(message.id);
      return turn ? [{ message, turn }] : [];
    }),
    next: rows.length > q.size && last ? encodeCursor({ at: last.position, id: last.id }, binding) : "",
  };
}
