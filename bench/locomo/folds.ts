import type { RecallScores } from "./score.js";

/** What a fold needs of a row. */
export interface FoldRow {
  name: string;
  /** False for baselines that are not a configuration agentmem could ship. */
  candidate: boolean;
  byConversation: Record<string, RecallScores>;
  /** "<conversation> <category>" → scores. */
  byConversationCategory: Record<string, RecallScores>;
}

/** One fold: the row that scores best on `tunedOn`, scored on the conversation it never saw. */
export interface Fold {
  tunedOn: string;
  scoredOn: string;
  /** The row picked by R@5 on `tunedOn` (ties: the earlier row, so the default wins ties). */
  picked: string;
  tunedR5: number;
  /** The pick on the unseen conversation. */
  unseen: RecallScores;
  /** The pick on the unseen conversation, per category. */
  unseenByCategory: Record<string, RecallScores>;
  /** The default on the unseen conversation, for comparison. */
  defaultUnseen: RecallScores;
}

/**
 * Two-way folds over conversations: for every ordered pair (tune on A, score on B), pick the
 * candidate row with the best R@5 on A and report what it scores on B. A change earns its place
 * only when the folds it was not tuned on improve.
 */
export function folds(rows: readonly FoldRow[], conversations: readonly string[], defaultRow: string): Fold[] {
  const candidates = rows.filter((r) => r.candidate);
  const baseline = rows.find((r) => r.name === defaultRow);
  const out: Fold[] = [];
  for (const tunedOn of conversations) {
    for (const scoredOn of conversations) {
      if (tunedOn === scoredOn) continue;
      let best = candidates[0];
      for (const r of candidates) if (r.byConversation[tunedOn].r5 > best.byConversation[tunedOn].r5 + 1e-12) best = r;
      const prefix = `${scoredOn} `;
      const unseenByCategory = Object.fromEntries(
        Object.entries(best.byConversationCategory)
          .filter(([g]) => g.startsWith(prefix))
          .map(([g, s]) => [g.slice(prefix.length), s]),
      );
      out.push({
        tunedOn,
        scoredOn,
        picked: best.name,
        tunedR5: best.byConversation[tunedOn].r5,
        unseen: best.byConversation[scoredOn],
        unseenByCategory,
        defaultUnseen: (baseline ?? best).byConversation[scoredOn],
      });
    }
  }
  return out;
}
