/**
 * English function words: determiners, pronouns, auxiliaries, question words, prepositions and
 * conjunctions. They carry the grammar of a question, not what it is about.
 */
const FUNCTION_WORDS = new Set(
  (
    "a an the this that these those some any each every no all both either neither " +
    "i me my mine myself you your yours yourself he him his himself she her hers herself it its itself " +
    "we us our ours ourselves they them their theirs themselves one ones " +
    "what when where who whom whose why how which whether " +
    "is am are was were be been being do does did doing done have has had having " +
    "can could may might must shall should will would " +
    "to of in on at for with by about from into onto over under after before during since until " +
    "through between among against without within upon off out up down " +
    "and or but nor so if then than as because while though although also too very just " +
    "not there here ever"
  ).split(" "),
);

/** Words of a text: runs of letters, digits and inner apostrophes. */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
}

/** The words of a text that are not function words, in order. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => !FUNCTION_WORDS.has(w.toLowerCase()));
}

/**
 * The content words of a query, in order ("What did Caroline research?" → "Caroline research").
 * Empty when the query has nothing but function words.
 */
export function contentQuery(text: string): string {
  return contentWords(text).join(" ");
}

/**
 * True when a turn only asks: its last sentence, ignoring a trailing bracketed note such as an
 * attachment caption, ends with a question mark. Such a turn holds no answer itself; the reply
 * after it does (see the context channel).
 */
export function asksOnly(text: string): boolean {
  const body = text.replace(/(?:\s*[[(][^\])]*[\])])+\s*$/u, "").trimEnd();
  return body.endsWith("?");
}
