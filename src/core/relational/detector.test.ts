import { describe, expect, it } from "vitest";
import { detect, isShouting } from "./detector.js";
import { extractMentions } from "./mentions.js";
import { buildSystemPrompt } from "./prompt.js";
import { addMention, newThirdParty, thirdPartyId } from "./third-party.js";

describe("offline detector", () => {
  it("finds emotions, respects negation and keeps the longest overlapping cue", () => {
    expect(detect("I'm really worried about the surgery tomorrow.").emotions).toEqual(["anxiety"]);
    expect(detect("I'm not worried about the test anymore.").emotions).toEqual([]);
    expect(detect("I can't stop crying").emotions).toEqual(["sadness"]);
    expect(detect("Thanks for nothing.").emotions).toEqual(["anger"]);
    expect(detect("Thank you so much, that helped").emotions).toEqual(["gratitude"]);
    expect(detect("I'm happy for her but I feel a bit left out.").emotions).toEqual(["sadness", "joy"]);
  });

  it("flags self-harm and emergencies as crisis, but not idioms", () => {
    const selfHarm = detect("I don't want to live anymore.");
    expect(selfHarm).toMatchObject({ crisis: true, intent: "crisis" });
    expect(selfHarm.emotions).toContain("sadness");
    expect(detect("My chest hurts and I can't breathe").crisis).toBe(true);
    expect(detect("I could just die of embarrassment lol").crisis).toBe(false);
    expect(detect("That movie was killing me, I laughed so hard").crisis).toBe(false);
  });

  it("reads shouting from capitals or repeated !, and a shouted complaint as anger", () => {
    expect(isShouting("THIS IS THE THIRD TIME")).toBe(true);
    expect(isShouting("I got the job!!")).toBe(true);
    expect(isShouting("NASA and the FBI were in the news")).toBe(false);
    expect(isShouting("OK")).toBe(false);
    const d = detect("THIS KEEPS CRASHING, I'M SO FRUSTRATED");
    expect(d).toMatchObject({ shouting: true, emotions: ["anger"], intent: "complaint" });
    expect(d.valence).toBeLessThan(0);
  });

  it("assigns intents by rule", () => {
    expect(detect("What time does the pharmacy open?").intent).toBe("question");
    expect(detect("Can you remind me to take my pills at 8pm?").intent).toBe("request");
    expect(detect("Good morning! How are you today?").intent).toBe("small_talk");
    expect(detect("I'm scared the cancer has come back.").intent).toBe("emotional_support");
    expect(detect("You charged me twice, I want a refund").intent).toBe("complaint");
    expect(detect("Thanks, that worked perfectly.").intent).toBe("gratitude");
    expect(detect("We finally finished the kitchen renovation.").intent).toBe("sharing");
  });
});

describe("third-party mentions", () => {
  it("finds named and unnamed people behind relation words", () => {
    expect(extractMentions("My boss Tom yelled at me again.").map((m) => [m.person, m.relation])).toEqual([["Tom", "boss"]]);
    expect(extractMentions("I called my mom yesterday.").map((m) => [m.person, m.relation])).toEqual([["mother", "mother"]]);
    expect(extractMentions("Lea, my daughter, is visiting.").map((m) => [m.person, m.relation])).toEqual([["Lea", "daughter"]]);
    expect(extractMentions("My best friend Sarah called. My boss Tom did not.").map((m) => m.person)).toEqual(["Sarah", "Tom"]);
    expect(extractMentions("my friends are great, my ex-wife is not")).toEqual([]);
    expect(extractMentions("I talked to my mother. She said hi").map((m) => m.person)).toEqual(["mother"]);
  });

  it("gives each mention its sentence's valence and keeps a running mean", () => {
    const [love] = extractMentions("I love my sister Ana, she is wonderful.");
    expect(love.valence).toBeGreaterThan(0.5);
    const [hate] = extractMentions("My boss Tom is awful and I hate him.");
    expect(hate.valence).toBeLessThan(-0.5);
    let row = newThirdParty("u", "Tom", "boss", 0);
    row = addMention(row, { ...hate, valence: -0.6 }, 1000);
    row = addMention(row, { ...hate, valence: 0.2 }, 2000);
    expect(row).toMatchObject({ mentions: 2, sentiment: -0.2, lastMentioned: 2000, relation: "boss" });
    expect(thirdPartyId("u", " tom ")).toBe(thirdPartyId("u", "Tom"));
  });
});

describe("system prompt", () => {
  it("stitches in the state, tone, signals and dated memories", () => {
    const prompt = buildSystemPrompt({
      state: { trust: 0.6, sentiment: 0.45, grudge: 0.45, familiarity: 0.05 },
      relationBias: 0.03,
      tone: "cautious",
      emotions: ["anxiety"],
      intent: "emotional_support",
      crisis: false,
      shouting: false,
      interactionCount: 11,
      memories: [{ text: "User: my surgery is tomorrow\nAssistant: good luck", at: Date.parse("2026-04-16T10:00:00Z"), similarity: 0.71 }],
    });
    expect(prompt).toContain("Tone: cautious.");
    expect(prompt).toContain("trust 0.60, sentiment 0.45, grudge 0.45, familiarity 0.05");
    expect(prompt).toContain("emotions anxiety; intent emotional_support");
    expect(prompt).toContain("- (2026-04-16, similarity 0.71) User: my surgery is tomorrow / Assistant: good luck");
  });
});
