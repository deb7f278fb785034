import nlp from "compromise";

const SINGULAR = /(?:^|[^\p{L}'’])I(?:['’](?:m|ve|d|ll))?(?![\p{L}])|\b(?:me|my|mine|myself)\b/iu;
const SINGULAR_I = /(?:^|[^\p{L}'’])I(?:['’](?:m|ve|d|ll))?(?![\p{L}])|\b(?:[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b/u;
const PLURAL = /\b(?:we|we['’](?:re|ve|d|ll)|our|ours|us|ourselves)\b/i;

/** Sentences that use the first person without stating anything lasting. */
const NOT_A_FACT =
  /^(?:i\s+(?:see|agree|disagree|know|guess|mean|think so|hope so|understand|suppose|wonder|bet|was wondering)\b|i\s+(?:am|['’]m)\s+(?:not sure|sure|fine|good|ok|okay|glad|sorry|happy to|here|back|listening|just saying|kidding)\b|i\s+don['’]?t\s+know\b|me\s+(?:too|neither)\b|my\s+(?:bad|pleasure|god|goodness)\b|let\s+me\b|tell\s+me\b|show\s+me\b|give\s+me\b|help\s+me\b|remind\s+me\b)/i;
const REQUEST = /^(?:can|could|would|will|should|do|does|did|is|are|shall)\s+(?:you|we|i)\b|^(?:please|what|why|how|when|where|who|which)\b/i;
const LEADING_FILLER =
  /^(?:(?:oh|ah|um|uh|well|so|hey|hi|hello|thanks|thank you|sure|cool|great|nice|right|no|nope|btw|by the way|guess what|anyway|anyways|also|yeah|yes|ok|okay|actually|honestly|haha|lol|wow|big news|good news|bad news|great news|news|fun fact|update|quick update)\b[\s,!:.\-–—]*)+/i;
const SHORT_LABEL = /^[^:.!?]{1,30}:\s+/;

/** Capitalises a lower-case pronoun "i" ("i'm in london" → "I'm in london"), common in chat. */
export function capitaliseI(text: string): string {
  return text
    .replace(/(^|[^\p{L}\p{N}'’])i(?=(?:['’](?:m|ve|d|ll))?(?![\p{L}\p{N}]))/gu, "$1I")
    .replace(/(^|[^\p{L}\p{N}'’])[Ii](m|ve)(?![\p{L}\p{N}'’])/gu, "$1I'$2");
}

// A user turn that starts with a past-tense verb speaks of the speaker: "Left Tesco, joined Sainsbury's".
const IMPLIED_SPEAKER_VERB =
  /^(?:left|joined|moved|relocated|packed|started|got|finally|retrained|retired|quit|bought|sold|signed|landed|became|married|divorced|split|separated|settled|switched|transferred|handed|accepted|took|finished|graduated|qualified|promoted|resigned|based|living|working|engaged|recently|just|now|currently|officially|dating|serving|renting|studying|teaching|single|widowed|separated|retired)\b/i;

/** Words (letters and digits) in a sentence. */
export function wordCount(sentence: string): number {
  return (sentence.match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

/**
 * The subject a sentence that opens with a verb leaves out, by the form of that verb (compromise's
 * tags): "Been with Accenture four years" → "I have", "Flying as cabin crew" → "I am", "Emigrated
 * to Sydney" → "I". Only these forms are read: a base form is a request ("Book a table"), a modal
 * is no statement ("Might end up in Cairns"), and "were" is chat's "we're".
 */
function impliedSubject(s: string): string | undefined {
  const first = /^[\p{L}'’]+/u.exec(s)?.[0].toLowerCase();
  if (first === "been") return "I have";
  if (first === undefined || first === "were") return undefined;
  const tags: string[] = nlp(s).terms().json()[0]?.terms[0]?.tags ?? [];
  if (tags.includes("Gerund")) return "I am";
  if (tags.includes("PastTense")) return "I";
  return undefined;
}

/**
 * Gives a subjectless sentence of a user turn its implied speaker ("Joined PwC last week" → "I
 * joined PwC last week"): a chat turn that opens with a past or -ing form, or "been", speaks of
 * its speaker ("Been with Accenture for four years", "Flying as cabin crew with Cathay").
 */
export function withImpliedSpeaker(sentence: string): string {
  const s = sentence.trim();
  if (s.endsWith("?") || s === "") return s;
  const subject = IMPLIED_SPEAKER_VERB.test(s) ? "I" : wordCount(s) >= 3 ? impliedSubject(s) : undefined;
  return subject === undefined ? s : `${subject} ${s[0].toLowerCase()}${s.slice(1)}`;
}

/** The sentence as the speaker would say it alone: "we" and "me and X" read as "I" for slots the household shares. */
export function speakerView(sentence: string): string {
  return sentence
    .replace(/\b(?:me|Me)\s+(?:and|n|&)\s+\p{Lu}[\p{L}-]*/gu, "I")
    .replace(/\b\p{Lu}[\p{L}-]*\s+(?:and|&)\s+(?:I|me)\b/gu, "I")
    .replace(/\bwe\b/g, "we")
    .replace(/\b[Ww]e\s+(?=(?:are|were|have|had|moved|relocated|settled|live|lived|bought|got|left|packed|finally|just|now)\b)/gu, "I ");
}

/** Splits text into sentences (compromise's sentence splitter). */
export function splitSentences(text: string): string[] {
  return nlp(text)
    .sentences()
    .out("array")
    .map((s: string) => s.trim())
    .filter((s: string) => s !== "");
}

/** Strips openers that carry no content ("Big news:", "Oh, well,"). */
export function stripFiller(sentence: string): string {
  let s = sentence.replace(LEADING_FILLER, "").trim();
  const label = SHORT_LABEL.exec(s);
  if (label && SINGULAR.test(s.slice(label[0].length))) s = s.slice(label[0].length);
  return s.trim();
}

/** How a sentence speaks about its speaker. */
export type Person = "singular" | "plural" | "none";

/** Whether a sentence is a first-person statement that may hold a fact (not a question, request or filler). */
export function firstPersonStatement(sentence: string): Person {
  const s = sentence.trim();
  if (s.endsWith("?") || REQUEST.test(s) || NOT_A_FACT.test(s)) return "none";
  if (wordCount(s) < 3) return "none";
  if (SINGULAR_I.test(s)) return "singular";
  if (PLURAL.test(s)) return "plural";
  return "none";
}

const CONTRACTIONS: [RegExp, string][] = [
  [/\bI['’]m\b/g, "I am"],
  [/\bI['’]ve\b/g, "I have"],
  [/\bI['’]ll\b/g, "I will"],
  [/\bI['’]d\s+(been|had|gone|done|seen|never|already|just)\b/g, "I had $1"],
  [/\bI['’]d\b/g, "I would"],
  [/\bI\s+don['’]t\b/g, "I do not"],
  [/\bI\s+can['’]t\b/g, "I cannot"],
  [/\bI\s+won['’]t\b/g, "I will not"],
  [/\b([Ww])e['’]re\b/g, "$1e are"],
  [/\b([Ww])e['’]ve\b/g, "$1e have"],
];

const PAST_IRREGULAR = new Set(["got", "did", "had", "was", "were", "went", "made", "took", "left", "met", "lost", "sold", "bought", "found", "gave", "came", "kept", "quit", "split", "moved"]);
const MODALS = new Set(["can", "cannot", "could", "will", "would", "shall", "should", "may", "might", "must"]);
const IRREGULAR: Record<string, string> = { am: "is", be: "is", have: "has", do: "does", go: "goes" };

/** Expands the speaker's contractions ("I'm" → "I am", "I don't" → "I do not"). */
export function expandContractions(text: string): string {
  let s = text;
  for (const [pattern, replacement] of CONTRACTIONS) s = s.replace(pattern, replacement);
  return s;
}

/** Third-person singular present of a verb ("live" → "lives", "try" → "tries", "have" → "has"). */
export function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase();
  let out = IRREGULAR[lower];
  if (!out) {
    if (/(?:s|sh|ch|x|z|o)$/.test(lower)) out = `${lower}es`;
    else if (/[^aeiou]y$/.test(lower)) out = `${lower.slice(0, -1)}ies`;
    else out = `${lower}s`;
  }
  return verb[0] === verb[0].toUpperCase() && verb[0] !== verb[0].toLowerCase() ? out[0].toUpperCase() + out.slice(1) : out;
}

interface Term {
  text: string;
  pre: string;
  post: string;
  tags: string[];
}

const isBaseVerb = (t: Term) =>
  t.tags.includes("Verb") && (t.tags.includes("PresentTense") || t.tags.includes("Infinitive")) && !t.tags.includes("Gerund") && !t.tags.includes("PastTense");

/**
 * Rewrites a first-person sentence about `subject` in the third person: "I live in London and work
 * as a nurse" → "Maya lives in London and works as a nurse"; "my" → "Maya's"; "me" → "Maya".
 * Plural first person ("we", "our") is kept and attributed: "Maya said: we adopted a dog."
 */
export function toThirdPerson(sentence: string, subject: string): string {
  const s = expandContractions(sentence);
  if (!SINGULAR_I.test(s)) return capitalise(`${subject} said: ${s}`);
  const doc = nlp(s).json({ terms: { text: true, whitespace: true, tags: true } }) as { terms: Term[] }[];
  const out: string[] = [];
  let pending = false;
  let coordinate = false;
  for (const sentenceTerms of doc) {
    const terms = sentenceTerms.terms;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      let text = t.text;
      const lower = text.toLowerCase();
      if (text === "I") {
        text = subject;
        pending = true;
        coordinate = false;
      } else if (lower === "me" || lower === "myself") {
        text = subject;
      } else if (lower === "my" || lower === "mine") {
        text = `${subject}'s`;
      } else if (pending) {
        if (t.tags.includes("Adverb") || t.tags.includes("Negative")) {
          // "I really enjoy": keep the adverb, conjugate the verb after it.
        } else if (MODALS.has(lower)) {
          pending = false;
        } else if (t.tags.includes("PastTense") || t.tags.includes("Gerund") || PAST_IRREGULAR.has(lower)) {
          // "I got", "I living in Pune" (a chat fragment): no third-person -s.
          pending = false;
          coordinate = true;
        } else if (t.tags.includes("Verb") || lower === "am") {
          text = thirdPerson(text);
          pending = false;
          coordinate = true;
        } else {
          pending = false;
        }
      } else if (coordinate && (lower === "and" || lower === "or") && terms[i + 1] && isBaseVerb(terms[i + 1])) {
        out.push(t.pre + text + t.post);
        const next = terms[++i];
        out.push(next.pre + thirdPerson(next.text) + next.post);
        continue;
      }
      out.push(t.pre + text + t.post);
    }
  }
  return capitalise(out.join("").trim());
}

function capitalise(s: string): string {
  return s === "" ? s : s[0].toUpperCase() + s.slice(1);
}
