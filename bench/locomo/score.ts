/** Evidence recall at 1, 5 and 10, averaged over questions. */
export interface RecallScores {
  questions: number;
  r1: number;
  r5: number;
  r10: number;
}

/** |gold ids in the top k| / |gold ids|. */
export function evidenceRecall(ranked: readonly string[], gold: readonly string[], k: number): number {
  const wanted = new Set(gold);
  if (wanted.size === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return [...wanted].filter((id) => top.has(id)).length / wanted.size;
}

/** Sums per-question recall into groups (overall, per conversation, per category). */
export class RecallTally {
  private readonly sums = new Map<string, { n: number; r1: number; r5: number; r10: number }>();

  /** Adds one question's ranking to each of `groups`. */
  add(groups: readonly string[], ranked: readonly string[], gold: readonly string[]): void {
    const r = [1, 5, 10].map((k) => evidenceRecall(ranked, gold, k));
    for (const g of groups) {
      const s = this.sums.get(g) ?? { n: 0, r1: 0, r5: 0, r10: 0 };
      s.n++;
      s.r1 += r[0];
      s.r5 += r[1];
      s.r10 += r[2];
      this.sums.set(g, s);
    }
  }

  /** Mean recall of a group (zeros when it is empty). */
  get(group: string): RecallScores {
    const s = this.sums.get(group);
    if (!s) return { questions: 0, r1: 0, r5: 0, r10: 0 };
    return { questions: s.n, r1: s.r1 / s.n, r5: s.r5 / s.n, r10: s.r10 / s.n };
  }

  /** Every group, by name. */
  all(): Record<string, RecallScores> {
    return Object.fromEntries([...this.sums.keys()].sort().map((g) => [g, this.get(g)]));
  }
}
