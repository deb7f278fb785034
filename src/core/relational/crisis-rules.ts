import type { CrisisClass } from "./prototypes.js";

// Crisis phrases per class, as regular-expression fragments matched on the folded text (lower
// case, apostrophes removed: "don't" → "dont", "he'll" → "hell"), so chat spelling without
// apostrophes matches too. A missed crisis is the worst failure this service can have, so the
// cues are broad; the look-alikes (jokes, the past, idioms) are handled by SAFE_CONTEXT.

const ME = "(?:i|im|ive|id|me|my)";
const KIN = "(?:mum|mom|mother|dad|father|wife|husband|partner|son|daughter|kids?|children|brother|sister|family|baby|friend|grandma|grandad|nan)";
const PILLS = "(?:pills|tablets|meds|medication|medicine|paracetamol|sleeping pills|insulin|painkillers)";

/** Crisis cues per class. */
export const CRISIS_CUES: Readonly<Record<CrisisClass, readonly string[]>> = {
  ideation: [
    "suicid\\w*", "(?:kill|killing|killed|end|ending|take|taking) (?:myself|my (?:own )?life)", "end(?:ing)? it (?:all|tonight|now|for good)",
    "(?:want|wanna|wanted|wish|hoping|hope|pray\\w*|need) (?:i could |to |i would |id )?(?:die|be dead|not exist)",
    "wish (?:i|id) (?:was|were|had been|could be) (?:dead|never born|gone)", "(?:dont|do not|never|didnt) (?:want|wanna) to (?:live|be alive|be here|exist|wake up|go on)",
    "(?:hop\\w*|wish\\w*|pray\\w*|want\\w*)\\b[^.!?]{0,30}\\b(?:not|never|dont|wont) wake up", "(?:sleep|asleep) and (?:not|never) wake",
    "(?:not|stop|stopped|cease) (?:existing|exist|to exist|being alive)", "(?:not|no longer) (?:be|being) (?:around|here|alive)(?: any ?more)?",
    "disappear\\w* (?:for good|forever|permanently)", "(?:no|any|a) (?:reason|point) (?:to|in|of) (?:live|living|life|going on|carrying on|being alive|being here)",
    "(?:want|wish|need) (?:it all|everything|the pain|this|it) to (?:stop|end) (?:for good|forever|permanently)", "(?:cant|cannot) go on(?: like this| any ?more)?",
    "not worth living", "(?:thinking|think|thought|thoughts) (?:about|of) (?:dying|death|ending (?:it|things|my life)|not being here|killing)",
    "(?:gets|get|collect\\w*) (?:the|my) (?:life )?insurance", "dont want to be here any ?more", "want(?:ed)? to die", "(?:picture|imagine) (?:just )?not existing",
  ],
  hopelessness: [
    "(?:no|dont see a|dont see any|cant see a|cant see any|cannot see a|there is no|theres no) (?:way out|future|hope|light|end to (?:this|it))",
    "(?:dont|cant|cannot) see (?:a |any |the |my )?future", "(?:out of|lost all|no|given up(?: all)?(?: on)?) hope",
    "(?:cant|cannot) (?:see|picture|imagine) (?:anything|things|it|my life|life)? ?(?:ever )?(?:getting better|changing|improving|being different)",
    "(?:never|not) (?:going to|gonna|ever going to) get (?:any )?better", "nothing (?:will ever|is ever going to|is ever gonna) (?:change|get better|improve)",
    "no version of my life", "(?:im|i am) done (?:with (?:life|everything|it all|living)|pretending|fighting|trying)", "tired (?:of|to) (?:fight|fighting|living|being alive) for nothing",
    "(?:whats|what is|there is no|theres no|dont see the|cant see the) point (?:in|of) (?:anything|living|life|going on|any of (?:it|this)|me)",
    "(?:dont|do not|cant|cannot) see the point (?:any ?more|in (?:living|going on))", "(?:given up|give up) on (?:life|everything|myself|living)",
    "(?:tank|well) is (?:just )?(?:empty|dry)", "(?:same|just) (?:grey|gray|dark|black) nothing", "tired of (?:existing|being alive|living)",
  ],
  burden: [
    "better off (?:dead|without me|if i (?:was|were|wasnt|werent|was not|were not|died|disappeared))", "better off if im (?:gone|dead|not (?:here|around))",
    "(?:better|easier|lighter|happier|well|fine|freer) without me", "(?:easier|better) for (?:everyone|everybody|them|all of them|my family|him|her) if i (?:just )?(?:wasnt|werent|was not|were not|was gone|disappeared|died|wasnt around)",
    "(?:im|i am|being|feel like|such) (?:just )?(?:a |such a )?(?:burden|dead weight|parasite|waste of space|drain on)", "(?:im|i am) (?:just )?a weight on",
    "(?:no ?one|nobody|no-one) would (?:even )?(?:notice|care|miss me)", "no business (?:sticking|being|staying) around", "without me in (?:it|their lives|the picture)",
  ],
  preparation: [
    "(?:giv\\w*|gave) (?:away )?(?:my|all my|most of my) (?:stuff|things|belongings|possessions|pets?|cat|dog)(?: away)?", "(?:wont|dont|will not|wouldnt) need (?:it|them|these|this|any of (?:it|this|them)|my \\w+) (?:where im going|after (?:tonight|today|this|im gone))",
    "where im going", "(?:wrote|written|writing|updated|made|sorted|finished|drafted) (?:my|the|a) (?:will|suicide note|goodbye notes?|goodbye letters?)",
    "(?:stockpil\\w*|sav\\w*|hoard\\w*|collect\\w*|stash\\w*) (?:up )?(?:enough |all |some )?(?:of )?(?:my )?" + PILLS, "enough " + PILLS,
    "(?:affairs|everything|things) in order", "tying up (?:the )?loose ends", "(?:picked|chose|chosen|set|decided on) (?:a|the) (?:date|day|time)",
    "in order for after", "for after (?:im gone|i go|i die|tonight)", "before i go\\b", "so (?:nobody|no one|no-one) (?:has|have|will have) to (?:deal|sort|clean|find)",
    "bought (?:a |some )?(?:rope|a gun|a hose|charcoal)", "(?:made|have|got) a plan (?:for|to) (?:how|when|do it|end)",
  ],
  goodbye: [
    "(?:this is|its|this will be|this may be|this might be) (?:my )?(?:last|final) (?:message|goodbye|time|check[- ]?in|post|text|night)", "last (?:time (?:you|youll|u) (?:hear|talk|speak)|check[- ]?in|message)",
    "signing off (?:for good|forever)", "(?:wanted|want) to say goodbye", "(?<=^|[.!?] ?)(?:goodbye|bye)(?: now| forever| everyone| all)?[.!\\s]*$",
    "tell (?:my|them|everyone|her|him)\\b[^.!?]{0,25}\\b(?:im sorry|i love|i loved|sorry)", "(?:wont|shant|will not|shall not) be (?:needing|talking|around|here|coming back)\\b",
    "after tonight", "(?:dont|do not|please dont) (?:try to |come )?(?:find|look for|save) me", "at peace with (?:it|my decision|this)",
    "(?:wasnt|not|isnt) (?:anybodys|anyones|your|their) fault", "(?:letters?|notes?) (?:to|for) (?:my )?" + KIN, "love you all", "thank you for trying with me",
  ],
  method: [
    "how (?:many|much) (?:of )?(?:my |mums |moms |dads |these |those |the )?(?:\\w+ ){0,3}" + PILLS + "\\b[^.!?]{0,40}\\b(?:take|kill|enough|lethal|fatal|die|would it)",
    "(?:lethal|fatal|deadly|overdose) (?:dose|amount|quantity)", "stop my heart", "(?:on|at) the (?:bridge|ledge|roof|edge|cliff|platform|overpass)\\b[^.!?]{0,40}\\b(?:again|water|looking down|jump|drop|edge|calm)",
    "(?:bridge|ledge|roof|overpass|cliff|height|tracks|river|drop)\\b[^.!?]{0,60}\\b(?:jump|would be enough|high enough|how cold|how quick|how fast|off the|over the edge|looking down)",
    "(?:how cold|how quick|how fast|how long|would it hurt)\\b[^.!?]{0,40}\\b(?:off the|from the|into the) (?:bridge|roof|cliff|river|tracks|water|ledge)",
    "(?:jump|jumping|step|stepping|throw myself|walk|walking) (?:off|from|in front of|into) (?:a |the )?(?:train|bridge|building|roof|balcony|cliff|bus|traffic|car|lorry|truck|tracks)",
    "(?:rope|noose|belt|cord)\\b[^.!?]{0,40}\\b(?:beam|would hold|hang\\w*|bannister|tree)", "hang(?:ing)? myself", "(?:knife|blade|razor|gun|pistol)\\b[^.!?]{0,30}\\b(?:wrist|throat|my head|in my hand|in my mouth|loaded)",
    "(?:wondering|wonder|thinking|think|googl\\w*|look\\w* up|search\\w*) (?:if|whether|how|which|what)\\b[^.!?]{0,40}\\b(?:height|fall|drop|painless|would (?:it )?(?:take|kill|work|hurt)|enough to)",
    "(?:which|what) (?:combination|mix) of (?:my )?" + PILLS, "(?:slowing|slow) down[^.!?]{0,40}\\b(?:bridge|overpass|cliff|edge)|(?:bridge|overpass|cliff|edge)[^.!?]{0,40}\\bslowing down",
  ],
  self_harm: [
    "(?:hurt|hurting|harm|harming|cut|cutting|burn|burning|burnt|burned|starv\\w*|punish\\w*) (?:myself|me on purpose)", "self[- ]?harm\\w*", "overdos\\w*", "took too many pills",
    "(?:cut|cutting|burn\\w*|scratch\\w*|slash\\w*|hit\\w*|punch\\w*|bang\\w*|carv\\w*) (?:my|at my) (?:arms?|wrists?|thighs?|legs?|skin|stomach|head|face)\\b[^.!?]{0,60}\\b(?:again|lighter|blade|raw|bleed\\w*|on purpose|to feel|too much|until|deserve|dizzy)",
    "(?:to feel something|on purpose|deliberately|to punish myself)", "i deserve (?:it|the pain|to (?:hurt|suffer|be hurt))", "bang\\w* my head(?! against (?:a|the) (?:brick )?wall)", "relapsed\\b",
    "blades? (?:is |are )?(?:still )?(?:on|in) my",
  ],
  medical: [
    "chest\\b[^.!?]{0,30}\\b(?:pain|hurts|hurting|tight|crush\\w*|pressure|heavy|squeez\\w*)", "(?:pain|numb\\w*|tingl\\w*|ache)\\b[^.!?]{0,40}\\b(?:left arm|jaw|down (?:his|her|my) arm)",
    "(?:face|mouth|smile)\\b[^.!?]{0,20}\\bdroop\\w*", "(?:words|speech|talking|speaking)\\b[^.!?]{0,30}\\b(?:slurr\\w*|wrong|jumbled|garbled)", "slurr\\w*",
    "(?:cant|cannot|unable to|couldnt) (?:lift|move|feel) (?:his|her|my) (?:right |left )?(?:arm|leg|side|face)", "(?:throat|tongue|lips?|face)\\b[^.!?]{0,40}\\b(?:swell\\w*|closing|tight)",
    "(?:cant|cannot|couldnt|can not|hard to|difficult to|struggling to|trouble) breath\\w*", "(?:not|isnt|stopped|barely) breathing", "unconscious|unresponsive|collapsed|passed out",
    "(?:wont|cant|can not|cannot|couldnt) (?:wake (?:him|her|them) up|wake up (?:him|her))", "(?:turning|gone|going|lips) (?:blue|grey|gray)", "seizure|fitting|convuls\\w*",
    "(?:took|swallowed|drank|ate|taken)\\b[^.!?]{0,40}\\b(?:whole (?:bottle|packet|box)|all (?:his|her|the|my|of (?:his|her|my|the))|bleach|too many|too much|insulin|" + PILLS + ")",
    "bleeding\\b[^.!?]{0,20}\\b(?:heavily|badly|a lot|wont stop|everywhere|so much)", "(?:wont|doesnt|cant|cannot) stop (?:the )?bleeding", "anaphyla\\w*",
    "heart attack", "(?:a|having a|had a) stroke", "call (?:911|999|112|an ambulance)", "ambulance", "emergency room", "in the er\\b",
    "(?:confused|slurring|shaking)\\b[^.!?]{0,50}\\b(?:sweat\\w*|diabet\\w*|sugar)|(?:sweat\\w*|diabet\\w*)\\b[^.!?]{0,50}\\b(?:confused|slurring)",
    "sweaty and grey|sweating and grey", "(?:hit|banged|fell)\\b[^.!?]{0,30}\\b(?:head)\\b[^.!?]{0,40}\\b(?:vomit\\w*|being sick|confused|wont wake)",
  ],
  violence: [
    "(?:hits|hit|hitting|beat|beats|beating|beaten|punch\\w*|kick\\w*|chok\\w*|strangl\\w*|slap\\w*|shov\\w*|push\\w* me|threw \\w+ at) (?:me|us|my (?:head|face|mum|mom|sister|brother))",
    "(?:hell|he will|shell|she will|theyll|they will|hes going to|shes going to|hes gonna|shes gonna|threaten\\w* to|(?:he|she|husband|partner|boyfriend|girlfriend|dad|stepdad|wife|ex) (?:is |was )?(?:going to|gonna|said hed|said shed|will)) (?:kill|hurt|hit|beat) (?:me|us|the kids|the baby|my)",
    "(?:hiding|hide|locked (?:myself )?in|barricaded)\\b[^.!?]{0,40}\\b(?:from (?:him|her|my)|bathroom|bedroom|my room|loo|toilet|wardrobe|closet)", "(?:im|i am) locked in",
    "(?:he|she|hes|shes|dad|husband|partner|boyfriend|girlfriend|stepdad|mum|mom|wife)\\b[^.!?]{0,40}\\b(?:a knife|a gun|weapon|knife out)", "(?:banging|pounding|kicking|smash\\w*) (?:on |in )?(?:the |my )?(?:\\w+ )?door", "(?:im|i am) hiding\\b",
    "(?:cant|cannot|too scared to|afraid to|scared to) go home", "being attacked", "(?:is|are) (?:hurting|attacking|hitting) me", "in danger", "(?:scared|afraid|terrified) (?:hell|he will|she will|shell) (?:kill|hurt)",
    "(?:kill|hurt) me and the kids", "not the first time\\b[^.!?]{0,5}$",
  ],
  harm_others: [
    "(?:want|going|gonna|could|about|tempted) to (?:really |actually )?(?:hurt|kill|stab|shoot|strangle) (?:him|her|them|the \\w+|my \\w+|someone|somebody|people|everyone)",
    "(?:shake|shaking|hurt|hit|smother)\\b[^.!?]{0,30}\\b(?:almost did|nearly did)", "(?:i|id|i could)\\b[^.!?]{0,20}\\b(?:shake|smother) (?:the baby|her|him)",
    "bring\\w* (?:something|a (?:gun|knife|weapon))\\b", "(?:stop|shut (?:him|her|them) up) for good", "make (?:him|her|them) (?:pay|stop) for good",
  ],
};

