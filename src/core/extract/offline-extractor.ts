import { findDates, formatPlainDate, type NamedDate, startOfUtcDay } from "./dates.js";
import { namesIn } from "./entities.js";
import { keepForStrategies, type Strategy } from "./extractor-prompt.js";
import { classifyFact } from "./fact-rules.js";
import { capitaliseI, firstPersonStatement, speakerView, splitSentences, stripFiller, toThirdPerson, withImpliedSpeaker, wordCount } from "./first-person.js";
import { actorOf, clausesOf, restatement, type SpeakerEvent, speakerEvents, speakersThing, storedSpeakerEvents } from "./change-events.js";
import { modalityOf } from "./modality.js";
import type { ProposedFact } from "./proposed-fact.js";
import type { NotCurrentCategory } from "../fact-search.js";
import { conflictingSlots, findSlots, isSelf, type SlotName, type SlotValue } from "./slots.js";

/** What the offline extractor reads. */
export interface OfflineInput {
  messages: readonly { id: string; role: string; name: string; content: string }[];
  observedAt: number;
  /** Stored open facts that a new fact may supersede (by slot). */
  storedFacts: readonly { id: string; text: string }[];
  strategies: readonly Strategy[];
  /**
   * Slots by meaning, with a semantic embedder: of the statement sentences (keyed by
   * `statementSentences` text) and of the stored facts (by id). Absent with the `hash` embedder.
   */
  meaning?: SlotMeaning;
}

/** Slots judged by meaning, computed outside the (pure) extractor. */
export interface SlotMeaning {
  sentences: ReadonlyMap<string, SlotName>;
  /** Every slot a stored fact speaks of by meaning (`slotsByMeaning`). */
  stored: ReadonlyMap<string, readonly SlotName[]>;
}

const RECURRING = /\b(?:birthday|anniversary|every|each|annual|yearly)\b/i;
const PAST = /\b(?:was|were|did|had|went|moved|got|started|finished|visited|met|bought|left|joined|graduated|adopted|married|ed)\b|\w+ed\b/i;
const JUST_NOW = /\b(?:just|today|this\s+morning|this\s+afternoon|this\s+evening|tonight|earlier\s+today)\b/i;
const MAX_FACTS = 30;

/** The world date of a sentence: a named date, or the observation day for "just" / "today". */
function eventDateOf(sentence: string, dates: readonly NamedDate[], observedAt: number): number | null {
  const d = dates[0];
  if (d) {
    if (!d.yearKnown && RECURRING.test(sentence)) return null;
    if (!d.yearKnown && d.start > observedAt && PAST.test(sentence)) {
      const back = new Date(d.start);
      back.setUTCFullYear(back.getUTCFullYear() - 1);
      return back.getTime();
    }
    return d.start;
  }
  return JUST_NOW.test(sentence) ? startOfUtcDay(observedAt) : null;
}

/** Replaces a relative date ("yesterday") in the fact with the date it means, so the text stands alone. */
function absoluteDates(text: string, dates: readonly NamedDate[]): string {
  let out = text;
  for (const d of dates) {
    if (d.absolute) continue;
    const plain = formatPlainDate(d.start);
    const phrase =
      /week/i.test(d.text) ? `in the week of ${plain}` : d.granularity === "day" ? `on ${plain}` : d.granularity === "month" ? `in ${plain.replace(/ \d+,/, "")}` : `in ${new Date(d.start).getUTCFullYear()}`;
    const at = out.toLowerCase().indexOf(d.text.toLowerCase());
    if (at >= 0) out = out.slice(0, at) + phrase + out.slice(at + d.text.length);
  }
  return out[0].toUpperCase() + out.slice(1);
}

/** Entities of a fact: names in the original sentence and in the fact, and the speaker. */
function entitiesOf(original: string, fact: string, subject: string): string[] {
  const names = namesIn(`${original}\n${fact}`);
  if (subject !== "the user" && !names.some((n) => n.toLowerCase() === subject.toLowerCase())) names.push(subject);
  return names;
}

/** The sentences of a user turn the extractor reads, as it reads them (filler stripped, implied speaker added). */
export function statementSentences(content: string): string[] {
  return splitSentences(capitaliseI(content)).map((raw) => withImpliedSpeaker(stripFiller(raw)));
}

