import type { ConversationRecord } from "../../core/conversations/conversation-record.js";
import { AgentMemError, notFound } from "../../core/errors.js";
import { checkTags } from "../../core/limits.js";
import type { ScopeKey } from "../../core/records.js";
import { inScope, scopeCondition } from "../../core/scope.js";
import { type Condition, where } from "../../core/condition.js";
import type { ServiceDeps } from "../deps.js";
import { KeyedLock } from "../relational/keyed-lock.js";
import { type Cursor, decodeCursor, encodeCursor } from "./cursor-token.js";

/** A conversation's turns, memories and messages: every scope column equal (an empty one too). */
export function sessionOf(c: ConversationRecord): Condition {
  return where.and(where.eq("namespace", c.namespace), where.eq("agent", c.agent), where.eq("session", c.id), where.eq("user", c.user));
}

/** What to list. */
export interface ListQuery {
  key: ScopeKey;
  size: number;
  metadata: Record<string, string>;
  since?: number;
  until?: number;
  archived?: boolean;
}

/** What to change; undefined fields stay. */
export interface ConversationChange {
  title?: string;
  /** Merged in; an empty value removes the key. */
  metadata: Record<string, string>;
  archived?: boolean;
}

/**
 * The conversation store: rows in the tenant's `conversations` table, and the one lock per
 * conversation that orders its appends, updates and delete.
 */
export class Conversations {
  /** Serialises the writes of one conversation (key: tenant + id). */
  readonly lock = new KeyedLock();

  constructor(private readonly deps: ServiceDeps) {}

  /** The conversation, if it lies in the caller's scope; else NOT_FOUND (another end-user's too). */
  async load(tenant: string, key: ScopeKey, id: string): Promise<ConversationRecord> {
    const table = await this.deps.store.conversations(tenant);
    // Naming the end-user lets the store answer from that user's rows in memory.
    const [row] = key.user === "" ? await table.get([id]) : await table.find(where.and(where.eq("user", key.user), where.eq("id", id)), { withoutVector: true });
    if (!row || !inScope(key, row)) throw notFound("conversation", id);
    return row;
  }

  /** Runs `work` alone for this conversation. */
  exclusive<T>(tenant: string, id: string, work: () => Promise<T>): Promise<T> {
    return this.lock.run(`${tenant}\u0000${id}`, work);
  }

  async create(tenant: string, input: { key: ScopeKey; id: string; title: string; metadata: Record<string, string> }): Promise<ConversationRecord> {
    return this.exclusive(tenant, input.id, async () => {
      const table = await this.deps.store.conversations(tenant);
      if ((await table.get([input.id])).length > 0) {
        throw new AgentMemError("ALREADY_EXISTS", "CONVERSATION_EXISTS", `conversation ${JSON.stringify(input.id)} already exists`, "conversation_id");
      }
      const now = this.deps.clock.now().getTime();
      const row: ConversationRecord = {
        namespace: input.key.namespace,
        agent: input.key.agent,
        session: input.id,
        user: input.key.user,
        id: input.id,
        title: input.title,
        titleGiven: input.title !== "",
        metadata: input.metadata,
        createdAt: now,
        updatedAt: now,
        messageCount: 0,
        lastPosition: 0,
        lastMessageAt: 0,
        lastMessagePreview: "",
        archived: false,
      };
      await table.insertNew([row]);
      return row;
    });
  }

  /** One page, newest activity first (ties by id), after the token's cursor. */
  async list(tenant: string, q: ListQuery, token: string): Promise<{ rows: ConversationRecord[]; next: string }> {
    const pairs = Object.entries(q.metadata).map(([k, v]) => `${k}=${v}`).sort();
    const binding = ["conversations", tenant, q.key.namespace, q.key.agent, q.key.session, q.key.user, ...pairs, String(q.since), String(q.until), String(q.archived)];
    const after = decodeCursor(token, binding);
    const condition = where.and(
      scopeCondition(q.key),
      q.archived === undefined ? undefined : where.eq("archived", q.archived),
      pairs.length > 0 ? where.hasAll("metadata_pairs", pairs) : undefined,
      q.since === undefined ? undefined : where.gte("updated_at", q.since),
      q.until === undefined ? undefined : where.lt("updated_at", q.until),
      after ? where.or(where.lt("updated_at", after.at), where.and(where.eq("updated_at", after.at), where.gt("id", after.id))) : undefined,
    );
    const rows = await (await this.deps.store.conversations(tenant)).find(condition, { withoutVector: true });
    rows.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = rows.slice(0, q.size);
    const last = page[page.length - 1];
    const cursor: Cursor | null = rows.length > q.size && last ? { at: last.updatedAt, id: last.id } : null;
    return { rows: page, next: cursor ? encodeCursor(cursor, binding) : "" };
  }

  async update(tenant: string, key: ScopeKey, id: string, change: ConversationChange): Promise<ConversationRecord> {
    return this.exclusive(tenant, id, async () => {
      const before = await this.load(tenant, key, id);
      const metadata = { ...before.metadata };
      for (const [k, v] of Object.entries(change.metadata)) {
        if (v === "") delete metadata[k];
        else metadata[k] = v;
      }
      checkTags("metadata", metadata);
      const now = this.deps.clock.now().getTime();
      const [after] = await (await this.deps.store.conversations(tenant)).patch([id], (row) => ({
        ...row,
        title: change.title ?? row.title,
        titleGiven: change.title === undefined ? row.titleGiven : change.title !== "",
        metadata,
        archived: change.archived ?? row.archived,
        updatedAt: Math.max(now, row.updatedAt),
      }));
      if (!after) throw notFound("conversation", id);
      return after;
    });
  }

  /** Deletes the conversation, its message rows, and every turn and memory of its session. */
  async delete(tenant: string, key: ScopeKey, id: string): Promise<{ messages: number; memories: number; traces: number }> {
    return this.exclusive(tenant, id, async () => {
      const c = await this.load(tenant, key, id);
      const { store } = this.deps;
      const session = sessionOf(c);
      // The row goes last: a delete cut short leaves a conversation that can be deleted again.
      const [traces, messages, memories] = await Promise.all([
        store.conversationMessages(tenant).then((t) => t.delete(session)),
        store.episodes(tenant).then((t) => t.delete(session)),
        store.memories(tenant).then((t) => t.delete(session)),
      ]);
      await (await store.conversations(tenant)).delete(where.eq("id", id));
      return { messages, memories, traces };
    });
  }
}
