import type { Emotion } from "./mood.js";

// Cue phrases as regular-expression fragments, matched case-insensitively on word boundaries
// after apostrophes are normalised to '. A cue preceded within three words by a negator ("not",
// "never", "don't" …) does not count, so "I'm not worried" detects nothing.

/** Emotion cue phrases (documented in docs/relational.md). */
export const EMOTION_CUES: Readonly<Record<Emotion, readonly string[]>> = {
  anxiety: [
    "worr(?:y|ied|ies|ying)", "anxious", "anxiety", "nervous", "scared", "afraid", "frightened", "terrified",
    "panic(?:king|ked|ky)?", "stressed", "stressing", "uneasy", "on edge", "dread(?:ing)?", "fear(?:ful)?",
    "(?:can't|cannot|couldn't) sleep", "freaking out", "overwhelmed", "tense", "mind (?:keeps|is) racing",
    "what if", "(?:stomach|tummy|guts?)(?: is| still| all)? in (?:knots|bits)", "heart(?:'s| is| has been| been)? in my mouth", "sweating bullets", "butterflies",
    "(?:suspense|waiting) is killing", "keep (?:checking|refreshing)", "(?:dont|don't) know if (?:i'm|im|i am|we're|we are|he|she|they)", "scary", "on tenterhooks",
    "(?:shaking|trembling) like", "bricking it", "(?:a|bit of a|total) wreck", "nerves", "can't switch off",
  ],
  frustration: [
    "frustrat\\w*", "annoy\\w*", "irritat\\w*", "fed up", "sick of", "tired of", "ugh+", "ridiculous",
    "useless", "waste of (?:my )?time", "keeps? (?:crashing|failing|breaking|freezing)", "not working",
    "(?:doesn't|won't|didn't) work", "still (?:hasn't|haven't|isn't|not|doesn't)", "(?:late|wrong|broken) again",
    "again\\?!?", "for the (?:second|third|fourth|fifth|\\w+th) time", "breaks? everything", "hassle",
    "(?:so|very|really) inconvenient",
    "driv(?:ing|es) me (?:up the wall|mad|crazy|nuts|round the bend|insane|spare)", "doing my head in", "banging my head against", "getting nowhere", "at (?:my )?wits'? end",
    "pulling my hair out", "give me strength", "for crying out loud", "(?:is|are|keeps?|was) (?:literally |actually |absolutely )?killing me", "the death of me", "kill me(?: now)?",
    "shoot me(?: now)?", "(?:one|1) more time", "fed up to the back teeth", "been waiting", "waiting (?:on|for) (?:\\w+ ){0,3}(?:for )?(?:three|two|four|\\d+) (?:weeks|days|hours|months)",
    "keeps? (?:sending|asking|losing|dropping|jamming|telling)", "tedious", "nightmare", "brutal", "bloodbath", "tempers", "at each other's throats", "warzone",
    "drowning in", "third time", "(?:worst|awful) thing", "can't even", "seriously\\?", "so (?:slow|dumb|stupid)",
  ],
  anger: [
    "angry", "anger", "furious", "fuming", "livid", "outraged", "mad at", "pissed", "hate", "rage",
    "infuriat\\w*", "unacceptable", "disgust\\w*", "how dare", "wtf", "damn it", "screw (?:you|this|that)",
    "sick and tired", "thanks for nothing", "i swear if", "throw it (?:out|at)",
    "seeing red", "steam (?:coming )?out of my ears", "hot under the collar", "(?:the )?(?:sheer )?nerve of", "blood (?:is )?boiling", "seething", "over my dead body",
    "absolutely not", "do not get to", "don't get to", "(?:how|who) do they think", "calm down",
  ],
  sadness: [
    "sad", "sadness", "unhappy", "depress\\w*", "lonely", "alone", "cry(?:ing)?", "cried", "tears",
    "heartbroken", "grie(?:f|ving|ve)", "miss (?:him|her|them|my|you)", "passed away", "died",
    "lost my (?:mom|mum|mother|dad|father|wife|husband|partner|son|daughter|brother|sister|friend|baby|job|dog|cat|home)",
    "hopeless", "miserable", "feel(?:ing)? (?:so )?(?:down|low|empty|numb|awful|terrible)", "humiliat\\w*",
    "disappoint\\w*", "let down", "left out", "worthless", "what's the point", "why (?:do i )?(?:even )?bother",
    "nothing ever changes", "doesn't matter",
    "gutted", "feel(?:ing)? (?:a bit |so |really |pretty )?(?:blue|flat|low|down|empty)", "(?:a bit|all a bit|so) flat", "heart (?:hurts|aches|is broken|sank)", "homesick",
    "on my own", "put (?:him|her|\\w+) down", "wrecked me", "destroyed me", "miss (?:how|the|it|home|reading|that|those|our|having)", "fallen through", "shot down",
    "rejection", "(?:didn't|did not|didnt) get (?:the|my|in|it)", "the only one (?:from|left)", "feels wrong", "(?:it's|its) fine,? it's just", "nobody (?:remembered|came|called)",
    "(?:i'll|i will|i shall) miss", "terribly", "can't shake it", "massacre", "murdered me",
  ],
  joy: [
    "happy", "glad", "excited", "thrilled", "delighted", "wonderful", "amazing", "great news", "fantastic",
    "awesome", "love (?:it|this|that)", "over the moon", "yay+", "can't wait", "lovely", "laugh(?:ed|ing)?", "proud", "so much fun",
    "on cloud nine", "tickled pink", "buzzing", "chuffed", "(?:can't|cannot) stop smiling", "killed it", "nailed it", "kill it", "weight off", "all-clear", "all clear",
    "made my day", "best (?:day|news|feeling)", "lmao+", "haha+", "lol+", "killed me", "i'm dead", "im dead", "deceased", "got (?:the|into|in)", "new person",
    "not too shabby", "sun's (?:finally )?out", "obsessed", "worked!", "first prize", "🎉", "😂", "🥳", "😍", "🚀", "☀️", "(?:it|that) worked",
  ],
  gratitude: [
    "thank(?:s| you)", "thank", "thankful", "grateful", "appreciate\\w*", "cheers", "lifesaver", "life saver", "much obliged", "ty", "thx", "bless you", "hats off",
    "angels?", "you(?:'re| are) (?:the best|a star|amazing|a legend)", "where would i be without", "(?:means|meant) (?:so much|a lot|the world)", "what (?:that|this|it) means to",
    "keeping me sane", "(?:couldn't|could not) have done it without", "so kind", "owe you",
  ],
};

