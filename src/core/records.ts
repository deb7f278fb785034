/** The scope columns stored on every row (the tenant is the table itself). */
export interface ScopeKey {
  namespace: string;
  agent: string;
  session: string;
  user: string;
}

/** Fact type names as stored (lower-case, without the proto prefix). */
export type FactTypeName = "semantic" | "preference" | "summary" | "entity" | "anchor" | "event";

/** One long-term memory row. Times are epoch milliseconds; `validTo` null while open. */
export interface MemoryRecord extends ScopeKey {
  id: string;
  text: string;
  factType: FactTypeName;
  category: string;
  importance: number;
  entities: string[];
  tags: Record<string, string>;
  pinned: boolean;
  contentHash: string;
  vector: Float32Array;
  sourceIds: string[];
  parentId: string;
  createdAt: number;
  validFrom: number;
  validTo: number | null;
  supersededBy: string;
  eventDate: number | null;
  lastAccessedAt: number;
  accessCount: number;
  channel: string;
  emotions: string[];
  intent: string;
  embedModel: string;
  role: string;
  name: string;
  /**
   * For a raw transcript turn (a row Remember stored, whose episode points back at it): the turn's
   * position, its episode's `trace_number` (0 = not given). 0 for every other row. `null` when not
   * known: rows stored before the column existed (their neighbours are found through the episodes).
   */
  traceNumber: number | null;
  /**
   * True for a raw turn stored before memory rows carried `turn_key` (its position is known, its
   * key is not): the turns next to it are found by position, not by key. Absent otherwise.
   */
  unkeyedTurn?: boolean;
}

/** One raw transcript turn. */
export interface EpisodeRecord extends ScopeKey {
  id: string;
  role: string;
  name: string;
  content: string;
  observedAt: number;
  traceNumber: number;
  parentId: string;
  channel: string;
  vector: Float32Array;
  createdAt: number;
  memoryId: string;
}
