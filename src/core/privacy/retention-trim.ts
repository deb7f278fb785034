/** What trimming needs to know about one stored message (a raw turn). */
export interface TrimEpisode {
  id: string;
  observedAt: number;
  traceNumber: number;
  createdAt: number;
  /** The memory the turn wrote ("" if none). */
  memoryId: string;
}

/** What trimming needs to know about one long-term memory. */
export interface TrimMemory {
  id: string;
  pinned: boolean;
  /** Ids the memory was derived from (episode ids for turns and extracted facts). */
  sourceIds: readonly string[];
}

/** The rows a cap removes. */
export interface TrimPlan {
  episodeIds: string[];
  memoryIds: string[];
}

/** Newest first, in the same order `History` lists turns (reversed). */
function newestFirst(a: TrimEpisode, b: TrimEpisode): number {
  return b.observedAt - a.observedAt || b.traceNumber - a.traceNumber || b.createdAt - a.createdAt || b.id.localeCompare(a.id);
}

/**
 * Chooses what a cap of `cap` messages removes from one end-user: the oldest turns beyond the
 * cap, and every non-pinned memory all of whose own turns (its sources and the turns that wrote
 * it) are among them. Memories tied to a kept turn, pinned memories and memories not tied to any
 * turn (summaries, imported facts) stay. `cap` 0 means unlimited.
 */
export function planTrim(episodes: readonly TrimEpisode[], memories: readonly TrimMemory[], cap: number): TrimPlan {
  if (cap <= 0 || episodes.length <= cap) return { episodeIds: [], memoryIds: [] };
  const sorted = [...episodes].sort(newestFirst);
  const trimmed = new Set(sorted.slice(cap).map((e) => e.id));
  const known = new Set(episodes.map((e) => e.id));
  const links = new Map<string, Set<string>>();
  const link = (memoryId: string, episodeId: string) => {
    if (!known.has(episodeId)) return;
    const set = links.get(memoryId) ?? new Set<string>();
    links.set(memoryId, set.add(episodeId));
  };
  for (const e of episodes) if (e.memoryId) link(e.memoryId, e.id);
  for (const m of memories) for (const s of m.sourceIds) link(m.id, s);
  const memoryIds = memories
    .filter((m) => !m.pinned)
    .filter((m) => {
      const own = links.get(m.id);
      return own !== undefined && [...own].every((id) => trimmed.has(id));
    })
    .map((m) => m.id);
  return { episodeIds: [...trimmed], memoryIds };
}