/**
 * Look-alikes that cancel a crisis cue: a joke marker, the past told as recovered, an
 * exclamation of surprise ("nearly gave me a heart attack"), weather or laughter that "took my
 * breath". They never cancel an explicit statement of intent in the present (see the detector).
 */
export const SAFE_CONTEXT: readonly string[] = [
  "\\b(?:jk|j/k|just kidding|only kidding|kidding)\\b",
  "(?:nearly|almost) (?:gave|give|had|have) (?:me )?a heart attack",
  "(?:humid|so hot|heatwave|laugh\\w*|no time to) [^.!?]{0,30}breath|breath\\w*[^.!?]{0,30}(?:humid|laugh\\w*)|it passed",
  "\\b(?:my|the) (?:character|player|avatar)\\b|final boss",
  "(?:the|a|this|that) (?:film|movie|show|book|novel|game|series|episode|season|news|podcast|documentary|character|villain|plot)\\b",
];

/** Past told as over and recovered from: "used to", "years ago", then "better", "clean for". */
export const PAST_RECOVERED = {
  past: "\\b(?:used to|years ago|a year ago|(?:havent|have not|hasnt) since|as a (?:teen|teenager|kid|child)|back when|there was a time|remember when|once believed|once thought|in the past|back in (?:uni|school|college|\\d{4}))\\b",
  recovered: "\\b(?:clean for|better now|doing (?:loads |much |so much |a lot )?better|recovered|grateful|showed me|was wrong|how wrong|now i|im (?:good|okay|ok|fine|happy) now|helped|proud of (?:that|myself|me))\\b",
  relapse: "\\b(?:relapsed|again|tonight|right now|still (?:want|think)|these days|lately)\\b",
} as const;

