import nlp from "compromise";
import { capitaliseI, expandContractions } from "./first-person.js";

/**
 * Slot detection for the offline extractor's supersede rule. A slot is a single-valued attribute
 * of a person: where they live, where they work, their job, their relationship status, their
 * name. A new fact that gives the speaker's slot a different value replaces the stored fact that
 * holds the old value ("I just moved from London to Paris" replaces "Maya lives in London").
 * Detection is by English patterns on the fact text (first or third person), so it also reads
 * facts written by the LLM extractor or stored by Remember.
 */

/** The slots the offline extractor tracks. */
export type SlotName = "lives_in" | "works_at" | "job" | "relationship" | "name";

/** A slot value found in a text, with the subject it belongs to. */
export interface SlotValue {
  slot: SlotName;
  /** Normalised value ("london", "st thomas", "married"). */
  value: string;
  /** The subject as written ("I", "Maya", "the user"). */
  subject: string;
  /** The statement ends this value without naming the next one ("left Tesco", "Lisbon is behind me"). */
  ended?: boolean;
}

// A phrase value: up to six words, stopping at a connector or punctuation.
const STOP = "for|and|with|because|since|but|so|in|on|at|as|last|this|next|from|to|after|before|when|where|who|which|while|until|now|today|yesterday|then|though|although|if|by|where";
const PHRASE = `((?:the\\s+|an?\\s+)?[\\p{L}\\p{N}'’&.-]+(?:\\s+(?!(?:${STOP})\\b)[\\p{L}\\p{N}'’&.-]+){0,5})`;
const PLACE = `((?:the\\s+)?\\p{Lu}[\\p{L}'’.-]*(?:\\s+(?:of\\s+|de\\s+)?\\p{Lu}[\\p{L}'’.-]*){0,4})`;

/** Occupation words the job patterns know (a regex alternation). */
export const OCCUPATIONS =
  "nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|psychologist|teacher|professor|lecturer|tutor|student|engineer|developer|programmer|designer|architect|manager|shift manager|store manager|head of [\\p{L}]+|team lead|lead|supervisor|partner|principal|florist|paramedic|midwife|carer|retiree|illustrator|animator|courier|postman|postdoc|phd student|sergeant|ambassador|sales assistant|shop assistant|teaching assistant|bus driver|van driver|delivery driver|analyst|scientist|researcher|consultant|accountant|lawyer|attorney|solicitor|paralegal|chef|cook|baker|waiter|waitress|barista|bartender|pilot|driver|mechanic|electrician|plumber|carpenter|builder|farmer|journalist|writer|author|editor|photographer|artist|painter|musician|singer|actor|actress|dancer|firefighter|paramedic|police officer|officer|soldier|veterinarian|vet|librarian|cashier|clerk|receptionist|secretary|salesperson|recruiter|banker|economist|entrepreneur|founder|freelancer|intern|nanny|caregiver|social worker|cleaner|janitor|technician|administrator|coordinator|director|executive|ceo|cto|cfo|product manager|data scientist|data engineer|software engineer|web developer";
const OCCUPATION_PHRASE = `((?:[\\p{L}-]+\\s+){0,2}?(?:${OCCUPATIONS}))\\b`;

interface Pattern {
  slot: SlotName;
  re: RegExp;
  /** Fixed value for status patterns (e.g. "broke up" → single). */
  value?: string;
  /** Narrows the raw value; null rejects the match. */
  refine?: (raw: string) => string | null;
  /** The value ends (the speaker leaves it) rather than begins. */
  ends?: boolean;
}

/** A lower-case place counts when compromise knows it as a place ("london", "new york"). */
function knownPlace(raw: string): string | null {
  const [place] = nlp(raw).places().out("array") as string[];
  return place ? place.replace(/[.,!?;:]+$/, "") : null;
}

/** A capitalised name that compromise does not know as a place: an employer ("left Tesco"), not a town. */
function notAPlace(raw: string): string | null {
  return knownPlace(raw) ? null : raw;
}

/** A capitalised name that compromise knows as a place. */
function onlyPlace(raw: string): string | null {
  return knownPlace(raw) ? raw : null;
}

const SELF = "(?<who>I|me|\\p{Lu}[\\p{L}-]*)";
const HOME = "(?:apartment|flat|house|home|place|condo|bungalow|cottage)";