// A statement of change: only such a statement may close a fact on meaning alone. Besides words of
// change, the aspect of a new state: a start point ("since March", "as of Friday", "from January")
// or a completion marker ("already", "finally", "officially").
const CHANGE =
  /\b(?:since|as\s+of|from\s+(?:(?:this|last|next)\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|now|spring|summer|autumn|fall|winter)|already|finally|officially|moved|moving|relocat\w*|left|leaving|joined|started|start|new|now|quit|promot\w*|became|become|retir\w*|qualified|married|engaged|divorced|split|broke\s+up|single|widow\w*|proposed|said\s+yes|changed|switched|took|escaped|packed|gave\s+up|transferred|hired|no\s+longer|any\s?more|reverted|upgraded|retrained|walked\s+away|hitched|tied\s+the\s+knot|shifted|swapped|headed|(?:moved|went|switched)\s+over|got\s+on|handed\s+in|gone\s+back|back\s+(?:at|to|in)|these\s+days|no\s+more|fianc[eé]e?|widower|sold|made\s+it\s+(?:down|up|over|out)|off\s+the\s+market|redundan\w*|defended|passed)\b/i;
const SPEAKER_FIRST =
  /^\W*(?:(?:so|well|and|but|finally|update|quick\s+one|honestly|anyway|plans\s+change|big\s+news)\W+)*(?:I\b|we\b|me\s+(?:and|n|&)\s|\p{Lu}[\p{L}-]*\s+and\s+(?:I|me)\b)/iu;
const WORK = new Set<SlotName>(["works_at", "job"]);
const SPEAKER_OBJECT = /\b(?:made|moved|promoted|hired|transferred|let|took|offered)\s+me\b/i;

/** True when the sentence's actor is the speaker ("I …", "we …", "me and Funmi …", "they promoted me"). */
function speakerActs(sentence: string, selfNames: readonly string[]): boolean {
  if (SPEAKER_FIRST.test(sentence) || SPEAKER_OBJECT.test(sentence)) return true;
  return selfNames.some((n) => sentence.trim().toLowerCase().startsWith(n.toLowerCase()));
}

/** The actor of a sentence's first clause by the change grammar (the speaker, someone else, or unknown). */
function sentenceActor(sentence: string, selfNames: readonly string[]) {
  const [first] = clausesOf(sentence);
  return first ? actorOf(first, selfNames, null) : "unknown";
}

/**
 * True when a sentence is someone else's news: its first clause's actor is another person, not a
 * thing of the speaker's. Only the filing reads `speakersThing`; the change grammar's `actorOf`
 * keeps "my/our + thing" as another actor ("My company moved to Leeds" is not the speaker's move):
 * reading it as the speaker there closed 4 more tune negatives for 1 more positive (round 10).
 */
function aboutOthers(sentence: string, selfNames: readonly string[]): boolean {
  if (speakerActs(sentence, selfNames) || namesSpeaker(sentence, selfNames)) return false;
  const [first] = clausesOf(sentence);
  return first !== undefined && !speakersThing(first) && actorOf(first, selfNames, null) === "other";
}

