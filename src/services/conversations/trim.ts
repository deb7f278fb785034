import { where } from "../../core/condition.js";
import type { Store } from "../../ports/store.js";

const CHUNK = 1_000;

/**
 * Retention removed these transcript turns of an end-user: remove the conversation messages
 * (positions and traces) they were, and lower their conversations' message counts.
 */
export async function trimConversationMessages(store: Store, tenant: string, user: string, turnIds: readonly string[]): Promise<number> {
  if (turnIds.length === 0) return 0;
  const messages = await store.conversationMessages(tenant);
  const perConversation = new Map<string, number>();
  let removed = 0;
  for (let i = 0; i < turnIds.length; i += CHUNK) {
    const these = where.and(where.eq("user", user), where.in("id", turnIds.slice(i, i + CHUNK)));
    const gone = await messages.find(these, { withoutVector: true });
    if (gone.length === 0) continue;
    for (const m of gone) perConversation.set(m.session, (perConversation.get(m.session) ?? 0) + 1);
    removed += await messages.delete(these);
  }
  if (perConversation.size > 0) {
    await (await store.conversations(tenant)).patch([...perConversation.keys()], (row) =>
      row.user === user ? { ...row, messageCount: Math.max(0, row.messageCount - (perConversation.get(row.id) ?? 0)) } : undefined,
    );
  }
  return removed;
}
