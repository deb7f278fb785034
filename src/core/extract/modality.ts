/**
 * The modality of a statement: whether it tells of something that is so now, or of something
 * wished, planned, asked, denied or only possible. Only an actual statement may close a stored
 * fact; the others are kept as facts but replace nothing ("thinking about moving to Edinburgh").
 */
export type Modality = "actual" | "hypothetical" | "future" | "negated" | "question" | "past" | "temporary";

const QUESTION = /\?\s*$|^(?:should|shall|could|would|do|does|did|is|are|am|can|will)\s+(?:i|we)\b/i;
const HYPOTHETICAL =
  /\b(?:if|unless|imagine|suppose|supposing|wish|might|maybe|perhaps|possibly|could|would|wouldn['’]?t|considering|thinking\s+(?:about|of)|tempted|dream(?:ing)?\s+(?:of|about)|fantasi[sz]\w*|someday|some\s+day|one\s+day|offered|interview(?:ed|ing)?\s+(?:at|with|for)|applied|applying|not\s+sure|undecided|on\s+the\s+fence|rumou?rs?|hopefully|hoping|nearly|almost\s+(?:moved|left|quit|split|broke|got|married|divorced|separated)|when\s+(?:I|I['’]?m|im|we|we['’]re)\s+(?:am\s+|are\s+)?(?:\d+|older|finish\w*|retire\w*|graduat\w*))\b/i;
const FUTURE =
  /\b(?:will|['’]ll|going\s+to|gonna|plan(?:s|ning|ned)?\s+to|planning|about\s+to|intend\w*|next\s+(?:week|month|year|spring|summer|autumn|fall|winter)|once\s+(?:my|the|i|we)|after\s+(?:my|the)\s+notice|soon|eventually|starting\s+(?:next|on|in)|from\s+next)\b/i;
// "are no engaged", "didnae": the Scots negators too.
const NEGATED =
  /\b(?:not|never|(?:am|are|is|was|were|I['’]m|we['’]re)\s+no\s+(?!longer\b|more\b|doubt\b)|(?:is|was|did|do|does|din|have|has|ca|can|wo|will|could|would|should|are|were|must)nae|no\s+longer\s+(?:planning|thinking)|isn['’]?t|aren['’]?t|wasn['’]?t|won['’]?t|don['’]?t|doesn['’]?t|didn['’]?t|haven['’]?t|hasn['’]?t|nothing['’]?s\s+changed|still\s+(?:at|in|with|the\s+same|living|working|married|together|single))\b/i;
// Tense words that make a plan or offer already real: "I took the job", "we moved in".
const DONE = /\b(?:took|accepted|started|joined|moved|relocated|settled|signed|got|became|married|divorced|split|separated|left|quit|retired|promoted|hired|unpacked|bought|qualified|retrained|switched)\b/i;

// Set phrases that look modal and are not: "if you please", "if you can believe it", "would you believe".
const IDIOMS = /\b(?:if\s+you\s+(?:please|can\s+believe\s+it|must\s+know)|would\s+you\s+believe(?:\s+it)?|believe\s+it\s+or\s+not|not\s+gonna\s+lie|don['’]?t\s+laugh|no\s+pressure)\b/giu;
// The past told as the past ("I used to live in Rome", "back in 2010"), and stays that end ("for two weeks", "spent three months in").
const PAST = /\b(?:used\s+to|back\s+(?:when|in\s+(?:the\s+)?(?:\d{2,4}s?|day))|years\s+ago|as\s+a\s+(?:kid|child|teen|teenager|student)|growing\s+up|when\s+I\s+was)\b/i;
const TEMPORARY =
  /\b(?:for\s+(?:a|an|one|two|three|four|five|six|a\s+few|\d+)\s+(?:more\s+)?(?:days?|nights?|weeks?|months?)|for\s+(?:a|the)\s+(?:conference|wedding|funeral|holiday|trip|weekend|course|festival)|for\s+the\s+(?:day|night|afternoon|evening)|(?:spent|spend|spending)\s+(?:a|an|one|two|three|four|five|six|a\s+few|several|\d+)\s+(?:days?|nights?|weeks?|months?|years?)|day\s+trip|on\s+(?:holiday|vacation|a\s+trip)|visiting|stint|layover|stuck\s+in)\b/i;
// A change told in the progressive with no time is a plan: "Starting at HSBC on Monday!", "I'm moving to Bath".
const PLANNED = /^(?:starting|moving|relocating|joining|leaving)\b|\b(?:am|are|I['’]m|we['’]re)\s+(?:starting|moving|relocating|joining)\b/i;
// A past state told with the past copula ("I was engaged once", "we were engaged for six years",
// "I was a rodeo clown"): the speaker's state then, not a change now. A relationship passive with a
// point in time is the event itself ("we were married on the 12th", "I was married last week").
const PAST_STATE =
  /\b(?:I|we|and\s+me)\s+(?:was|were)\s+(?:\w+ly\s+|once\s+|still\s+|already\s+|both\s+)?(?:(?<rel>engaged|married|wed|divorced|separated|widowed|single|together|dating|seeing)|living|working|based|employed|an?\s+(?!(?:bit|little|lot|few|mess|wreck)\b))\b(?<rest>.*)$/iu;
const POINT_IN_TIME =
  /\b(?:(?:on|in|last)\s+(?:the\s+)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|spring|summer|autumn|fall|winter|week|month|year)\w*|yesterday|today|tonight|this\s+(?:week|month|year|weekend|spring|summer|autumn|fall|winter|morning)|just|finally|officially|recently)\b/iu;

/** True for a past state of the copula that is not a dated relationship event. */
function pastState(s: string): boolean {
  const m = PAST_STATE.exec(s);
  if (!m) return false;
  return !(m.groups?.rel && POINT_IN_TIME.test(m.groups.rest ?? ""));
}

const ENDED = /\b(?:any\s?more|no\s+longer)\b/i;
// "may" in lower case only: "in May" is a month.
const MAY = /\bmay\b/;

/** The modality of one sentence (already known to be about the speaker). */
export function modalityOf(sentence: string): Modality {
  const s = sentence.trim().replace(IDIOMS, "");
  if (QUESTION.test(s)) return "question";
  // "not together any more", "no longer at Acme": a denial of the past is a change, not a denial.
  if (NEGATED.test(s) && !/\b(?:not|never)\s+(?:only|just)\b/i.test(s) && !ENDED.test(s)) return "negated";
  if (HYPOTHETICAL.test(s) || MAY.test(s)) return "hypothetical";
  if (PAST.test(s) || pastState(s)) return "past";
  if (TEMPORARY.test(s)) return "temporary";
  if (PLANNED.test(s)) return "future";
  if (FUTURE.test(s) && !(DONE.test(s) && !/\b(?:will|going\s+to|gonna|plan\w*)\b/i.test(s))) return "future";
  return "actual";
}
