import nlp from "compromise";
import { extractNames } from "../names.js";

const CALENDAR_WORDS =
  /^(?:january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday)$/i;
const NOT_AN_ENTITY = /^(?:i|me|my|we|us|our|you|the user|user)$/i;

/**
 * Names of people, places and organisations in a text: compromise's people, places and
 * organisations plus capitalised runs (`extractNames`), without possessive endings, pronouns or
 * month and day names, first spelling kept, case-insensitively unique.
 */
export function namesIn(text: string): string[] {
  const doc = nlp(text);
  const found = [
    ...(doc.people().out("array") as string[]),
    ...(doc.places().out("array") as string[]),
    ...(doc.organizations().out("array") as string[]),
    ...extractNames(text),
  ];
  const seen = new Map<string, string>();
  for (const raw of found) {
    const clean = raw.replace(/['’]s?$/u, "").replace(/[.,!?;:"()]+$/u, "").replace(/^[("]+/u, "").trim();
    if (clean === "" || NOT_AN_ENTITY.test(clean) || CALENDAR_WORDS.test(clean)) continue;
    if (!seen.has(clean.toLowerCase())) seen.set(clean.toLowerCase(), clean);
  }
  return [...seen.values()];
}

// Capitalised only because they start a question or a request.
const QUESTION_OPENERS =
  /^(?:any|anything|anyone|some|something|tell|please|remind|give|show|find|list|describe|summarize|summarise|recommend|suggest|so|ok|okay|also|and|but|since|now|then|any good)$/i;

/**
 * Names in a question, cheaply: capitalised runs (`extractNames`) without month and day names or
 * question openers ("Any good bakeries near me?"). No NLP tagging: this runs on every read.
 */
export function questionNames(query: string): string[] {
  return extractNames(query).filter((n) => !CALENDAR_WORDS.test(n) && !QUESTION_OPENERS.test(n));
}
