import nlp from "compromise";
import { capitaliseI, expandContractions } from "./first-person.js";
import { modalityOf } from "./modality.js";
import { OCCUPATIONS, type SlotName, type SlotValue } from "./slots.js";

/**
 * A small grammar of life-change events (and the plain states they replace) for the offline
 * extractor's supersede rule. A sentence is cut into clauses; each clause gets an **actor** —
 * the speaker ("I", "we", "our family", "my partner and I", "me n Funmi", the speaker's own
 * name, or no subject at all: a first-person chat turn's implied speaker) or someone else ("my
 * sister", "he", another name) — and is matched against **event frames** per slot: a family of
 * verbs (by lemma: move/relocate/settle/transfer…, join/start at/hired by…, promote/become/
 * retrain…, marry/engage/divorce/split…, change name/take surname/go by…) and the argument that
 * carries the new value, read with compromise (places, people, occupations). Frames that name
 * the speaker inside them ("X is behind us", "made me head chef", "Layla is my wife now") hold
 * whoever the clause's subject is. Only the speaker's frames are returned, with subject "I".
 * Modality (plans, questions, negation, the past, temporary stays) is decided by `modality.ts`
 * per clause; a condition ("if …", "when I'm 18 …") makes the clauses after it unreal too.
 */

/** A slot value the speaker's own statement gives, with whether its clause is actual and the value as written. */
export interface SpeakerEvent extends SlotValue {
  /** The clause is actual: not a plan, wish, question, denial or hypothetical (nor after an "if …" clause). */
  actual: boolean;
  /** The value as written ("Malmö", "head of design"), for a plain restatement of the fact. */
  shown: string;
}

