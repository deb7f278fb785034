import { findDates, formatPlainDate, type NamedDate, startOfUtcDay } from "./dates.js";
import { namesIn } from "./entities.js";
import { keepForStrategies, type Strategy } from "./extractor-prompt.js";
import { classifyFact } from "./fact-rules.js";
import { capitaliseI, firstPersonStatement, speakerView, splitSentences, stripFiller, toThirdPerson, withImpliedSpeaker } from "./first-person.js";
import { modalityOf } from "./modality.js";
import type { ProposedFact } from "./proposed-fact.js";
import { conflictingSlots, findSlots, isSelf, type SlotValue } from "./slots.js";

/** What the offline extractor reads. */
export interface OfflineInput {
  messages: readonly { id: string; role: string; name: string; content: string }[];
  observedAt: number;
  /** Stored open facts that a new fact may supersede (by slot). */
  storedFacts: readonly { id: string; text: string }[];
  strategies: readonly Strategy[];
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

/**
 * The rules-based extractor for `--llm none`: each first-person statement of a user turn becomes
 * one fact in the third person about the speaker, with dates resolved against `observedAt`,
 * entities from compromise, importance by rules, and supersedes from slot conflicts with the
 * stored facts (only the speaker's own slots). Assistant turns, questions and small talk give none.
 */
export function extractOffline(input: OfflineInput): ProposedFact[] {
  const facts: ProposedFact[] = [];
  const storedSlots = input.storedFacts.map((f) => ({ id: f.id, slots: findSlots(f.text) }));
  for (const message of input.messages) {
    if (message.role !== "user") continue;
    const subject = message.name.trim() !== "" ? message.name.trim() : "the user";
    const selfNames = subject === "the user" ? [] : [subject];
    for (const raw of splitSentences(capitaliseI(message.content))) {
      const sentence = withImpliedSpeaker(stripFiller(raw));
      if (firstPersonStatement(sentence) === "none") continue;
      const dates = findDates(sentence, input.observedAt);
      const text = absoluteDates(toThirdPerson(sentence, subject), dates);
      // Slots from the fact and from the sentence as the speaker said it ("we moved", "me n Funmi got married").
      const slots: SlotValue[] = [...findSlots(text), ...findSlots(speakerView(sentence))];
      const mySlots = slots.filter((s) => isSelf(s.subject, selfNames)).map((s) => s.slot);
      const eventDate = eventDateOf(sentence, dates, input.observedAt);
      const cls = classifyFact(text, mySlots, eventDate !== null);
      if (!keepForStrategies(cls.factType, input.strategies)) continue;
      // Only what is so now replaces a stored fact: not a plan, a wish, a question or a denial.
      const actual = modalityOf(sentence) === "actual";
      const supersedes = actual ? storedSlots.filter((s) => conflictingSlots(slots, s.slots, selfNames).length > 0).map((s) => s.id) : [];
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