/** Folds a message for the crisis cues: lower case, apostrophes removed, whitespace collapsed. */
export function foldForCues(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc'`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * A co-occurrence net under the phrase cues: the speaker, a word of death or disappearing, and a
 * word of finality or wish in one message ("honestly i'd just rather not be around anymore").
 * Idioms that pair the same words ("dying to see it", "killing me", "dead tired") are removed
 * first (IDIOMS).
 */
export const RISK_WORDS = {
  speaker: "\\b(?:i|im|ive|id|ill|me|my|myself)\\b",
  death: "\\b(?:die|dying|dead|death|suicid\\w*|kill|killing|end it|end things|end(?:ing)? my|gone|not (?:be )?(?:here|around|alive)|disappear\\w*|vanish\\w*|exist\\w*|wake up|sleep forever|overdos\\w*|jump\\w*|hang\\w*|drown\\w*|lethal|noose|cease)\\b",
  final: "\\b(?:anymore|any more|for good|forever|tonight|last|final|never|goodbye|no point|no reason|better off|without me|want(?:ed)? to|wanna|wish|plan\\w*|ready|decided|enough|rather|easier|peace|relief|nobody|no one|everyone)\\b",
} as const;

/** Idioms that pair death words with everyday meaning; removed before the co-occurrence net. */
export const IDIOMS: readonly string[] = [
  "(?:is|are|was|were|its|thats|keeps?) (?:literally |actually |absolutely |properly )?killing (?:me|us|it)", "killing it", "kill(?:ed|s)? it\\b", "killed me\\b", "kill me(?: now)?\\b",
  "(?:gonna|going to|will|would|shall|\\w+ll) kill (?:me|us|you|him|her)\\b(?! and)", "(?:could|would) kill for", "dying (?:to|for|of (?:laughter|embarrassment|boredom|thirst|hunger))",
  "(?:dead|deathly) (?:tired|serious|on|right|funny|boring|end|weight off)", "(?:bored|scared|worried|sick|freezing|frozen|tickled) to death", "(?:battery|phone|laptop|car|plants?|flowers?|starter|printer|wifi|signal|engine)\\b[^.!?]{0,20}\\b(?:dead|died|dying)",
  "(?:im|i am|i was|literally) (?:dead|deceased)\\b", "(?:laugh\\w*|giggl\\w*)[^.!?]{0,30}\\b(?:die|died|dead|death)", "(?:die|died|dead|death)[^.!?]{0,30}\\blaugh\\w*",
  "(?:die|dying|death) on (?:this|that) hill", "over my dead body", "the death of me", "will to (?:nap|sleep)", "jump(?:ing)? ship", "jump(?:ed|ing)? (?:at|on|in) (?:the|a) (?:chance|bandwagon|queue)",
  "jump (?:start|rope)", "hang(?:ing)? (?:out|on|around|up)", "(?:drowning|drowned) in (?!the|a )", "wake up (?:call|early|at)", "before i (?:die|kick the bucket)", "bucket list",
  "(?:dead|died) (?:in|on) (?:the|a|my) (?:game|level|round)", "(?:game|level|round)[^.!?]{0,20}(?:die|dying|died)", "best day ever", "near death experience",
];