// compromise parses are the cost of the grammar: each distinct text is parsed once (bounded memo).
const MEMO_LIMIT = 4000;
function memo<T>(fn: (text: string) => T): (text: string) => T {
  const cache = new Map<string, T>();
  return (text: string) => {
    const hit = cache.get(text);
    if (hit !== undefined || cache.has(text)) return hit as T;
    const value = fn(text);
    if (cache.size >= MEMO_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(text, value);
    return value;
  };
}

interface Parse {
  first: { text: string; tags: string[] } | undefined;
  tags: string[];
  hasVerb: boolean;
  places: boolean;
  people: boolean;
}

const parse = memo((text: string): Parse => {
  const doc = nlp(text);
  const terms = (doc.json({ terms: { tags: true, text: true } }) as { terms: { text: string; tags: string[] }[] }[]).flatMap((x) => x.terms);
  return {
    first: terms[0],
    tags: terms.flatMap((t) => t.tags),
    hasVerb: doc.verbs().length > 0,
    places: (doc.places().out("array") as string[]).length > 0,
    people: (doc.people().out("array") as string[]).length > 0,
  };
});

/** Who a clause is about. */
export type Actor = "speaker" | "other" | "unknown";

// "ownName": a full name that starts with one of the speaker's own names ("I'm officially Nnenna Eze now").
type Arg = "place" | "org" | "orgOrPlace" | "placeOrOrg" | "role" | "name" | "ownName" | "fixed";

interface Frame {
  slot: SlotName;
  re: RegExp;
  arg: Arg;
  value?: string;
  ended?: boolean;
  /** The speaker is inside the frame ("behind us", "made me", "my wife"): any actor will do. */
  anyActor?: boolean;
  /** Only a clause with no subject of its own (a fragment: "Engineering manager now."). */
  fragment?: boolean;
  /** The role must read as an occupation (compromise's Actor tag or a known job word): "made principal", not "made dinner". */
  strictRole?: boolean;
}

const CAP = "\\p{Lu}[\\p{L}\\p{N}'’&.-]*";
// A capitalised name of up to five words ("North Carolina", "St James's", "Mercy General").
const NAMED = `(?:the\\s+)?${CAP}(?:\\s+(?:of\\s+|de\\s+|&\\s+|n\\s+)?${CAP}){0,4}`;
// Any word run (lower case allowed) of up to four words, for chat spelling ("greggs", "liverpool").
const WORDS = "[\\p{L}\\p{N}'’&.-]+(?:\\s+[\\p{L}\\p{N}'’&.-]+){0,3}";
const V = `(?<v>${NAMED}|${WORDS})`;
const ROLE = "(?<v>[\\p{L}'’-]+(?:\\s+[\\p{L}'’-]+){0,3})";
const SPEAKER_OBJ = "(?:me|us)";

const MOVE = "(?:moved|moving|relocated|relocating|shifted|headed|emigrated|made\\s+it|upped\\s+sticks|settled|transferred|posted|stationed|ended\\s+up)";
const LEAVE_JOB = "(?:left|quit|quitting|leaving|packed\\s+in|escaped|walked\\s+away\\s+from|resigned\\s+from|took\\s+the\\s+redundancy\\s+from|gave\\s+up|done\\s+with|finished\\s+(?:up\\s+)?at|last\\s+day\\s+at)";
const JOIN = "(?:joined|joining|join|started\\s+(?:work(?:ing)?\\s+)?(?:at|with)|start(?:ed|ing)?\\s+at|hired\\s+(?:by|at)|taken\\s+on\\s+(?:by|at)|got\\s+on\\s+at|signed\\s+(?:on\\s+)?with|(?:went|moved|switched|gone)\\s+over\\s+to|switched\\s+to|been\\s+at|(?:now\\s+)?(?:work(?:ing)?|employed)\\s+(?:at|for|by)|\\w+ing\\s+for|doing\\s+\\w+\\s+at|job\\s+(?:at|with))";

// A move of someone else by the speaker ("we moved my gran into a care home in Bergen") is not the speaker's move.
const NOT_OTHERS_MOVE = "(?!\\s+(?:my|his|her|their|your)\\s+(?!family\\b|whole\\b|own\\b|stuff\\b|things\\b|life\\b|lives\\b|kids\\b|children\\b)[\\p{L}'’-]+)";

const FRAMES: Frame[] = [
  // lives_in
  { slot: "lives_in", re: new RegExp(`\\b${MOVE}\\b${NOT_OTHERS_MOVE}(?:\\s+(?!to\\b|in\\b|into\\b)[\\p{L}'’-]+){0,3}?\\s+(?:back\\s+)?(?:to|into|in)\\s+(?:(?:a|an|the|our|my)\\s+(?:[\\p{L}-]+\\s+){0,2}(?:in|near)\\s+)?${V}`, "gu"), arg: "orgOrPlace" },
  { slot: "lives_in", re: new RegExp(`\\b(?:living|based|settled|staying|resid\\w+|renting\\s+(?:a\\s+)?(?:room|flat|place|house|apartment)|(?:bought|got|found)\\s+(?:a|an|our|my)\\s+(?:own\\s+)?(?:new\\s+)?(?:place|house|flat|home|apartment|new-build|condo))\\s+(?:now\\s+)?(?:in|near)\\s+${V}`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`\\b(?:I\\s+am|we\\s+are|am|are)\\s+(?:now\\s+)?in\\s+${V}`, "gu"), arg: "orgOrPlace" },
  { slot: "lives_in", re: new RegExp(`\\b[Hh]ome\\s+is\\s+(?:now\\s+)?${V}`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`^(?<v>${NAMED}|${WORDS})\\s+now\\b`, "gu"), arg: "place", fragment: true },
  { slot: "lives_in", re: new RegExp(`\\b(?<v>${NAMED})\\s+is\\s+(?:now\\s+)?(?:behind|in\\s+the\\s+past\\s+for)\\s+${SPEAKER_OBJ}\\b`, "gu"), arg: "place", ended: true, anyActor: true },
  { slot: "lives_in", re: new RegExp(`\\b(?:left|leaving|leave|put)\\s+(?<v>${NAMED})\\s+behind\\b`, "gu"), arg: "place", ended: true },
  { slot: "lives_in", re: new RegExp(`\\b(?:left|leaving|sold\\s+up\\s+in|packed\\s+up\\s+(?:the\\s+\\w+\\s+in|in)|moved\\s+(?:out\\s+)?(?:of|from)|swapped|traded)\\s+(?<v>${NAMED})`, "gu"), arg: "place", ended: true },
  { slot: "lives_in", re: new RegExp(`\\b(?:swapped|traded|left)\\s+${NAMED}\\s+for\\s+(?<v>${NAMED})`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`\\b${MOVE}\\b${NOT_OTHERS_MOVE}(?:\\s+[\\p{L}'’-]+){0,5}?\\s+(?:to|into|in)\\s+(?<v>${NAMED})`, "gu"), arg: "orgOrPlace" },
  { slot: "lives_in", re: new RegExp(`\\b(?:moved|relocated|shifted|took|brought)\\s+(?:me|us)\\b(?:\\s+[\\p{L}-]+){0,3}?\\s+(?:to|into|in)\\s+(?<v>${NAMED})`, "gu"), arg: "place", anyActor: true },
  { slot: "lives_in", re: new RegExp(`\\b(?:lives?|living|livings|bought|reside|resides)\\s+(?:now\\s+)?(?:in|near|on)\\s+(?<v>${NAMED})`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`\\b(?:keys\\s+to|rent|rents|renting|own|owns|bought|taken|took|found|got)\\s+(?:a|an|the|our|my)\\s+(?:[\\p{L}-]+\\s+){0,2}(?:place|house|flat|home|apartment|room|condo|cottage|new-build|bungalow)\\b(?:\\s+[\\p{L}'’-]+){0,4}?\\s+(?:in|on|near)\\s+(?<v>${NAMED})`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`(?<!\\b(?:care|nursing|retirement|group|children['’]s|foster)\\s+|['’]s\\s+)\\b(?:house|home|flat|apartment|place|cottage|condo|bungalow)\\s+(?:is\\s+)?(?:in|on|near)\\s+(?<v>${NAMED})`, "gu"), arg: "place" },
  { slot: "lives_in", re: new RegExp(`\\b(?:given\\s+up|gave\\s+up|sold|handed\\s+back|moved\\s+out\\s+of)\\s+(?:the|our|my)\\s+(?:[\\p{L}-]+\\s+){0,2}(?:house|flat|home|apartment|place|cottage)\\s+(?:in|on)\\s+(?<v>${NAMED})`, "gu"), arg: "place", ended: true },
  { slot: "lives_in", re: new RegExp(`\\b(?:the\\s+)?(?<v>${NAMED})\\s+(?:flat|house|place|apartment)\\s+is\\s+(?:handed\\s+back|sold|gone)`, "gu"), arg: "place", ended: true, anyActor: true },
  { slot: "lives_in", re: new RegExp(`^in\\s+(?<v>${NAMED})(?:\\s+now)?$`, "gu"), arg: "orgOrPlace", fragment: true },
  { slot: "lives_in", re: new RegExp(`^at\\s+(?<v>${NAMED})(?:\\s+now)?$`, "gu"), arg: "placeOrOrg", fragment: true },
  { slot: "lives_in", re: new RegExp(`\\b(?<v>${NAMED})\\s+instead\\s+of\\s+(?<old>${NAMED})`, "gu"), arg: "placeOrOrg", anyActor: true },
  { slot: "lives_in", re: new RegExp(`\\b(?<old>${NAMED})\\s*(?:->|→|=>|>)\\s*(?<v>${NAMED})`, "gu"), arg: "placeOrOrg", anyActor: true },
  // works_at
  { slot: "works_at", re: new RegExp(`\\b(?:am|is|are|work|works|working|workings|drive|drives|driving|serving|serve|employed)\\b(?:\\s+(?!at\\b|for\\b|with\\b|in\\b)[\\p{L}-]+){0,4}?\\s+(?:at|for|with|in)\\s+(?:the\\s+)?(?<v>${NAMED})`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b(?:office|job|desk|shift|role|position|team|gig|contract)\\s+(?:is\\s+)?(?:at|with)\\s+(?:the\\s+)?(?<v>${NAMED})`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b(?:an?\\s+)?(?<v>${NAMED})\\s+(?:employee|staffer|lifer|man|woman|girl|guy|gal)\\b`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b(?<v>${NAMED})\\s+(?:(?:took|taken|hired|signed)\\s+me(?:\\s+on)?|(?:picked|snapped)\\s+me\\s+up)\\b`, "gu"), arg: "org", anyActor: true },
  // The speaker as the object of a hiring told in the passive, whatever the verb: "got poached by
  // Bank of America", "was headhunted by Arup", "got posted to Aga Khan Hospital".
  { slot: "works_at", re: new RegExp(`\\b(?:[Gg]ot|gotten|was|been|were)\\s+(?:\\p{Ll}+ly\\s+)?(?!married|engaged|divorced|dumped|told|asked|invited|sick|paid|stuck|lost|caught|robbed|used|moved)\\p{Ll}+ed\\s+(?:up\\s+|off\\s+|away\\s+)?by\\s+(?:the\\s+)?(?<v>${NAMED})`, "gu"), arg: "org" },
  { slot: "lives_in", re: new RegExp(`\\b(?:[Gg]ot|gotten|was|been|were)\\s+(?:posted|transferred|stationed|sent|seconded|redeployed|reassigned)\\s+(?:out\\s+|over\\s+|up\\s+|down\\s+)?(?:to|at)\\s+(?:the\\s+)?(?<v>${NAMED})`, "gu"), arg: "orgOrPlace" },
  { slot: "works_at", re: new RegExp(`\\bI\\s+am\\s+(?:now\\s+)?(?:at|with)\\s+(?<v>${NAMED})`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b${JOIN}\\s+(?:the\\s+)?(?<v>${NAMED})`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\bnow\\s+(?:I\\s+am|I|we\\s+are)\\s+(?:at|with|in)\\s+(?<v>[\\p{L}'’&-]+)`, "giu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b(?:at|with)\\s+(?<v>${NAMED})\\s+now\\b`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b(?<v>${NAMED})\\s+it\\s+is\\b`, "gu"), arg: "org" },
  { slot: "works_at", re: new RegExp(`\\b${LEAVE_JOB}\\s+(?:the\\s+)?(?<v>${NAMED}|[\\p{L}'’&-]+)`, "gu"), arg: "org", ended: true },
  { slot: "works_at", re: new RegExp(`\\bhanded\\s+in\\s+my\\s+(?<v>${NAMED})\\s+(?:badge|notice|pass|lanyard)`, "gu"), arg: "org", ended: true },
  { slot: "works_at", re: new RegExp(`\\b(?<v>${NAMED})(?:['’]s|\\s+is)\\s+(?:history|behind\\s+me|done|over)\\b`, "gu"), arg: "org", ended: true, anyActor: true },
  { slot: "works_at", re: new RegExp(`\\b(?<v>${NAMED})\\s+(?:let|laid|made)\\s+me\\s+(?:go|off|redundant)\\b`, "gu"), arg: "org", ended: true, anyActor: true },
  { slot: "works_at", re: new RegExp(`\\b(?:left|quit|swapped|traded)\\s+${NAMED}\\s+for\\s+(?<v>${NAMED})`, "gu"), arg: "org" },
  // job
  {
    slot: "job",
    re: new RegExp(
      `\\b(?:promoted\\s+(?:to|as)|became|become|retrained\\s+(?:as|in)|switched\\s+(?:careers|jobs)\\s+(?:into|to)|career\\s+change\\s+(?:into|to)|qualified(?:\\s+as)?|now\\s+(?:an?|the)|(?:work|working)\\s+(?:as|like)|job\\s+as|(?:gone|went|going)\\s+back\\s+to\\s+work\\s+(?:[\\p{L}-]+\\s+)?as|upgraded\\s+(?:from\\s+[\\p{L}\\s-]+?\\s+)?to(?:\\s+actual)?|serving\\s+as|serve\\s+as|(?:made|named|appointed)\\s+(?:me|us)(?:\\s+the)?)\\s+(?:an?\\s+|the\\s+)?${ROLE}`,
      "giu",
    ),
    arg: "role",
    anyActor: false,
  },
  { slot: "job", re: new RegExp(`\\b(?:made|named|appointed|promoted)\\s+me\\s+(?:to\\s+|as\\s+)?(?:an?\\s+|the\\s+)?${ROLE}`, "giu"), arg: "role", anyActor: true },
  { slot: "job", re: new RegExp(`\\b(?:I\\s+am|am)\\s+(?:now\\s+)?(?:(?:officially|finally|fully)\\s+)?(?:an?|the)\\s+${ROLE}`, "gu"), arg: "role" },
  { slot: "job", re: new RegExp(`\\b(?:got\\s+)?made\\s+(?:up\\s+to\\s+)?${ROLE}`, "gu"), arg: "role", strictRole: true },
  // A title with no article ("from this month I'm assistant manager"), when compromise reads an occupation in it.
  { slot: "job", re: new RegExp(`\\bI\\s+am\\s+(?:now\\s+)?(?:(?:officially|finally)\\s+)?${ROLE}`, "gu"), arg: "role", strictRole: true },
  { slot: "job", re: new RegExp(`\\bI\\s+(?:do|am\\s+doing)\\s+(?<v>[\\p{L}-]+(?:\\s+[\\p{L}-]+)?)\\b[^,.;]*?\\bnow\\b`, "gu"), arg: "role" },
  { slot: "job", re: new RegExp(`\\bI\\s+(?:drive|teach|do)\\s+(?<v>(?:an?\\s+)?[\\p{L}-]+(?:\\s+[\\p{L}-]+){0,2})\\s+now\\b`, "gu"), arg: "role" },
  { slot: "job", re: new RegExp(`\\b(?:doing|do)\\s+(?<v>[\\p{L}-]+(?:\\s+[\\p{L}-]+){0,2})\\s+now\\b`, "gu"), arg: "role" },
  { slot: "job", re: new RegExp(`^(?:now\\s+|currently\\s+)?(?:an?\\s+)?${ROLE}\\s+now\\b`, "giu"), arg: "role", fragment: true },
  { slot: "job", re: /\b(?:retired|retiring)\b/giu, arg: "fixed", value: "retired" },
  { slot: "job", re: new RegExp(`\\b(?:now|I(?:\\s+am)?)\\s+(?:now\\s+)?(?<v>(?:teaching|coaching|nursing|driving|cooking|writing|designing|training|tutoring|consulting)(?:\\s+[\\p{L}-]+)?)`, "giu"), arg: "role" },
  // relationship
  { slot: "relationship", re: /\b(?:tied\s+the\s+knot|remarried|wedded|(?:got|were|we)\s+wed|gots?\s+hitched|gots?\s+married|(?:were|are|am|just|now)\s+married|married\s+(?:now|at|in|on|last|this|as\s+of|since)|(?:I|we)\s+married|mr\s+and\s+mrs|nikah\s+done|said\s+(?:I|we)\s+do|wedding\s+was)\b/giu, arg: "fixed", value: "married" },
  { slot: "relationship", re: /\b(?:is|['’]s)\s+my\s+(?:wife|husband)\s+now\b|\bmy\s+(?:wife|husband)\s+now\b|\bmr\s+(?:and|&)\s+mrs\b/giu, arg: "fixed", value: "married", anyActor: true },
  { slot: "relationship", re: /\bmarried\s+to\b|^married\b|\ba\s+married\s+(?:woman|man|person|lady|couple)\b/giu, arg: "fixed", value: "married" },
  { slot: "relationship", re: /\ba\s+divorced\s+(?:woman|man|person|lady|dad|mum|mom)\b/giu, arg: "fixed", value: "divorced" },
  { slot: "relationship", re: /^single\b|\ba\s+single\s+(?:dad|mum|mom|parent|father|mother)\b/giu, arg: "fixed", value: "single" },
  { slot: "relationship", re: /\b(?:have|has|had)\s+been\s+(?:dating|seeing\s+each\s+other|together)\b|\bhave\s+(?:a\s+)?(?:boyfriend|girlfriend)\b|\b(?:are|am)\s+(?:properly\s+)?(?:going\s+out|together)\b/giu, arg: "fixed", value: "in a relationship" },
  { slot: "relationship", re: /\b(?:I|we)\s+said\s+yes\b/gu, arg: "fixed", value: "engaged", anyActor: true },
  { slot: "relationship", re: /\b(?:she|he|they)\s+said\s+yes\b|\b(?:is|['’]s)\s+my\s+fianc[eé]e?\b|\bmy\s+fianc[eé]e?\s+now\b/giu, arg: "fixed", value: "engaged", anyActor: true },
  { slot: "relationship", re: /\b(?:got|gots|are|am|just|now)\s+engaged\b|\bpopped\s+the\s+question\b/giu, arg: "fixed", value: "engaged" },
  { slot: "relationship", re: /\b(?:divorced|divorce\s+(?:papers|came\s+through|is\s+final|went\s+through)|decree\s+absolute)\b|\b(?:finali[sz]ed|got|had|signed)\s+(?:the|our|my)\s+divorce\b/giu, arg: "fixed", value: "divorced" },
  { slot: "relationship", re: /\blost\s+(?:my\s+(?:wife|husband|partner)|\p{Lu}\p{Ll}+)\s+(?:in|last|this|on|to)\b/gu, arg: "fixed", value: "widowed" },
  { slot: "relationship", re: /\b(?:separated|split\s+up|split|broke\s+up|broken\s+up|we\s+are\s+done|not\s+together\s+any\s?more|single\s+again|(?:I\s+am|am)\s+(?:now\s+)?single)\b/giu, arg: "fixed", value: "single" },
  { slot: "relationship", re: /\bmy\s+(?:late\s+)?(?:wife|husband|partner)\s+(?:has\s+)?(?:passed|died)\b/giu, arg: "fixed", value: "widowed", anyActor: true },
  { slot: "relationship", re: /\b(?:widow(?:er|ed)?|lost\s+my\s+(?:wife|husband|partner)|(?:wife|husband|partner)\s+passed(?:\s+away)?)\b/giu, arg: "fixed", value: "widowed", anyActor: false },
  { slot: "relationship", re: /\b(?:got|have|found)\s+(?:a\s+|my\s+)?(?:gf|bf|girlfriend|boyfriend|partner)\b|\bmet\s+someone\b|\b(?:am|are)\s+(?:now\s+)?(?:seeing\s+someone|dating|in\s+a\s+relationship)\b/giu, arg: "fixed", value: "in a relationship" },
  // name
  { slot: "name", re: new RegExp(`\\b(?:I\\s+am|I\\s+have\\s+become|became|become)\\s+(?:now\\s+)?(?:(?:officially|legally|finally)\\s+)?(?<v>${CAP}(?:\\s+${CAP}){1,2})`, "gu"), arg: "ownName" },
  { slot: "name", re: new RegExp(`\\bchanged\\s+my\\s+name(?:\\s+(?:properly|officially|legally))?\\s+to\\s+(?<v>${NAMED})`, "gu"), arg: "name" },
  { slot: "name", re: new RegExp(`\\btook\\s+(?:the\\s+)?(?<v>${CAP}|wife|husband)(?:['’]s)?\\s+(?:surname|name|last\\s+name)`, "gu"), arg: "name" },
  { slot: "name", re: new RegExp(`\\btook\\s+(?:his|her|their)\\s+(?:surname|name|last\\s+name)`, "giu"), arg: "fixed", value: "a new surname" },
  { slot: "name", re: new RegExp(`\\b(?:both\\s+)?took\\s+(?<v>${CAP})\\b`, "gu"), arg: "name" },
  { slot: "name", re: new RegExp(`\\b(?:go|going)\\s+by\\s+(?<v>${CAP}(?:\\s+${CAP})?)(?:\\s+now)?`, "gu"), arg: "name" },
  { slot: "name", re: new RegExp(`\\bcalls?\\s+me\\s+(?<v>${CAP})`, "gu"), arg: "name", anyActor: true },
  { slot: "name", re: new RegExp(`\\b(?:[Ii]t\\s+is|[Ii]ts|[Ii]t['’]s)\\s+(?:Mrs?\\s+|Ms\\s+|Dr\\s+)?(?<v>${CAP}(?:\\s+${CAP}){0,2}|\\p{Ll}[\\p{L}'’-]+)\\s+(?:now|on\\s+everything|from\\s+now|officially)\\b`, "gu"), arg: "name", anyActor: true },
  { slot: "name", re: new RegExp(`\\b(?:(?<!\\b(?:moved|moving|move|relocated|headed|came|coming|flew|flown|shifted|drove|driving)\\b[^.!?]*)back\\s+to|reverted\\s+to\\s+(?:my\\s+)?(?:maiden\\s+name,?\\s+)?|use\\s+my\\s+[\\p{L}]+\\s+name,?)\\s*(?<v>${CAP}(?:\\s+${CAP})?)`, "gu"), arg: "name" },
  { slot: "name", re: new RegExp(`^(?<v>${CAP}(?:\\s+${CAP})?)\\s+(?:now|on\\s+(?:all\\s+)?(?:the\\s+)?(?:forms|everything|my\\s+\\w+))\\b`, "gu"), arg: "name", fragment: true },
  { slot: "name", re: new RegExp(`\\b(?:Mrs|Mr|Ms|Miss|Dr)\\.?\\s+(?<v>${CAP}(?:\\s+${CAP})?)\\s+(?:now|from\\s+now|officially)\\b`, "gu"), arg: "name" },
  // states a stored fact holds (first turns): "Name's Mike Brennan", "I'm Tobias", "Gareth Price here"
  { slot: "name", re: new RegExp(`(?:^|\\b[Mm]y\\s+)(?:[Nn]ame\\s+is|[Nn]ame['’]s)\\s+(?<v>${CAP}(?:\\s+${CAP}){0,2})`, "gu"), arg: "name", anyActor: true },
  { slot: "name", re: new RegExp(`^(?:I\\s+am|this\\s+is)\\s+(?<v>(?:Mrs?\\s+|Ms\\s+|Dr\\s+)?\\p{L}[\\p{L}'’-]*(?:\\s+${CAP}){0,2})(?=\\s*(?:[,.!;]|$|and\\b))`, "gu"), arg: "name", anyActor: true },
  { slot: "name", re: new RegExp(`^(?<v>${CAP}(?:\\s+${CAP}){0,2})\\s+here\\b`, "gu"), arg: "name", fragment: true },
  // fragments of state with no verb (a first turn such as "SWE at Stripe.", "Location: Berlin.")
  { slot: "works_at", re: new RegExp(`^(?:currently\\s+)?(?:an?\\s+)?[\\p{L}-]+(?:\\s+[\\p{L}-]+){0,2}\\s+(?:at|for)\\s+(?<v>${NAMED})`, "gu"), arg: "org", fragment: true },
  { slot: "job", re: new RegExp(`^(?:currently\\s+)?(?:an?\\s+)?(?<v>[\\p{L}-]+(?:\\s+[\\p{L}-]+){0,2}?)(?=\\s+(?:at|with|for)\\s|\\s*$)`, "giu"), arg: "role", fragment: true },
  { slot: "lives_in", re: new RegExp(`^(?:location|based|home|city|living)\\s*:?\\s*(?:in\\s+)?(?<v>${NAMED})`, "gu"), arg: "place", fragment: true },
  { slot: "lives_in", re: new RegExp(`^(?<v>${NAMED})$`, "gu"), arg: "place", fragment: true },
];

// People other than the speaker: "my sister", "our neighbours", "his", "everyone".
const KIN =
  "(?:(?:[\\p{L}-]+\\s+)?(?:mother|mum|mom|mam|maw|father|dad|sister|brother|sibling|son|daughter|wife|husband|hubby|partner|boyfriend|girlfriend|bf|gf|fianc\\w*|boss|manager|friend|mate|colleague|coworker|co-worker|cousin|aunt|auntie|uncle|niece|nephew|grand\\w+|neighbou?r|flatmate|roommate|housemate|kids?|children|parents?|in-laws|family|ex|landlord|landlady|bestie|bff)s?)";
const OTHER_SUBJECT = new RegExp(
  `^(?:he|she|they|his|her|their|my\\s+${KIN}(?!\\s+(?:and|&)\\s+(?:I|me)\\b)|our\\s+(?!family\\b|household\\b)${KIN}|everyone|everybody|people|nobody|someone|somebody|a\\s+friend|a\\s+mate|the\\s+${KIN})\\b`,
  "iu",
);
const SPEAKER_SUBJECT =
  /^(?:I|we|us|me\s+(?:and|n|&)\s+[\p{L}-]+|(?:my|our)\s+(?:[\p{L}-]+\s+)?(?:and|&)\s+(?:I|me)|[\p{L}-]+\s+(?:and|&)\s+(?:I|me)|(?:our|the)\s+(?:family|household|whole\s+family)|hubby\s+and\s+I|both\s+of\s+us)\b/iu;
const FILLER =
  /^(?:(?:so|well|and|but|then|also|anyway|finally|officially|just|update|small\s+update|quick\s+one|plans\s+change|big\s+news|good\s+news|news|yes|yeah|ok|okay|oh|lol|haha|honestly|actually|to\s+update\s+you|just\s+to\s+update\s+you)\b[\s,:!.\-–—]*)+/iu;

/** The clauses of a sentence: split at punctuation, dashes and clause-joining "and/but/so". */
export function clausesOf(sentence: string): string[] {
  return sentence
    .split(/\s*(?:[,;:!?]+|\s[-–—]+\s|\.(?:\s+|$)|\s+(?:and|but|so|then|because|cause|after|before|since)\s+(?=(?:I|we|he|she|they|my|our|now|just|joined|left|quit|moved|started|got|took|went)\b))\s*/u)
    .map((c) => c.trim())
    .filter((c) => c !== "");
}

const BARE_NOUN = /^(?:home|work|life|everything|nothing|money|school|uni|college|business|love|marriage|retirement|relationship|status|location|name|job|update|news)$/i;

/** The actor of one clause, with the sentence's previous actor for clauses that start with a verb. */
export function actorOf(clause: string, selfNames: readonly string[], previous: Actor | null): Actor {
  const c = clause.replace(FILLER, "").trim();
  if (c === "") return previous ?? "speaker";
  if (SPEAKER_SUBJECT.test(c)) return "speaker";
  for (const n of selfNames) if (n !== "" && new RegExp(`^${escape(n)}(?:['’]s)?\\b`, "iu").test(c)) return "speaker";
  if (OTHER_SUBJECT.test(c)) return "other";
  const parsed = parse(c);
  const first = parsed.first;
  if (!first) return previous ?? "speaker";
  // A clause opening with a verb or an adverb continues the last actor, or is the implied speaker.
  const continued: Actor = previous === "other" ? "other" : "speaker";
  if (first.tags.includes("Verb") || first.tags.includes("Adverb") || /ed$/i.test(first.text)) return continued;
  const hasVerb = parsed.hasVerb;
  // A noun phrase alone is a fragment of the speaker's ("Backend dev.", "Malmö now", "Dlamini on all the forms now").
  if (!hasVerb) return continued;
  // Someone or something named ("Rhys has moved to Cardiff", "Marco proposed") is not the speaker.
  if (["Person", "Pronoun", "ProperNoun", "Organization", "Place"].some((t) => first.tags.includes(t))) return "other";
  // A bare capitalised word as subject is a name ("Rhys has moved"), unless a noun English uses bare ("Home is Sydney now").
  if (/^\p{Lu}/u.test(first.text) && first.tags.includes("Noun") && !BARE_NOUN.test(first.text)) return "other";
  // A noun phrase followed by a verb is someone or something else ("The match worked out"),
  // unless the speaker is in it ("The wee cottage on Skye is where I hang my hat").
  if (/\b(?:I|me|my|we|us|our)\b/.test(c)) return "speaker";
  // A thing as subject with no one else in the clause ("Home is Sydney now") is the speaker's, in a first-person chat turn.
  return mentionsOthers(c) ? "unknown" : "speaker";
}

/**
 * True for a clause whose subject is a thing of the speaker's ("My flat's in Belfast", "Our house
 * needs a roof", "My employer is Kone"): "my" or "our" before a word that is not a kin or people
 * word. Such a clause tells of the speaker's own life, not someone else's news.
 */
export function speakersThing(clause: string): boolean {
  const c = clause.replace(FILLER, "").trim();
  return /^(?:my|our)\s/iu.test(c) && !OTHER_SUBJECT.test(c) && !SPEAKER_SUBJECT.test(c);
}

const OTHERS_NAMED = new RegExp(`\\b(?:he|she|they|his|her|their|him|them|${KIN})\\b`, "iu");

/** True when a text speaks of someone other than the speaker (a kin or people word, a third-person pronoun). */
export function mentionsOthers(text: string): boolean {
  return OTHERS_NAMED.test(text);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function shownOf(raw: string): string {
  return raw.trim().replace(/^(?:the|an?)\s+/iu, "").replace(/[.,!]+$/u, "");
}

function normalise(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/['’]s$/u, "")
    .replace(/^(?:the|an?)\s+/, "")
    .replace(/\s+(?:now|too|full\s+time|these\s+days|for\s+good|since|in|on|at|with|for|from|and|as|of)$/u, "")
    .replace(/[.,'’!]+$/u, "")
    .replace(/\s+/g, " ")
    .trim();
}

// Heads of job titles compromise does not tag as an occupation ("Backend dev", "SWE", "porter").
const OCCUPATION_HEAD = new RegExp(`(?:^|\\s)(?:dev|swe|sre|pm|porter|${OCCUPATIONS})$`, "iu");
const ORG_CUE = /\b(?:over\s+to|transferred|team|office|brand|department|ward|unit|icu|company|firm|bank|store|branch|studio|agency|['’]s\s+\p{L})/iu;
// A name whose head is an institution ("Aga Khan Hospital", "Riverside Academy") is a workplace, not a home.
const ORG_HEAD = /\s(?:hospital|clinic|school|academy|university|college|institute|bank|council|ministry|agency|group|ltd|limited|inc|plc|corp|company|hq|plant|factory|studio|labs?)$/iu;
const ROLE_STOP = /\s+(?:at|for|in|with|on|from|and|but|now|since|when|after|because|so|to|by|as|this|last|which|who|,).*$/iu;
const NOT_ROLE = /^(?:bit|lot|little|mess|fan|mum|mom|dad|mate|bro|love|babe|lad|guy|girl|someone|somebody|everyone|single|widow(?:er)?|married|engaged|divorced|parisian|local|new\s+person|different\s+person|happy|good|great|fine|same)\b/i;

function knownPlace(text: string): boolean {
  return parse(text).places;
}

function isCapitalised(text: string): boolean {
  return /^(?:the\s+)?\p{Lu}/u.test(text);
}

/** The value a frame's argument gives, or null when the argument is not of its kind. */
function argument(frame: Frame, raw: string, clause: string, old: string, selfNames: readonly string[]): { slot: SlotName; value: string; shown: string } | null {
  const found = readArgument(frame, raw, clause, old, selfNames);
  return found ? { ...found, shown: found.shown ?? found.value } : null;
}

function readArgument(frame: Frame, raw: string, clause: string, old: string, selfNames: readonly string[]): { slot: SlotName; value: string; shown?: string } | null {
  let v = raw
    .trim()
    .replace(/\s+(?:now|too|full\s+time|these\s+days|for\s+good)$/iu, "")
    .replace(/\s+(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|Q[1-4])\b.*$/u, "");
  switch (frame.arg) {
    case "fixed":
      return { slot: frame.slot, value: frame.value ?? "" };
    case "place":
      v = v.replace(/\s+(?:for|in|on|at|with|and|but|since|from|to|after|last|this|over|two|three|the)(?:\s.*)?$/iu, "");
      if (!(isCapitalised(v) || knownPlace(v))) return null;
      if (!isCapitalised(v) && !/\b(?:now|behind)\b/i.test(clause) && frame.fragment) return null;
      if (frame.fragment && !knownPlace(v)) return null;
      if (frame.ended && !knownPlace(v) && !/\bbehind\b/i.test(clause)) return null;
      return { slot: "lives_in", value: normalise(v), shown: shownOf(v) };
    case "placeOrOrg":
      v = v.replace(/\s+(?:for|in|on|at|with|and|but|since|from|to|after|last|this|over|now)(?:\s.*)?$/iu, "");
      if (!isCapitalised(v)) return null;
      return knownPlace(v) || (old !== "" && knownPlace(old)) ? { slot: "lives_in", value: normalise(v), shown: shownOf(v) } : { slot: "works_at", value: normalise(v.replace(/['’]s\b.*$/u, "")), shown: shownOf(v) };
    case "org":
    case "orgOrPlace": {
      v = v.replace(/\s+(?:for|in|on|at|with|and|but|since|from|to|after|last|this|over|as|the|brand|team|office|side)(?:\s.*)?$/iu, "");
      v = v.replace(/['’]s\b.*$/u, "");
      if (v === "" || /^(?:a|an|and|or|my|our|his|her|the|it|that|this|work|home|bed|school|uni|there|here|first|last|same|new|everything|weekends?|nights?|days?|christmas|easter|night|least)$/i.test(v)) return null;
      // "with Leila" is a person, not an employer.
      if (frame.arg === "org" && !frame.ended && new RegExp(`\\bwith\\s+${escape(raw.trim())}`, "u").test(clause) && parse(v).people) return null;
      const place = knownPlace(v);
      if (frame.arg === "orgOrPlace") {
        if (place) return { slot: "lives_in", value: normalise(v), shown: shownOf(v) };
        // "moved from Google to Meta": a move away from something that is not a place is a change of employer.
        const from = /\bfrom\s+(\p{Lu}[\p{L}'’&.-]*(?:\s+\p{Lu}[\p{L}'’&.-]*)*)\s+to\b/u.exec(clause);
        if (from && !knownPlace(from[1]) && isCapitalised(v)) return { slot: "works_at", value: normalise(v), shown: shownOf(v) };
        if (!isCapitalised(v)) return null;
        // An unknown name after a move is a place ("headed up to Cairns") unless the clause speaks of work.
        if (!ORG_CUE.test(clause) && !ORG_HEAD.test(v)) return { slot: "lives_in", value: normalise(v), shown: shownOf(v) };
        return { slot: "works_at", value: normalise(v), shown: shownOf(v) };
      }
      if (place && frame.slot === "works_at" && !frame.fragment && !/\b(?:joined|hired|work|employ|badge|notice|redundan|company|(?:took|taken|signed|picked|snapped)\s+me|[a-z]+ed\s+by)/i.test(clause)) return null;
      if (!isCapitalised(v) && !/\bnow\b/i.test(clause) && !frame.ended) return null;
      return { slot: "works_at", value: normalise(v), shown: shownOf(v) };
    }
    case "role": {
      v = v.replace(ROLE_STOP, "").replace(/^(?:an?|the|actual|full-time|part-time|fully)\s+/iu, "");
      if (v === "" || NOT_ROLE.test(v)) return null;
      if (frame.fragment || frame.strictRole) {
        // A fragment is a job only when compromise reads an occupation in it ("Engineering manager now.").
        const tags = parse(v).tags;
        if (!tags.includes("Actor") && !OCCUPATION_HEAD.test(v)) return null;
      }
      return { slot: "job", value: normalise(v), shown: shownOf(v) };
    }
    case "ownName": {
      if (/['’]s$/u.test(v)) return null;
      const own = selfNames.some((n) => n !== "" && new RegExp(`^${escape(n.split(/\s+/u)[0])}\\s`, "iu").test(v));
      return own ? { slot: "name", value: normalise(v), shown: shownOf(v) } : null;
    }
    case "name": {
      // An organisation is not a name ("General Motors now."): the value's kind decides the slot.
      if (frame.fragment && parse(v).tags.includes("Organization")) return { slot: "works_at", value: normalise(v), shown: shownOf(v) };
      if (/^(?:wife|husband)$/i.test(v)) return { slot: "name", value: "a new surname" };
      if (/^(?:I|It|The|A|My|Our|Mrs?|Ms|Dr|Mr)$/u.test(v) || (frame.fragment && knownPlace(v))) return null;
      if (!isCapitalised(v)) {
        if (!parse(v).people) return null;
      }
      return { slot: "name", value: normalise(v.replace(/^(?:Mrs?|Ms|Dr)\s+/u, "")), shown: shownOf(v.replace(/^(?:Mrs?|Ms|Dr)\s+/u, "")) };
    }
  }
}

/**
 * The slot values a sentence gives the speaker, by the event frames, each with subject "I"
 * (`ended` when the speaker leaves the value: "left Tesco", "Phoenix is behind us").
 * `selfNames` are the speaker's names; a clause about anyone else gives nothing.
 */
export function speakerEvents(sentence: string, selfNames: readonly string[]): SpeakerEvent[] {
  const out: SpeakerEvent[] = [];
  const asked = modalityOf(sentence) === "question";
  // "we're" (and chat's "were" opening a sentence: "were moving to Leeds") is "we are"; "we were" stays past.
  const text = expandContractions(capitaliseI(sentence)).replace(/\bim\b/g, "I am").replace(/\bwe['’]re\b|^were\b(?=\s+(?:moving|going|getting|not|now|in|at|back|off|engaged|married|together|expecting|done|official)\b)/giu, "we are");
  // Each clause with its actor; the frames run over the clauses joined again (a frame may span a
  // comma: "reverted to my maiden name, Margaret Price"), and a match takes the actor of the clause it starts in.
  const clauses: { body: string; actor: Actor; start: number; fragment: boolean; actual: boolean }[] = [];
  let previous: Actor | null = null;
  let offset = 0;
  // A condition ("if I got the posting, …", "when I'm 18 …") makes the clauses after it unreal too.
  let conditioned = false;
  for (const clause of clausesOf(text)) {
    const actor = actorOf(clause, selfNames, previous);
    previous = actor;
    const body = lowerFirstWord(clause.replace(FILLER, "").trim());
    if (body === "") continue;
    const mood = modalityOf(body);
    if (mood !== "actual" && mood !== "negated" && /^(?:if|unless|when|once|in\s+case|suppose|imagine)\b/i.test(body)) conditioned = true;
    const actual = !asked && !conditioned && mood === "actual";
    clauses.push({ body, actor, start: offset, fragment: !/\b(?:I|we|me|my|our|us)\b/i.test(body) && actor !== "other", actual });
    offset += body.length + 2;
  }
  const whole = clauses.map((c) => c.body).join(", ");
  const add = (frame: Frame, raw: string, context: string, actual: boolean, oldValue = "") => {
    const found = argument(frame, raw, context, oldValue, selfNames);
    if (!found || found.value === "") return;
    const ended = frame.ended ?? false;
    if (out.some((o) => o.slot === found.slot && o.value === found.value && !o.ended === !ended)) return;
    out.push({ slot: found.slot, value: found.value, subject: "I", actual, shown: found.shown, ...(ended ? { ended: true } : {}) });
  };
  for (const frame of FRAMES) {
    if (frame.fragment) {
      for (const c of clauses) {
        if (!c.fragment) continue;
        for (const m of stripSelfName(c.body, selfNames).matchAll(frame.re)) add(frame, m.groups?.v ?? "", c.body, c.actual);
      }
      continue;
    }
    for (const m of whole.matchAll(frame.re)) {
      const at = m.index ?? 0;
      const c = [...clauses].reverse().find((x) => x.start <= at);
      if (!c) continue;
      if (!frame.anyActor && c.actor !== "speaker") continue;
      add(frame, m.groups?.v ?? "", c.body, c.actual, m.groups?.old ?? "");
    }
  }
  return out;
}

/** Lower-cases a clause's capitalised first word unless compromise reads it as a name ("Left Tesco" → "left Tesco"). */
function lowerFirstWord(clause: string): string {
  const m = /^(\p{Lu}\p{Ll}+)\b/u.exec(clause);
  if (!m) return clause;
  const tags = parse(clause).first?.tags ?? [];
  if (tags.some((t) => t === "ProperNoun" || t === "Place" || t === "Person" || t === "Organization" || t === "Pronoun")) return clause;
  if (!tags.some((t) => ["Verb", "Adverb", "Adjective", "Determiner", "Preposition", "Conjunction"].includes(t))) return clause;
  return m[1].toLowerCase() + clause.slice(m[1].length);
}

/** "Mei here, and Mei is …" → the clause without the speaker's own name as its subject. */
function stripSelfName(clause: string, selfNames: readonly string[]): string {
  let c = clause;
  for (const n of selfNames) if (n !== "") c = c.replace(new RegExp(`^${escape(n)}\\s+(?:is|has)\\s+(?:now\\s+)?`, "iu"), "");
  return c;
}

/** A stored fact's text as the speaker said it: "Maya said: …" and "Maya is …" read as the speaker's. */
export function storedSpeakerEvents(text: string, selfNames: readonly string[]): SpeakerEvent[] {
  return storedMemo(`${selfNames.join("\u0001")}\u0000${text}`);
}

const storedMemo = memo((key: string): SpeakerEvent[] => {
  const [names, text] = key.split("\u0000");
  return readStored(text, names === "" ? [] : names.split("\u0001"));
});

function readStored(text: string, selfNames: readonly string[]): SpeakerEvent[] {
  let t = text.trim();
  for (const n of selfNames) {
    if (n === "") continue;
    t = t.replace(new RegExp(`^${escape(n)}\\s+said:\\s*`, "iu"), "");
    t = t.replace(new RegExp(`(^|[,.;]\\s*|\\band\\s+)${escape(n)}\\s+is\\b`, "giu"), "$1I am");
    t = t.replace(new RegExp(`(^|[,.;]\\s*|\\band\\s+)${escape(n)}\\s+(works|lives|drives|does)\\b`, "giu"), (_m, p: string, verb: string) => `${p}I ${verb.replace(/s$/u, "")}`);
    t = t.replace(new RegExp(`\\b${escape(n)}['’]s\\b`, "gu"), "my");
    t = t.replace(new RegExp(`\\b(and|&)\\s+${escape(n)}\\b`, "gu"), "$1 I");
    t = t.replace(new RegExp(`\\b([Cc]alls?)\\s+${escape(n)}\\s+(?=\\p{Lu})`, "gu"), "$1 me ");
    t = t.replace(new RegExp(`^${escape(n)}\\s+(?=currently\\b|now\\b|married\\b|single\\b)`, "iu"), "");
  }
  t = t.replace(/^the user\s+said:\s*/iu, "");
  return speakerEvents(t, selfNames);
}

/**
 * A plain statement of the state the speaker's actual events give, for the stored fact to stand
 * alone in Search: "We tied the knot in June!" → "Emma is married."; "Malmö now." → "Emma lives in
 * Malmö." Values the fact text already holds are not restated; "" when nothing is left.
 */
export function restatement(events: readonly SpeakerEvent[], subject: string, factText: string): string {
  const lower = factText.toLowerCase();
  const parts: string[] = [];
  const seen = new Set<SlotName>();
  for (const e of [...events].reverse()) {
    if (!e.actual || e.ended || seen.has(e.slot)) continue;
    seen.add(e.slot);
    if (lower.includes(e.shown.toLowerCase())) continue;
    const v = e.shown;
    if (e.slot === "lives_in") parts.push(`${subject} lives in ${v}`);
    else if (e.slot === "works_at") parts.push(`${subject} works at ${v}`);
    else if (e.slot === "job") parts.push(`${subject} works as ${/^[aeiou]/i.test(v) ? "an" : "a"} ${v}`);
    else if (e.slot === "relationship") parts.push(`${subject} is ${v}`);
    else if (e.slot === "name" && v !== "a new surname") parts.push(`${subject}'s name is ${v}`);
  }
  return parts.length === 0 ? "" : `${parts.reverse().join("; ")}.`;
}
