// Words that are capitalised for grammar, not because they name someone.
const NOT_NAMES = new Set(
  "i i'm i've i'd i'll a an the what when where who whom whose why how which is are was were do does did can could would should will has have had my your his her their our its it this that these those and or but if then in on at of for to from with by about after before did does yes no ok hey hi hello dear".split(
    " ",
  ),
);

/** Capitalised words and runs of them in text that look like names ("Caroline", "New York"). */
export function extractNames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)*/gu)) {
    const words = m[0].split(/\s+/).filter((w) => !NOT_NAMES.has(w.toLowerCase().replace(/['’]s$/, "")));
    if (words.length > 0) names.add(words.join(" ").replace(/['’]s$/, ""));
  }
  return [...names];
}

/** Share of `names` that occur in the text or entities (case-insensitive), 0..1. */
export function namesScore(names: readonly string[], text: string, entities: readonly string[] = []): number {
  if (names.length === 0) return 0;
  const hay = `${text} ${entities.join(" ")}`.toLowerCase();
  return names.filter((n) => hay.includes(n.toLowerCase())).length / names.length;
}

/** True when a name from a query refers to a person's name: equal, or one is a short form of the other ("Mel" / "Melanie"). */
export function sameName(queryName: string, name: string): boolean {
  const a = queryName.toLowerCase();
  const b = name.toLowerCase();
  if (a === "" || b === "") return false;
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.startsWith(short) && !short.includes(" ");
}

/**
 * Names channel in 0..1: the share of the query's names that are who the memory is by or about —
 * its speaker (`name`) or one of its entities. A name that is only mentioned in the text does not
 * count: in a transcript that is mostly the person spoken to ("Thanks, Mel!").
 */
export function speakerNamesScore(names: readonly string[], memory: { name: string; entities: readonly string[] }): number {
  if (names.length === 0) return 0;
  const people = [memory.name, ...memory.entities];
  return names.filter((n) => people.some((p) => sameName(n, p))).length / names.length;
}

/**
 * The speaker a transcript line names at its start ("Caroline: …" → "Caroline"), for turns stored
 * without a `name`; empty when the text does not open that way.
 */
export function speakerPrefix(text: string): string {
  const m = /^\s*(\p{Lu}[\p{L}'’-]*(?:\s\p{Lu}[\p{L}'’-]*)?):\s/u.exec(text);
  return m && !NOT_NAMES.has(m[1].toLowerCase()) ? m[1] : "";
}

/**
 * A turn as a transcript line, `"<name>: <text>"`, unless the text already opens with its speaker
 * (or no name is known): what a turn's vector is computed from, so meaning includes who spoke.
 */
export function spokenLine(name: string, text: string): string {
  if (name.trim() === "" || sameName(speakerPrefix(text), name)) return text;
  return `${name}: ${text}`;
}
