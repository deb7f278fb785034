import { describe, expect, it } from "vitest";
import { judgeCrisis, judgeCrisisByRules } from "./crisis.js";
import { detect } from "./detector.js";
import type { PrototypeVectors } from "./meaning.js";

const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};
// Three directions: crisis prototypes along x, look-alikes along y, emotions along z.
const prototypes: PrototypeVectors = {
  crisis: [{ label: "hopelessness", vector: unit(1, 0, 0) }],
  safe: [{ label: "safe", vector: unit(0, 1, 0) }],
  emotions: [{ label: "sadness", vector: unit(0, 0, 1) }],
  emotionModel: null,
};

describe("crisis judgement", () => {
  it("flags each class by its cues, written without apostrophes as in chat", () => {
    const cases: [string, string][] = [
      ["honestly i just want to go to sleep and never wake up", "ideation"],
      ["there is no way out of this for me", "hopelessness"],
      ["they would all be better off without me", "burden"],
      ["ive been stockpiling my sleeping pills", "preparation"],
      ["this is my last message to anyone", "goodbye"],
      ["how many paracetamol would it take to not wake up", "method"],
      ["i cut my wrists again tonight, there's blood on the sheets", "self_harm"],
      ["my wife collapsed and shes not breathing", "medical"],
      ["hes got a knife and says hell kill me if i call anyone", "violence"],
      ["im going to hurt him so he never bothers anyone again", "harm_others"],
    ];
    for (const [text, crisisClass] of cases) expect(judgeCrisis(text), text).toEqual({ crisisClass, by: "rules" });
  });

  it("does not flag idioms, jokes, stories or a past the speaker has recovered from", () => {
    for (const text of [
      "this traffic is killing me",
      "I'm dying to see the new season",
      "my phone battery is dead again",
      "the villain stabs the king in the last chapter of the book",
      "monday meetings, kill me now lol",
      "i'll jump off a bridge if this deploy fails again jk",
      "years ago I used to cut myself but I've been clean for six years and I'm proud of that",
    ]) {
      expect(judgeCrisis(text), text).toBeNull();
    }
  });

  it("keeps an explicit statement of intent even next to a joke marker", () => {
    expect(judgeCrisis("not kidding, i want to kill myself")).toEqual({ crisisClass: "ideation", by: "rules" });
  });

  it("lets the models veto a single weak cue, never an explicit intent or cues of two classes", () => {
    // A word model that reads every message as far from a crisis (bias -10, threshold 0).
    const calm = { vocabulary: [], weights: new Array(200).fill(0).concat([-10]), threshold: 0, thresholdAlone: 0, veto: 3, vetoAlone: 3 };
    const weak = "my chest feels tight after the run";
    expect(judgeCrisisByRules(weak)).toEqual({ crisisClass: "medical", by: "rules" });
    expect(judgeCrisis(weak, undefined, undefined, calm)).toBeNull();
    expect(judgeCrisis(weak, undefined, undefined, { ...calm, vetoAlone: 1e9 })).toEqual({ crisisClass: "medical", by: "rules" });
    expect(judgeCrisis(weak, undefined, undefined, null)).toEqual({ crisisClass: "medical", by: "rules" });
    expect(judgeCrisis("i think im going to kill myself tonight", undefined, undefined, calm)).toEqual({ crisisClass: "ideation", by: "rules" });
    expect(judgeCrisis("there is no way out and this is my last message", undefined, undefined, calm)).toEqual({ crisisClass: "hopelessness", by: "rules" });
  });

  it("flags by meaning only when close to a crisis prototype and not to a look-alike (the sentence vote, without the word model)", () => {
    const text = "everything is grey and heavy";
    expect(judgeCrisisByRules(text)).toBeNull();
    expect(judgeCrisis(text, { vector: unit(1, 0.1, 0), prototypes }, undefined, null)).toEqual({ crisisClass: "hopelessness", by: "meaning" });
    // As close to a look-alike as to the crisis prototype: no flag.
    expect(judgeCrisis(text, { vector: unit(1, 1, 0), prototypes }, undefined, null)).toBeNull();
    // Far from everything: no flag.
    expect(judgeCrisis(text, { vector: unit(0.2, 0, 1), prototypes }, undefined, null)).toBeNull();
  });

  it("reads the nearest labelled examples too, averaging the k nearest of each side", () => {
    const text = "everything is grey and heavy";
    const settings = { k: 2, minCrisis: 0.6, minMargin: 0.05 };
    // Two crisis examples near x+z and a look-alike example along z.
    const withExamples: PrototypeVectors = {
      ...prototypes,
      examples: [
        { crisis: true, crisisClass: "preparation", vector: unit(1, 0, 0.3) },
        { crisis: true, crisisClass: null, vector: unit(1, 0, 0.5) },
        { crisis: false, crisisClass: null, vector: unit(0, 0, 1) },
      ],
    };
    // Close to the crisis examples: flagged, with the class of the closest crisis sentence that names one.
    expect(judgeCrisis(text, { vector: unit(1, 0, 0.35), prototypes: withExamples }, settings, null)).toEqual({ crisisClass: "preparation", by: "meaning" });
    // Nearer the look-alike example than any crisis sentence: the margin is not met.
    expect(judgeCrisis(text, { vector: unit(0.6, 0, 1), prototypes: withExamples }, { ...settings, k: 1 }, null)).toBeNull();
    // One close crisis sentence is not enough when k = 2 averages in a far one.
    const lone: PrototypeVectors = { ...prototypes, examples: [{ crisis: false, crisisClass: null, vector: unit(0, 0, 1) }] };
    expect(judgeCrisis(text, { vector: unit(1, 0.1, 0), prototypes: lone }, { k: 1, minCrisis: 0.6, minMargin: 0.05 }, null)).not.toBeNull();
    expect(judgeCrisis(text, { vector: unit(1, 0.1, 0), prototypes: withExamples }, { k: 3, minCrisis: 0.95, minMargin: 0.05 }, null)).toBeNull();
  });

  it("gives a crisis its emotion and keeps the crisis intent", () => {
    const medical = detect("my dad has crushing chest pain going down his left arm");
    expect(medical).toMatchObject({ crisis: true, topEmotion: "anxiety", intent: "crisis" });
    expect(medical.crisisReason).toEqual({ crisisClass: "medical", by: "rules" });
    expect(detect("nobody would even notice if i was gone")).toMatchObject({ crisis: true, topEmotion: "sadness" });
  });
});

describe("emotion judgement", () => {
  it("reads sarcasm as frustration, idioms by what they mean, and negated anger as sadness", () => {
    expect(detect("oh brilliant, the bus is late again").topEmotion).toBe("frustration");
    expect(detect("my manager is driving me up the wall").emotions).toEqual(["frustration"]);
    expect(detect("on cloud nine after the scan came back clear").topEmotion).toBe("joy");
    expect(detect("I'm not angry, I just miss how we used to be").emotions).toEqual(["sadness"]);
    expect(detect("you're a lifesaver, honestly").topEmotion).toBe("gratitude");
  });

  it("lets meaning name the emotion when no cue matches", () => {
    const text = "the house is so quiet now";
    expect(detect(text).emotions).toEqual([]);
    const judged = detect(text, {}, { vector: unit(0, 0, 1), prototypes });
    expect(judged.emotions).toEqual(["sadness"]);
    expect(judged.topEmotion).toBe("sadness");
  });
});