/** Self-harm and despair phrases: a crisis flag, and the message reads as sadness. */
export const SELF_HARM_CUES: readonly string[] = [
  "kill(?:ing)? myself", "end(?:ing)? (?:my life|it all)", "suicid\\w*", "want(?:ed)? to die",
  "wish i (?:was|were) dead", "(?:don't|do not) want to (?:live|be here|wake up)", "better off (?:dead|without me)",
  "hurt(?:ing)? myself", "harm(?:ing)? myself", "self[- ]harm\\w*", "cut(?:ting)? myself", "overdos\\w*",
  "took too many pills", "no reason to live", "(?:can't|cannot) go on", "not worth living",
  "(?:don't|do not|can't) see the point (?:anymore|any more|in (?:living|going on))",
  "want (?:it all|everything) to (?:stop|end)", "(?:don't|do not) want to be alive",
];

/** Medical and safety emergency phrases: a crisis flag. */
export const EMERGENCY_CUES: readonly string[] = [
  "chest (?:pain|hurts)", "(?:can't|cannot|couldn't) breathe", "heart attack", "(?:a|having a) stroke",
  "unconscious", "not breathing", "seizure", "bleeding (?:heavily|badly|a lot)", "call (?:911|999|112|an ambulance)",
  "ambulance", "emergency room", "in the er", "being attacked", "(?:is|are) (?:hurting|attacking) me", "in danger",
];

/** Words that cancel a cue when they come up to three words before it (unless "stop" follows: "can't stop crying"). */
export const NEGATORS = /\b(?:not|no|never|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|wouldn't|can't|cannot|hardly|without|nothing)\b/;

/** Greeting and chit-chat cues (intent `small_talk` for short messages). */
export const SMALL_TALK_CUES: readonly string[] = [
  "hi", "hello", "hey", "good (?:morning|afternoon|evening|night)", "how are you", "how's it going",
  "what's up", "how have you been", "nice (?:weather|day)", "bye", "see you", "not bad", "mondays",
];

/** Verbs that make a message a task for the agent (intent `request`). */
export const REQUEST_VERBS: readonly string[] = [
  "remind", "book", "set", "schedule", "call", "send", "add", "cancel", "order", "create", "make", "turn",
  "play", "write", "note", "save", "text", "email", "buy", "find me", "show me", "reschedule",
];

/** Complaint cues beyond anger and frustration (intent `complaint`). */
export const COMPLAINT_CUES: readonly string[] = [
  "refund", "charged (?:me )?twice", "complain\\w*", "customer service", "poor service", "terrible service",
  "never again", "speak to (?:a|your) manager",
];

/** Compiles cue fragments into one case-insensitive, word-bounded, global pattern. */
export function cuePattern(cues: readonly string[]): RegExp {
  return new RegExp(`(?<![\\w'])(?:${cues.join("|")})(?![\\w'])`, "gi");
}
