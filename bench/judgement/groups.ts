/**
 * Grouped folds for the judgement trainers (issue 21): one fold per source set (one writer), so
 * a model is always scored on text by a writer it was not trained on. The small sets (fewer than
 * MIN_GROUP messages in tune) share one fold.
 */
export const MIN_GROUP = 60;

export function groupFolds(sources: readonly string[]): { folds: number[]; names: string[] } {
  const counts = new Map<string, number>();
  for (const s of sources) counts.set(s, (counts.get(s) ?? 0) + 1);
  const names = [...counts].filter(([, n]) => n >= MIN_GROUP).map(([s]) => s).sort();
  const small = [...counts].filter(([, n]) => n < MIN_GROUP).map(([s]) => s).sort();
  if (small.length > 0) names.push(small.join("+"));
  const fold = (s: string) => (counts.get(s)! >= MIN_GROUP ? names.indexOf(s) : names.length - 1);
  return { folds: sources.map(fold), names };
}
