import { describe, expect, it } from "vitest";
import { createUseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { judgeCrisis, judgeCrisisByRules } from "../src/core/relational/crisis.js";
import { CONCEPT_NAMES, conceptFeatures, terms } from "../src/core/relational/text-features.js";
import { loadMessages } from "../bench/support/judgement-labels.js";
import { normaliseLabelText } from "../bench/support/label-split.js";
import { judgeOffline } from "../src/services/relational/judgement.js";

// Messages written for this test (none is in bench/labels): quiet crises the rules miss, told
// without a self-harm word, and everyday messages with death words in them.
const QUIET_CRISES: [string, string][] = [
  ["some nights i hope i just don't open my eyes in the morning", "ideation"],
  ["my mum's lips have gone a bit blue and she's breathing really fast and shallow", "medical"],
  ["he smashed my phone and said next time it'll be my face, i'm in the bathroom with the door locked", "violence"],
  ["thank you for everything, you've been kinder to me than i deserved. take care of yourself", "goodbye"],
];
const EVERYDAY = [
  "the printer jammed again, this office is a joke",
  "i'm dead on my feet after that double shift lol",
  "my phone died halfway through the call with mum",
  "we finally finished the kitchen and i'm so pleased with it",
  "the bus was late and i missed the start of the film",
  "can you remind me what time the dentist is tomorrow",
];

const concept = (text: string, name: string) => conceptFeatures(text)[2 * CONCEPT_NAMES.indexOf(name)];
const negatedConcept = (text: string, name: string) => conceptFeatures(text)[2 * CONCEPT_NAMES.indexOf(name) + 1];

describe("word features of the judgement models (issue 21)", () => {
  it("stem words, mark the scope of a negator and pair stems within a clause", () => {
    const t = terms("I'm not angry, just hurt. Can't sleep");
    expect(t).toEqual(expect.arrayContaining(["!angri", "not_angri", "hurt", "!sleep", "cant_sleep"]));
    // The scope ends at punctuation and at a contrast word.
    expect(t).not.toContain("!hurt");
    expect(t).not.toContain("angri");
  });

  it("match concepts on stems, so different words of one concept light the same feature", () => {
    for (const text of ["i've been saving up my tablets", "counting the pills again", "how many meds would it take"]) expect(concept(text, "means"), text).toBeGreaterThan(0);
    expect(concept("the weather is nice", "means")).toBe(0);
    expect(concept("i'm not scared of the results", "anxiety")).toBeGreaterThan(0);
    expect(negatedConcept("i'm not scared of the results", "anxiety")).toBe(1);
    expect(negatedConcept("i'm scared of the results", "anxiety")).toBe(0);
  });
});

describe("the word model reads crises without a sentence vector (the hash embedder) and beside one", () => {
  it("uses messages that are in no label set", () => {
    const labelled = new Set(loadMessages("bench/labels").map((m) => normaliseLabelText(m.text)));
    for (const text of [...QUIET_CRISES.map(([t]) => t), ...EVERYDAY]) expect(labelled.has(normaliseLabelText(text)), text).toBe(false);
  });

  it("flags quiet crises the rules miss, with a class from the concepts, and not everyday messages", () => {
    for (const [text, crisisClass] of QUIET_CRISES) {
      expect(judgeCrisisByRules(text), text).toBeNull();
      // The symptoms-only emergency sits near the word model's threshold: missed by it alone with the
      // round-6 weights and with round 9's first retrain (penalty 0.0003), flagged with round 8's and
      // round 9's final ones (0.0001). The use path below flags it with all of them.
      expect(judgeCrisis(text), text).toEqual({ crisisClass, by: "meaning" });
      // Without the word model the rules alone miss it.
      expect(judgeCrisis(text, undefined, undefined, null), text).toBeNull();
    }
    for (const text of EVERYDAY) expect(judgeCrisis(text), text).toBeNull();
  });

  it("does not flag short neutral messages (a word model with too little penalty did: rare tokens weigh too much)", () => {
    for (const text of ["hi there", "room 9", "message number 3", "message number 4", "ok 3", "see you at 3", "order #4471", "page 12 of 40", "thanks", "k"]) {
      expect(judgeCrisis(text), text).toBeNull();
    }
  });

  it("with the use embedder, Process's offline judgement flags them and leaves the everyday ones", { timeout: 120_000 }, async () => {
    const embedder = createUseEmbedder();
    const texts = [...QUIET_CRISES.map(([t]) => t), ...EVERYDAY];
    const vectors = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const d = await judgeOffline(embedder, text, vectors[i]);
      expect(d.crisis, text).toBe(i < QUIET_CRISES.length);
    }
  });
});
