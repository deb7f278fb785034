import type { RememberInput } from "./remember.js";

const scopeOf = (i: RememberInput) => [i.key.namespace, i.key.agent, i.key.session, i.key.user].join("\u0000");

/**
 * A RememberBatch is a stretch of conversation in order: an item that leaves `trace_number` unset
 * (0) takes its 1-based position among the batch's items of the same scope. Without it an import
 * that sends only text would lose the turn order, and with it the context channel of Recall (a
 * reply inherits the match of the turn it answers). Items that set a position keep it.
 */
export function placeInBatch(items: readonly RememberInput[]): RememberInput[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const scope = scopeOf(item);
    const position = (seen.get(scope) ?? 0) + 1;
    seen.set(scope, position);
    return item.traceNumber === 0 ? { ...item, traceNumber: position } : item;
  });
}
