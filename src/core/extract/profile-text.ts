/** The profile's length target, in words (the seed's "120-word profile"). */
export const PROFILE_WORDS = 120;

/** Cuts text to at most `max` words, ending with "…" when cut. */
export function capWords(text: string, max = PROFILE_WORDS): string {
  const words = text.trim().split(/\s+/).filter((w) => w !== "");
  return words.length <= max ? words.join(" ") : `${words.slice(0, max).join(" ")}…`;
}

/**
 * The offline profile: the open facts, most important (then most recent) first, joined while they
 * fit in ~120 words. Deterministic, no model.
 */
export function composeProfile(facts: readonly { text: string; importance: number; validFrom: number }[], maxWords = PROFILE_WORDS): string {
  const ordered = [...facts].sort((a, b) => b.importance - a.importance || b.validFrom - a.validFrom || a.text.localeCompare(b.text));
  const parts: string[] = [];
  let words = 0;
  for (const f of ordered) {
    const text = f.text.trim().replace(/([^.!?…])$/u, "$1.");
    const n = text.split(/\s+/).length;
    if (words + n > maxWords) {
      if (parts.length === 0) return capWords(text, maxWords);
      continue;
    }
    parts.push(text);
    words += n;
  }
  return parts.join(" ");
}