/** True for a statement about the speaker by their own name ("Gwen has officially moved to Cardiff!"). */
function namesSpeaker(sentence: string, selfNames: readonly string[]): boolean {
  const s = sentence.trim();
  if (s.endsWith("?") || wordCount(s) < 3) return false;
  return selfNames.some((n) => new RegExp(`^${n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "u").test(s));
}

const CONDITION = /^\W*(?:if|unless|suppose|supposing|imagine|in\s+case)\b/i;

/** How a statement stands to the speaker's present: current, or filed under a not-current category. */
export function standingOf(sentence: string, selfNames: readonly string[]): "current" | NotCurrentCategory {
  const mood = modalityOf(sentence);
  // A condition makes the whole sentence unreal, denial or not ("If I marry Tom I'm not taking his name").
  if (CONDITION.test(sentence)) return "hypothetical";
  // A change denied ("We're not getting divorced", "I'm not leaving Spotify") tells nothing new.
  if (mood === "negated" && CHANGE.test(sentence)) return "denied";
  if (mood === "future") return "plan";
  if (mood === "hypothetical" || mood === "question") return "hypothetical";
  if (mood === "past") return "past";
  if (mood === "temporary") return "temporary";
  if (aboutOthers(sentence, selfNames)) return "about_others";
  return "current";
}

/** A stored fact's text without the speaker's name as its subject ("Kai said: …", "Kai is …"). */
function withoutSpeaker(text: string, selfNames: readonly string[]): string {
  let t = text;
  for (const n of selfNames) t = t.replace(new RegExp(`^${n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:['’]s)?\\b(?:\\s+said:)?`, "iu"), "");
  return t;
}

const BOND = new Set(["married", "engaged", "in a relationship"]);
const CAPITALISED = /\p{Lu}[\p{Ll}'’-]+/gu;
const NOT_A_NAME = new Set(["The", "A", "An", "We", "My", "Our", "So", "And", "But", "Just", "Me", "Now", "Then", "Well"]);

/**
 * True when the statement tells of a bond with the very person the stored fact says the speaker
 * lost ("I'm a widow, Eric died" — "Eric and I were engaged for six years before we married"):
 * the past of that bond, not a new one. Only for a stored "widowed": a divorce may be undone.
 */
function pastOfEndedBond(sentence: string, next: readonly SlotValue[], stored: { text: string; slots: SlotValue[] }, selfNames: readonly string[]): boolean {
  if (!stored.slots.some((x) => x.slot === "relationship" && x.value === "widowed" && isSelf(x.subject, selfNames))) return false;
  if (!next.some((x) => x.slot === "relationship" && BOND.has(x.value) && isSelf(x.subject, selfNames))) return false;
  const storedNames = new Set(stored.text.match(CAPITALISED) ?? []);
  const self = new Set(selfNames);
  return (sentence.match(CAPITALISED) ?? []).some((n) => !NOT_A_NAME.has(n) && !self.has(n) && storedNames.has(n));
}

/** True when a text names something (a capitalised word past a sentence's start) besides the speaker's own name. */
function namesOtherThanSpeaker(text: string, selfNames: readonly string[]): boolean {
  let t = withoutSpeaker(text, selfNames);
  for (const n of selfNames) t = t.replace(new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:\\s+\\p{Lu}[\\p{L}'’-]*)?`, "gu"), "");
  return /(?<![.!?:]\s*|^\s*)\b(?!I\b)\p{Lu}/u.test(t.trim());
}

/**
 * Stored facts a statement closes by meaning: the statement is actual, tells of a change, its
 * actor is the speaker, and its slot (by meaning or rules) is the stored fact's slot (by rules or
 * meaning), where the rules alone could not decide; a new value the stored fact already holds closes nothing.
 */
function closedByMeaning(
  sentence: string,
  mySlots: readonly SlotValue[],
  stored: readonly { id: string; text: string; slots: SlotValue[] }[],
  input: OfflineInput,
  selfNames: readonly string[],
): string[] {
  const meaning = input.meaning;
  // A word of change is required: without it, naming a new value closed negatives in sets no rule was written for.
  if (!meaning || !CHANGE.test(sentence) || !(speakerActs(sentence, selfNames) || sentenceActor(sentence, selfNames) === "speaker")) return [];
  const newSlots = new Set<SlotName>(mySlots.filter((s) => !s.ended).map((s) => s.slot));
  const meant = meaning.sentences.get(sentence);
  if (meant) newSlots.add(meant);
  const out: string[] = [];
  for (const f of stored) {
    const storedMine = f.slots.filter((s) => isSelf(s.subject, selfNames) && !s.ended);
    const storedSlots = new Set<SlotName>(storedMine.map((s) => s.slot));
    const storedMeant = meaning.stored.get(f.id) ?? [];
    for (const x of storedMeant) storedSlots.add(x);
    for (const slot of newSlots) {
      // Employer and job are told apart poorly by meaning: either one matches the other.
      // Not where the rules read both sides and found different slots (a stored job, a new employer)
      // and the stored fact names nothing that could be an employer (only the speaker's own name).
      const ruled = (x: SlotName) =>
        storedMine.some((s) => s.slot === x) && mySlots.some((s) => s.slot === slot && !s.ended) && !namesOtherThanSpeaker(f.text, selfNames);
      const sameSlot = (x: SlotName) => x === slot || (WORK.has(x) && WORK.has(slot) && (meant === slot || storedMeant.includes(x)) && !ruled(x));
      if (![...storedSlots].some(sameSlot)) continue;
      const oldValues = storedMine.filter((s) => s.slot === slot).map((s) => s.value);
      const newValues = mySlots.filter((s) => s.slot === slot && !s.ended).map((s) => s.value);
      // Both sides known by rules: conflictingSlots has decided already.
      if (oldValues.length > 0 && newValues.length > 0) continue;
      // The stored fact's subject is not its value ("Kai is jayden btw" does not hold "kai").
      const held = withoutSpeaker(f.text, selfNames).toLowerCase();
      if (newValues.some((v) => held.includes(v))) continue;
      out.push(f.id);
      break;
    }
  }
  return out;
}

/**
 * The rules-based extractor for `--llm none`: each first-person statement of a user turn becomes
 * one fact in the third person about the speaker, with dates resolved against `observedAt`,
 * entities from compromise, importance by rules, and supersedes from slot conflicts with the
 * stored facts (only the speaker's own slots). Assistant turns, questions and small talk give none.
 */
export function extractOffline(input: OfflineInput): ProposedFact[] {
  const facts: ProposedFact[] = [];
  for (const message of input.messages) {
    if (message.role !== "user") continue;
    const subject = message.name.trim() !== "" ? message.name.trim() : "the user";
    const selfNames = subject === "the user" ? [] : [subject];
    // Stored slots by the patterns and by the change grammar read as this speaker's.
    const storedSlots = input.storedFacts.map((f) => ({ id: f.id, text: f.text, slots: [...findSlots(f.text), ...storedSpeakerEvents(f.text, selfNames)] }));
    const sentences = statementSentences(message.content);
    const eventsOf = new Map(sentences.map((s) => [s, speakerEvents(s, selfNames)] as const));
    // The turn's new values: a sentence that only leaves a value ("Left Stockholm.") is restated with
    // the value the same turn moves to ("Malmö now."), so either fact answers "where does she live".
    const turnNew = [...eventsOf.values()].flat().filter((e) => e.actual && !e.ended);
    for (const sentence of sentences) {
      // The speaker's life events and states by the change grammar (also in fragments with no subject).
      const events = eventsOf.get(sentence) ?? [];
      const statement = firstPersonStatement(sentence) !== "none" || namesSpeaker(sentence, selfNames);
      if (!statement && (events.length === 0 || modalityOf(sentence) === "question")) continue;
      const dates = findDates(sentence, input.observedAt);
      const said = absoluteDates(toThirdPerson(sentence, subject), dates);
      // Only the speaker's actual events count; their plain restatement lets the fact stand alone.
      const live = events.filter((e) => e.actual);
      const leftSlots = new Set(live.filter((e) => e.ended).map((e) => e.slot));
      const movedTo: SpeakerEvent[] = turnNew.filter((e) => leftSlots.has(e.slot) && !live.some((x) => x.slot === e.slot && !x.ended));
      const plain = restatement([...live, ...movedTo], subject, said);
      const text = plain === "" ? said : `${said.replace(/\s*$/u, "")} (${plain})`;
      // Slots from the fact and from the sentence as the speaker said it ("we moved", "me n Funmi got married").
      const slots: SlotValue[] = [...findSlots(said), ...findSlots(speakerView(sentence)), ...live];
      const mySlots = slots.filter((s) => isSelf(s.subject, selfNames)).map((s) => s.slot);
      const eventDate = eventDateOf(sentence, dates, input.observedAt);
      const cls = classifyFact(text, mySlots, eventDate !== null);
      // A statement that is not the speaker's present (a plan, a wish, a question, the past, a stay,
      // someone else's news) is filed as such, so that Search ranks it below the speaker's current facts.
      const standing = live.length > 0 ? "current" : standingOf(sentence, selfNames);
      if (standing !== "current") cls.category = standing;
      if (!keepForStrategies(cls.factType, input.strategies)) continue;
      // Only what is so now replaces a stored fact: not a plan, a wish, a question or a denial.
      // The patterns need the whole sentence actual; the change grammar judges each clause.
      const actual = modalityOf(sentence) === "actual";
      const next = actual ? slots : live;
      const byRules = storedSlots
        .filter((s) => conflictingSlots(next, s.slots, selfNames).length > 0 && !pastOfEndedBond(sentence, next, s, selfNames))
        .map((s) => s.id);
      const mine = slots.filter((s) => isSelf(s.subject, selfNames));
      const byMeaning = actual ? closedByMeaning(sentence, mine, storedSlots, input, selfNames) : [];
      const supersedes = [...new Set([...byRules, ...byMeaning])];
      facts.push({
        text,
        category: cls.category,
        importance: cls.importance,
        eventDate,
        entities: entitiesOf(sentence, text, subject),
        sources: [message.id],
        supersedes,
        factType: cls.factType,
      });
      if (facts.length >= MAX_FACTS) return facts;
    }
  }
  return facts;
}
