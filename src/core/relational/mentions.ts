import { valence } from "./valence.js";

/**
 * Relation words and their canonical form. A mention needs "my" before one of these ("my boss
 * Tom", "my mother", "Lea, my daughter"); plural forms ("my friends") are not people.
 */
export const RELATION_WORDS: Readonly<Record<string, string>> = {
  mother: "mother", mom: "mother", mum: "mother", mommy: "mother", mama: "mother",
  father: "father", dad: "father", daddy: "father", papa: "father",
  stepmother: "stepmother", stepmom: "stepmother", stepfather: "stepfather", stepdad: "stepfather",
  "mother-in-law": "mother-in-law", "father-in-law": "father-in-law",
  sister: "sister", brother: "brother", wife: "wife", husband: "husband", partner: "partner",
  boyfriend: "boyfriend", girlfriend: "girlfriend", fiance: "fiance", "fiancé": "fiance", fiancee: "fiance", "fiancée": "fiance",
  ex: "ex", son: "son", daughter: "daughter", child: "child", baby: "baby",
  grandmother: "grandmother", grandma: "grandmother", granny: "grandmother", nan: "grandmother",
  grandfather: "grandfather", grandpa: "grandfather", granddad: "grandfather",
  grandson: "grandson", granddaughter: "granddaughter",
  aunt: "aunt", uncle: "uncle", cousin: "cousin", niece: "niece", nephew: "nephew",
  boss: "boss", manager: "manager", supervisor: "supervisor", colleague: "colleague", coworker: "colleague",
  "co-worker": "colleague", client: "client", landlord: "landlord", landlady: "landlord", teacher: "teacher",
  coach: "coach", mentor: "mentor", doctor: "doctor", therapist: "therapist", nurse: "nurse", surgeon: "surgeon",
  dentist: "dentist", carer: "carer", caregiver: "carer", physio: "physio",
  friend: "friend", "best friend": "best friend", bestie: "best friend", roommate: "roommate", flatmate: "roommate",
  neighbor: "neighbor", neighbour: "neighbor",
};

/** One person found in a message. */
export interface Mention {
  /** The name when given ("Tom"), else the canonical relation ("mother"). */
  person: string;
  /** Canonical relation word ("boss", "mother"). */
  relation: string;
  /** VADER valence of the sentence that mentions them, in [-1,1]. */
  valence: number;
}

// Capitalised words that follow a relation word without being a name.
const NOT_NAMES = new Set(["I", "I'm", "I've", "I'd", "I'll", "He", "She", "They", "We", "You", "It", "The", "And", "But", "So", "Or", "Is", "Was", "Has", "Had", "Said", "Says", "Told", "Who", "When", "Yesterday", "Today", "Tomorrow", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);

// Relation words match with or without a capital first letter; names must be capitalised, so the
// patterns are case-sensitive.
const cap = (w: string) => `[${w[0]}${w[0].toUpperCase()}]${w.slice(1)}`;
const REL = `(${Object.keys(RELATION_WORDS).sort((a, b) => b.length - a.length).map(cap).join("|")})`;
const NAME = "([A-Z][\\p{Ll}'’-]+)";
// "my boss Tom", "my boss, Tom,", "my mother" and "my mom's"; the relation must end the word.
const MY_RELATION = new RegExp(`\\b[Mm]y\\s+${REL}(?![\\p{L}-])(?:'s|’s)?(?:,?\\s+${NAME})?`, "gu");
// "Lea, my daughter" / "Tom (my boss)".
const NAME_MY_RELATION = new RegExp(`${NAME}\\s*(?:,|\\()\\s*[Mm]y\\s+${REL}(?![\\p{L}-])`, "gu");

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== "");
}

const isName = (w: string | undefined): w is string => w !== undefined && !NOT_NAMES.has(w.replace(/’/g, "'"));

/**
 * Finds people an end-user mentions through a relation word, each with the valence of its
 * sentence. A person mentioned twice in one message counts once (its first sentence).
 */
export function extractMentions(text: string): Mention[] {
  const found = new Map<string, Mention>();
  const add = (person: string, relationWord: string, sentence: string) => {
    const relation = RELATION_WORDS[relationWord.toLowerCase()] ?? relationWord.toLowerCase();
    const key = person.toLowerCase();
    if (!found.has(key)) found.set(key, { person, relation, valence: valence(sentence) });
  };
  for (const sentence of sentences(text)) {
    for (const m of sentence.matchAll(NAME_MY_RELATION)) if (isName(m[1])) add(m[1], m[2], sentence);
    for (const m of sentence.matchAll(MY_RELATION)) {
      const relation = RELATION_WORDS[m[1].toLowerCase()] ?? m[1].toLowerCase();
      const named = m[0].endsWith("'s") || m[0].endsWith("’s") ? undefined : m[2];
      if ([...found.values()].some((f) => f.relation === relation && f.person !== relation && !named)) continue;
      add(isName(named) ? named : relation, m[1], sentence);
    }
  }
  return [...found.values()];
}
