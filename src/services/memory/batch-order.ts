import type { RememberInput } from "./remember.js";

const scopeOf = (i: RememberInput) => [i.key.namespace, i.key.agent, i.key.session, i.key.user].join("\u0000");

/**
 * A RememberBatch is a stretch of conversation in order. When a batch's items for one scope all
 * leave `trace_number` unset (0) and their times cannot order them (two or more share one
 * `observed_at`, as when an import stamps a session's date or sends no time at all), they take
 * their 1-based positions in the batch. Without that, an import that sends only text would lose
 * the turn order, and with it the context channel of Recall (a reply inherits the match of the
 * turn it answers). Items whose scope sets any position, or whose times differ, keep what was sent
 * (so an export re-imported keeps its positions).
 */
export function placeInBatch(items: readonly RememberInput[]): RememberInput[] {
  const byScope = new Map<string, RememberInput[]>();
  for (const item of items) byScope.set(scopeOf(item), [...(byScope.get(scopeOf(item)) ?? []), item]);
  const numbered = new Set<string>();
  for (const [scope, group] of byScope) {
    const unplaced = group.every((i) => i.traceNumber === 0);
    const tied = new Set(group.map((i) => i.observedAt)).size < group.length;
    if (unplaced && tied) numbered.add(scope);
  }
  const seen = new Map<string, number>();
  return items.map((item) => {
    const scope = scopeOf(item);
    if (!numbered.has(scope)) return item;
    const position = (seen.get(scope) ?? 0) + 1;
    seen.set(scope, position);
    return { ...item, traceNumber: position };
  });
}
