import { describe, expect, it } from "vitest";
import { detect } from "./detector.js";
import { modelJudgementPrompt, parseModelJudgement, withModelJudgement } from "./model-judgement.js";

const answer = (o: object) => JSON.stringify({ crisis: false, crisis_class: null, emotions: [], top_emotion: null, ...o });

describe("the model's judgement", () => {
  it("is read only when it is exactly the asked-for JSON", () => {
    expect(parseModelJudgement(answer({ crisis: true, crisis_class: "burden", emotions: ["sadness"], top_emotion: "sadness" }))).toMatchObject({ crisis_class: "burden" });
    expect(parseModelJudgement("yes, a crisis")).toBeNull();
    expect(parseModelJudgement(answer({ crisis: true }))).toBeNull(); // a crisis without a class
    expect(parseModelJudgement(answer({ crisis_class: "method" }))).toBeNull(); // a class without a crisis
    expect(parseModelJudgement(answer({ emotions: ["joy"], top_emotion: "anger" }))).toBeNull(); // top not among the emotions
    expect(parseModelJudgement(answer({ emotions: ["bliss"] }))).toBeNull();
    expect(parseModelJudgement(answer({ extra: 1 }))).toBeNull();
    expect(modelJudgementPrompt("hi").at(-1)).toEqual({ role: "user", content: "hi" });
  });

  it("ORs the crisis with the offline one and takes the model's emotions", () => {
    const explicit = "i want to kill myself";
    const offline = detect(explicit);
    expect(offline.crisis).toBe(true);
    const no = withModelJudgement(explicit, offline, { crisis: false, crisis_class: null, emotions: ["joy"], top_emotion: "joy" }, false);
    expect(no.crisisReason).toEqual(offline.crisisReason);
    expect(no.intent).toBe("crisis");
    expect(no.emotions).toEqual(["joy"]);

    // The offline word model reads "the water looked calm from the bridge tonight" as a crisis
    // already; a calmer walk by the river is one only the model flags here.
    const calm = "i went for a long walk by the river tonight";
    expect(detect(calm).crisis).toBe(false);
    const yes = withModelJudgement(calm, detect(calm), { crisis: true, crisis_class: "method", emotions: ["sadness"], top_emotion: "sadness" }, false);
    expect(yes).toMatchObject({ crisis: true, crisisReason: { crisisClass: "method", by: "model" }, topEmotion: "sadness", intent: "crisis" });
  });
});