const PATTERNS: Pattern[] = [
  { slot: "lives_in", re: new RegExp(`\\b(?:resided|settled|stays?|staying|based|living|lives?)\\s+(?:now\\s+)?(?:here\\s+)?(?:by\\s+the\\s+(?:sea|coast|river)\\s+|down\\s+|up\\s+|out\\s+)?(?:in|near)\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?<who>[Mm]y|[Oo]ur|\\p{Lu}[\\p{L}-]*['’]s)\\s+(?:new\\s+|own\\s+|little\\s+|rented\\s+)?${HOME}\\s+(?:is\\s+)?(?:in|near)\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:bought|rented|renting|found|got)\\s+(?:a|an|our|my)\\s+(?:new\\s+)?${HOME}\\s+in\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:is|am|are)\\s+(?:now\\s+)?(?:in|living\\s+in)\\s+${PLACE}\\s+(?:now|for\\s+good|these\\s+days)\\b`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:is|am|are)\\s+in\\s+(\\p{L}[\\p{L}'’.-]*(?:\\s+\\p{Lu}[\\p{L}'’.-]*)?)(?=\\s*(?:[,.!;]|$|\\s+(?:lol|now|and|with|nothing|where|which|but)\\b))`, "gu"), refine: knownPlace },
  { slot: "lives_in", re: new RegExp(`\\b(?:moved|moving|moves?)\\s+(?:\\p{L}+\\s+)?(?:down|up|over|out|across)\\s+to\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:transferred|posted|relocated)\\s+to\\s+(?:the\\s+)?${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:moved|relocated|moving|relocating)\\s+(?:in)?to\\s+(?:a|an|the|our|my)\\s+(?:new\\s+)?(?:[\\p{L}-]+\\s+)?${HOME}\\s+(?:in|near)\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:moved|moving|relocated|relocating)\\s+(?:back\\s+)?to\\s+(\\p{Ll}[\\p{L}'’.-]*(?:\\s+\\p{Ll}[\\p{L}'’.-]*)?)(?![\\p{L}])`, "gu"), refine: knownPlace },
  { slot: "lives_in", re: new RegExp(`\\b(?:left|leaving|leave|moved\\s+out\\s+of|moving\\s+out\\s+of|packed\\s+up\\s+(?:the\\s+|our\\s+|my\\s+)?(?:\\p{L}+\\s+)?in)\\s+${PLACE}(?=\\s+(?:for|behind|and|to)\\b|[,.;!]|$)`, "gu"), refine: onlyPlace, ends: true },
  { slot: "lives_in", re: new RegExp(`(?<value>${PLACE})\\s+is\\s+(?:now\\s+)?(?:behind|in\\s+the\\s+past\\s+for)\\s+${SELF.replace("me|", "me|us|")}`, "gu"), ends: true },
  { slot: "works_at", re: new RegExp(`\\b(?:started|starting|began)\\s+(?:a\\s+new\\s+job\\s+)?(?:at|with)\\s+${PLACE}`, "gu") },
  { slot: "works_at", re: new RegExp(`\\b(?:is|am|are)\\s+(?:now\\s+)?(?:at|with)\\s+${PLACE}\\s+now\\b`, "gu"), refine: notAPlace },
  { slot: "works_at", re: new RegExp(`\\b(?:left|leaving|quit|quitting|resigned\\s+from|laid\\s+off\\s+(?:from|by)|fired\\s+from|(?:handed|handing)\\s+in\\s+(?:my|\\p{Lu}[\\p{L}-]*['’]s|a)\\s+notice\\s+at|no\\s+longer\\s+(?:at|with))\\s+${PLACE}`, "gu"), refine: notAPlace, ends: true },
  { slot: "works_at", re: new RegExp(`(?<value>${PLACE})\\s+(?:let|laid|made)\\s+${SELF}\\s+(?:go|off|redundant)\\b`, "gu"), refine: notAPlace, ends: true },
  { slot: "job", re: new RegExp(`\\b(?:made|promoted|appointed|named)\\s+${SELF}\\s+(?:to\\s+|as\\s+)?(?:an?\\s+|the\\s+|our\\s+|their\\s+)?${PHRASE}`, "gu") },
  { slot: "job", re: /\b(?:retired|retiring)\b/gu, value: "retired" },
  { slot: "relationship", re: /\b(?:tied\s+the\s+knot|got\s+hitched|wedding\s+was)\b/giu, value: "married" },
  { slot: "relationship", re: /\b(?:is|am|are)\s+(?:now\s+)?(?:a\s+)?(widow(?:er)?|widowed)\b/giu, value: "widowed" },
  { slot: "relationship", re: /\b(?:is|am|are)\s+(?:now\s+)?(?:single|seeing\s+no\s*one)\b/giu, value: "single" },
  { slot: "relationship", re: /\b(?<who>[Mm]y|\p{Lu}[\p{L}-]*['’]s)\s+(?:girlfriend|boyfriend|partner)\b/gu, value: "in a relationship" },
  { slot: "relationship", re: /\b(?<who>[Mm]y|\p{Lu}[\p{L}-]*['’]s)\s+fianc[eé]e?\b/gu, value: "engaged" },
  { slot: "relationship", re: /\b(?<who>[Mm]y|\p{Lu}[\p{L}-]*['’]s)\s+(?:wife|husband)\b/gu, value: "married" },
  { slot: "lives_in", re: new RegExp(`\\b(?:left|leaving|swapped|traded)\\s+${PLACE}\\s+for\\s+${PLACE}`, "gu"), refine: onlyPlace },
  { slot: "works_at", re: new RegExp(`\\b(?:left|leaving|swapped|traded)\\s+${PLACE}\\s+for\\s+${PLACE}`, "gu"), refine: notAPlace },
  { slot: "lives_in", re: new RegExp(`\\b(?:lives?|living|resides?|resided|residing|(?:is|am|are)\\s+(?:now\\s+)?(?:based|staying|settled))\\s+(?:now\\s+)?(?:in|near)\\s+${PLACE}`, "gu") },
  { slot: "lives_in", re: new RegExp(`\\b(?:lives?|living|resides?|residing|(?:is|am|are)\\s+(?:now\\s+)?(?:based|staying|settled))\\s+(?:now\\s+)?(?:in|near)\\s+(\\p{Ll}[\\p{L}'’.-]*(?:\\s+\\p{Ll}[\\p{L}'’.-]*)?)(?![\\p{L}])`, "gu"), refine: knownPlace },
  { slot: "lives_in", re: new RegExp(`\\b(?:moved|moves?|moving|relocated|relocates?|relocating)\\s+(?:back\\s+|house\\s+)?(?:from\\s+${PLACE}\\s+)?(?:to|into)\\s+${PLACE}`, "gu") },
  { slot: "works_at", re: new RegExp(`\\b(?:works?|working)\\s+(?:as\\s+(?:an?\\s+)?[\\p{L}\\s-]{2,40}?\\s+)?(?:at|for)\\s+${PHRASE}`, "giu") },
  { slot: "works_at", re: new RegExp(`\\b(?:job|position|role)\\s+(?:as\\s+(?:an?\\s+)?[\\p{L}\\s-]{2,40}?\\s+)?(?:at|with)\\s+${PHRASE}`, "giu") },
  { slot: "works_at", re: new RegExp(`\\b(?:joined|joins|joining|employed\\s+(?:at|by)|hired\\s+(?:at|by)|started\\s+(?:working\\s+)?at)\\s+${PLACE}`, "gu") },
  { slot: "job", re: new RegExp(`\\b(?:works?|working|job|hired|employed)\\s+as\\s+(?:an?\\s+|the\\s+)?${PHRASE}`, "giu") },
  { slot: "job", re: new RegExp(`\\b(?:is|am|are|became|becomes|become|promoted\\s+to)\\s+(?:now\\s+)?(?:an?\\s+|the\\s+)${OCCUPATION_PHRASE}`, "giu") },
  { slot: "relationship", re: /\b(?:is|am|are|got|recently|just|now)\s+(?:now\s+|recently\s+|just\s+|officially\s+)?(single|married|engaged|divorced|separated|widowed)\b/giu },
  { slot: "relationship", re: /\b(?:broke|broken|splits?|split)\s+up\b/giu, value: "single" },
  { slot: "relationship", re: /\b(?:is|am|are)\s+(?:now\s+)?(?:in\s+a\s+relationship|dating|seeing\s+someone)\b/giu, value: "in a relationship" },
  { slot: "name", re: /\b(?:name\s+is|goes\s+by|go\s+by|is\s+called|am\s+called|changed\s+(?:her|his|their|my)\s+name\s+to)\s+(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2})/gu },
  { slot: "name", re: /\bcall\s+me\s+(\p{Lu}[\p{L}'’-]*)/gu },
];

// The subject right before a slot verb, allowing helper words in between ("I just", "Maya has now", "I got a new").
const SUBJECT_BEFORE = new RegExp(
  `(\\bI|\\b[Mm]y|\\b[Ww]e|\\b[Tt]he user|\\b\\p{Lu}[\\p{L}-]*(?:\\s+\\p{Lu}[\\p{L}-]*)?)(?:['’]s)?\\s+(?:(?:just|now|recently|finally|currently|also|still|officially|actually|really|has|have|had|is|am|are|was|will|got|get|gets|started|start|starts|landed|found|took|accepted|a|an|the|new|dream|first|full-time|part-time|been)\\s+)*$`,
  "u",
);
const POSSESSIVE_NAME = /(\b[Mm]y|\b\p{Lu}[\p{L}-]*['’]s)\s+$/u;
const CLAUSE = /[.;!?]+\s+|\n+/;

function normaliseValue(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/['’]s?$/u, "")
    .replace(/^(?:the|an?)\s+/, "")
    .replace(/[.,'’]+$/u, "")
    .replace(/\s+/g, " ")
    .trim();
}

// The clause's own subject when nothing else could be the actor before the slot words:
// "We finally packed up and left Croydon", "Tom said: we are a family of four living in Croydon".
const CLAUSE_START =
  /^\W*(?:\p{Lu}[\p{L}-]*\s+said:\s*)?(I|[Ww]e|(?!(?:My|Our|His|Her|Their|The|This|That|These|Those|It|A|An|So|And|But|Then|Also|Oh|Well|If|When|After|Since)\b)\p{Lu}[\p{L}-]*)\s+(?!said\b)/u;
const OTHER_ACTOR = /\b(?:he|she|they|his|her|their|its|[Hh]e|[Ss]he|[Tt]hey)\b|['’]s\s+\p{Ll}|\b(?:[Mm]y|[Oo]ur)\s+(?!new\b|own\b)\p{Ll}+\s+(?:is|was|has|had|moved|lives|works|got)\b/u;

// "…, she works at Airbus": a third-person pronoun right before the slot words is someone else.
const OTHER_PRONOUN_BEFORE = /\b(?:[Hh]e|[Ss]he|[Tt]hey|[Hh]is|[Hh]er|[Tt]heir)\s+(?:(?:just|now|also|still|has|have|had|is|are|was|were|will|got|recently|finally)\s+)*$/u;

function clauseSubject(before: string): string {
  const m = CLAUSE_START.exec(before);
  if (!m) return "";
  return OTHER_ACTOR.test(before.slice(m.index + m[0].length)) ? "" : m[1] === "we" ? "We" : m[1];
}

/** Every slot value stated in a text, each with its subject (or "" when the subject is someone unnamed). */
export function findSlots(text: string): SlotValue[] {
  const out: SlotValue[] = [];
  for (const clause of expandContractions(capitaliseI(text)).split(CLAUSE)) {
    const hits: { index: number; pattern: Pattern; value: string; nameSubject?: string }[] = [];
    const owner = (word: string) => (/^my$/i.test(word) ? "I" : word.replace(/['’]s$/u, ""));
    for (const pattern of PATTERNS) {
      for (const m of clause.matchAll(pattern.re)) {
        const matched = pattern.value ?? m.groups?.value ?? m[m.length - 1] ?? "";
        const raw = pattern.refine && matched !== "" ? pattern.refine(matched) : matched;
        if (raw === null || raw === "") continue;
        let nameSubject: string | undefined;
        if (pattern.slot === "name" && m[0].toLowerCase().startsWith("name")) {
          // "my name is X" / "Maya's name is X": the possessor is the subject.
          const owner = POSSESSIVE_NAME.exec(clause.slice(0, m.index));
          if (!owner) continue;
          nameSubject = owner[1].toLowerCase() === "my" ? "I" : owner[1].replace(/['’]s$/u, "");
        } else if (pattern.slot === "name" && m[0].toLowerCase().startsWith("call")) {
          nameSubject = "I";
        } else if (m.groups?.who) {
          nameSubject = /^me$/i.test(m.groups.who) ? "I" : /^(?:us|our)$/i.test(m.groups.who) ? "We" : owner(m.groups.who);
        }
        hits.push({ index: m.index ?? 0, pattern, value: normaliseValue(raw), nameSubject });
      }
    }
    hits.sort((a, b) => a.index - b.index);
    let lastSubject = "";
    for (const h of hits) {
      let subject = h.nameSubject ?? "";
      if (!h.nameSubject) {
        const before = clause.slice(0, h.index);
        const direct = SUBJECT_BEFORE.exec(before);
        if (OTHER_PRONOUN_BEFORE.test(before)) subject = "";
        else if (direct) subject = /^my$/i.test(direct[1]) ? "I" : direct[1];
        else if (lastSubject !== "" && /(?:\b(?:and|but|then|so|for|to)|,)\s+(?:\S+\s+){0,4}$/i.test(before)) subject = lastSubject;
        else subject = clauseSubject(before);
      }
      // "We got married", "we moved to Leeds": the speaker's own status and home.
      if ((h.pattern.slot === "relationship" || h.pattern.slot === "lives_in") && /^we$/i.test(subject)) subject = "I";
      // "my husband" names the speaker's status, not the actor of what follows ("my husband quit X and joined Y").
      if (subject !== "" && !(h.pattern.slot === "relationship" && h.nameSubject)) lastSubject = subject;
      const repeat = out.some((o) => o.slot === h.pattern.slot && o.value === h.value && o.subject === subject && !o.ended === !h.pattern.ends);
      if (h.value !== "" && !repeat) out.push({ slot: h.pattern.slot, value: h.value, subject, ...(h.pattern.ends ? { ended: true } : {}) });
    }
  }
  return out;
}

/** True when `subject` is the speaker: "I", "the user", or one of their names (case-insensitive). */
export function isSelf(subject: string, selfNames: readonly string[]): boolean {
  const s = subject.trim().toLowerCase();
  if (s === "") return false;
  if (s === "i" || s === "the user" || s === "user") return true;
  return selfNames.some((n) => n.trim().toLowerCase() === s);
}

/** Two values of a slot agree when equal or one contains the other ("paris" / "paris, france"). */
export function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  // Whole words only: "alex" is not "alexandra".
  const within = (x: string, y: string) => y !== "" && new RegExp(`(?:^|[^\\p{L}\\p{N}])${y.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:$|[^\\p{L}\\p{N}])`, "u").test(x);
  return within(a, b) || within(b, a);
}

// Words that make a job title a different job: "analyst" → "senior analyst" is a promotion.
const RANK = /\b(?:senior|junior|head|lead|chief|principal|deputy|assistant|associate|staff|trainee|apprentice|manager|director|supervisor|partner)\b/;

/** A job title that adds or drops a rank word on the other ("analyst" / "senior analyst"). */
function promoted(a: string, b: string): boolean {
  if (a === b) return false;
  const extra = (x: string, y: string) => x.replace(y, " ").trim();
  return (b.includes(a) && RANK.test(extra(b, a))) || (a.includes(b) && RANK.test(extra(a, b)));
}

/**
 * The slots where `next` gives the speaker a new value that `stored` contradicts: non-empty means
 * `next` supersedes `stored`. Only the speaker's own slots count, never someone else's.
 */
export function conflictingSlots(next: readonly SlotValue[], stored: readonly SlotValue[], selfNames: readonly string[]): SlotName[] {
  const mine = (values: readonly SlotValue[]) => values.filter((v) => isSelf(v.subject, selfNames));
  const oldValues = mine(stored);
  const conflicts = new Set<SlotName>();
  const stated = mine(next);
  for (const n of stated) {
    const olds = oldValues.filter((o) => o.slot === n.slot && !o.ended);
    if (n.ended) {
      // "Left Tesco" closes the fact that holds Tesco, unless the same text names it again as current.
      if (olds.some((o) => sameValue(o.value, n.value)) && !stated.some((x) => x.slot === n.slot && !x.ended && sameValue(x.value, n.value))) conflicts.add(n.slot);
    } else if (olds.length > 0 && olds.every((o) => !sameValue(o.value, n.value) || (n.slot === "job" && promoted(o.value, n.value)))) {
      conflicts.add(n.slot);
    }
  }
  return [...conflicts];
}
