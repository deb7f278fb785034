import type { FactTypeName } from "../records.js";
import type { SlotName } from "./slots.js";

/** How the offline extractor rates and files a fact. */
export interface FactClass {
  importance: number;
  category: string;
  factType: FactTypeName;
}

const LIFE_EVENT =
  /\b(?:moved|moving|relocat\w*|married|engaged|divorced|broke\s+up|pregnant|gave\s+birth|baby|was\s+born|passed\s+away|died|new\s+job|got\s+a\s+job|hired|started\s+(?:a\s+new\s+job|working)|quit|fired|laid\s+off|graduated|retired|diagnosed|surgery|promoted|adopted)\b/i;
const HEALTH = /\b(?:allerg\w*|diabet\w*|asthma|medication|medicine|condition|disorder|disease|injur\w*|pain|therapy|pregnan\w*|vegetarian|vegan|gluten|lactose|intoleran\w*|blood\s+type)\b/i;
const PEOPLE_AND_DATES =
  /\b(?:birthday|anniversary|partner|wife|husband|boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|children|mother|mom|mum|father|dad|sister|brother|parents?|grandm\w+|grandf\w+|friend|dog|cat|pet)\b/i;
const PREFERENCE =
  /\b(?:love[sd]?|loving|like[sd]?|enjoy\w*|hate[sd]?|dislike[sd]?|prefer\w*|favou?rite|can(?:not|['’]t)\s+stand|into|fan\s+of|allergic|vegetarian|vegan|does\s+not\s+(?:like|eat|drink))\b/i;
const PLAN = /\b(?:will|going\s+to|plan\w*|next\s+(?:week|month|year)|tomorrow|soon|hope\s+to|want\s+to|would\s+like\s+to)\b/i;

const SLOT_CATEGORY: Record<SlotName, string> = {
  lives_in: "location",
  works_at: "work",
  job: "work",
  relationship: "relationship",
  name: "identity",
};

/**
 * Importance by simple rules (the highest that applies): life events 9, health 8, the speaker's
 * slots (home, work, job, relationship, name) 8, people and important dates 7, preferences 6,
 * dated events and plans 6, anything else 4.
 */
export function classifyFact(text: string, slots: readonly SlotName[], dated: boolean): FactClass {
  let importance = 4;
  let category = "personal";
  let factType: FactTypeName = "semantic";
  const rate = (value: number, cat: string) => {
    if (value > importance) {
      importance = value;
      category = cat;
    }
  };
  if (dated || PLAN.test(text)) rate(6, dated ? "event" : "plan");
  if (PREFERENCE.test(text)) rate(6, "preference");
  if (PEOPLE_AND_DATES.test(text)) rate(7, "relationship");
  for (const s of slots) rate(8, SLOT_CATEGORY[s]);
  if (HEALTH.test(text)) rate(8, "health");
  if (LIFE_EVENT.test(text)) rate(9, slots.length > 0 ? SLOT_CATEGORY[slots[0]] : "event");
  if (dated) factType = "event";
  else if (category === "preference") factType = "preference";
  return { importance, category, factType };
}
