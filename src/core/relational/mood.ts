/** The emotions the detector names. */
export const EMOTIONS = ["anxiety", "frustration", "anger", "sadness", "joy", "gratitude"] as const;

/** One detected emotion. */
export type Emotion = (typeof EMOTIONS)[number];

/**
 * The emotions present, the strongest first and the rest in `EMOTIONS` order: the order
 * `detected_emotions` and a memory's `emotions` carry, so a client that reads the first one reads
 * the detector's top emotion.
 */
export function strongestFirst(present: Iterable<Emotion>, top: Emotion | null): Emotion[] {
  const set = new Set(present);
  const rest = EMOTIONS.filter((e) => e !== top && set.has(e));
  return top !== null && set.has(top) ? [top, ...rest] : rest;
}

/**
 * mood_delta per emotion, within ±0.2 as Table 14 requires. Sentiment moves by 0.7 × the
 * interaction's mood_delta.
 *
 * | emotion     | mood_delta |
 * |-------------|-----------:|
 * | gratitude   |      +0.20 |
 * | joy         |      +0.15 |
 * | anxiety     |      −0.10 |
 * | frustration |      −0.10 |
 * | sadness     |      −0.15 |
 * | anger       |      −0.20 |
 * | (none)      |       0.00 |
 *
 * A crisis flag sets the interaction's mood_delta to −0.20 whatever else was felt.
 */
export const MOOD_DELTA: Readonly<Record<Emotion, number>> = {
  gratitude: 0.2,
  joy: 0.15,
  anxiety: -0.1,
  frustration: -0.1,
  sadness: -0.15,
  anger: -0.2,
};

/** The most any one interaction may move mood either way. */
export const MOOD_DELTA_LIMIT = 0.2;

/**
 * An interaction's mood_delta: the sum of its emotions' deltas (mixed feelings partly cancel),
 * clamped to ±0.2; −0.2 on a crisis; 0 when nothing was felt.
 */
export function moodDelta(emotions: readonly Emotion[], crisis: boolean): number {
  if (crisis) return -MOOD_DELTA_LIMIT;
  const sum = [...new Set(emotions)].reduce((acc, e) => acc + MOOD_DELTA[e], 0);
  return Math.max(-MOOD_DELTA_LIMIT, Math.min(MOOD_DELTA_LIMIT, Math.round(sum * 1e9) / 1e9));
}
