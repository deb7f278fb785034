import { describe, expect, it } from "vitest";
import { actorOf, speakerEvents } from "./change-events.js";
import { extractOffline } from "./offline-extractor.js";

// Sentences written for these tests, not taken from bench/labels.
const T0 = Date.UTC(2025, 5, 1, 9);
const T1 = Date.UTC(2026, 5, 1, 9);

/** First turn, then second turn a year later: which of the first turn's facts the second closes. */
function closes(speaker: string, first: string, second: string): { stored: string[]; closed: boolean; newFacts: string[] } {
  const firstFacts = extractOffline({ messages: [{ id: "m1", role: "user", name: speaker, content: first }], observedAt: T0, storedFacts: [], strategies: [] });
  const storedFacts = firstFacts.map((f, i) => ({ id: `f${i}`, text: f.text }));
  const next = extractOffline({ messages: [{ id: "m2", role: "user", name: speaker, content: second }], observedAt: T1, storedFacts, strategies: [] });
  return { stored: storedFacts.map((f) => f.text), closed: next.some((f) => f.supersedes.length > 0), newFacts: next.map((f) => f.text) };
}

describe("actor of a clause", () => {
  it("reads the speaker in I, we, partner-and-I, the own name and no subject; others are not the speaker", () => {
    expect(actorOf("we upped sticks to Tromsø", ["Ines"], null)).toBe("speaker");
    expect(actorOf("my partner and I signed the lease", ["Ines"], null)).toBe("speaker");
    expect(actorOf("Kofi and I got married", ["Ines"], null)).toBe("speaker");
    expect(actorOf("Ines is now based in Tromsø", ["Ines"], null)).toBe("speaker");
    expect(actorOf("relocated to Tromsø in May", ["Ines"], null)).toBe("speaker");
    expect(actorOf("my cousin relocated to Tromsø", ["Ines"], null)).toBe("other");
    expect(actorOf("she moved to Bergen", ["Ines"], null)).toBe("other");
  });
});

describe("event frames", () => {
  const slots = (s: string, name = "Ines") => speakerEvents(s, [name]).map((e) => `${e.slot}=${e.value}${e.ended ? " (ended)" : ""}`);

  it("homes: move verbs, settling, the old place behind us, a fragment", () => {
    expect(slots("We upped sticks to Tromsø over the winter.")).toContain("lives_in=tromsø");
    expect(slots("Settled in Valparaíso now, the hills are brutal.")).toContain("lives_in=valparaíso");
    expect(slots("Bergen is behind us now.")).toContain("lives_in=bergen (ended)");
    // A bare "X now." is a home only when compromise knows X as a place.
    expect(slots("Lisbon now.")).toContain("lives_in=lisbon");
    expect(slots("My cousin relocated to Tromsø.")).toEqual([]);
  });

  it("employers: leaving one and joining another in one sentence, a new employer as the object of join", () => {
    const s = slots("Quit Ericsson and joined Volvo Cars in the autumn.");
    expect(s).toContain("works_at=ericsson (ended)");
    expect(s).toContain("works_at=volvo cars");
    expect(slots("Hired by Maersk last spring.")).toContain("works_at=maersk");
    expect(slots("My manager left Ericsson for Saab.")).toEqual([]);
  });

  it("jobs: promotions, career changes and fragments", () => {
    expect(slots("They promoted me to head of logistics in April.")).toContain("job=head of logistics");
    expect(slots("Retrained as a radiographer after the kids started school.")).toContain("job=radiographer");
    expect(slots("Site supervisor now.")).toContain("job=site supervisor");
    expect(slots("My brother became a pilot.")).toEqual([]);
  });

  it("relationships phrased as events", () => {
    expect(slots("We tied the knot on the beach in Goa!")).toContain("relationship=married");
    expect(slots("Signed the divorce papers on Thursday.")).toContain("relationship=divorced");
    expect(slots("He said yes!!")).toContain("relationship=engaged");
    expect(slots("Tomasz and I broke up over the summer.")).toContain("relationship=single");
    expect(slots("My sister got divorced.")).toEqual([]);
  });

  it("names: changed, taken, gone by, it's X now", () => {
    expect(slots("I changed my name to Rowan Vance.")).toContain("name=rowan vance");
    expect(slots("It's Ines Duarte now, I took his surname.", "Ines")).toContain("name=ines duarte");
    expect(slots("I go by Nell now.")).toContain("name=nell");
  });
});

describe("supersede through the offline extractor", () => {
  it("closes the old fact for the speaker's life changes, phrased as events or fragments", () => {
    expect(closes("Ines", "I live in Bergen.", "We upped sticks to Tromsø over the winter.").closed).toBe(true);
    expect(closes("Ines", "I work at Ericsson.", "Quit Ericsson and joined Volvo Cars in the autumn.").closed).toBe(true);
    expect(closes("Ines", "I'm a staff nurse on the renal ward.", "Ward manager now.").closed).toBe(true);
    expect(closes("Ines", "I'm engaged to Kofi.", "Kofi and I tied the knot in Accra!").closed).toBe(true);
    expect(closes("Ines", "My name is Ines Costa.", "I changed my name to Ines Duarte after the wedding.").closed).toBe(true);
  });

  it("stores a subjectless change so Search can find the new value", () => {
    const r = closes("Ines", "I live in Bergen.", "Moved to Tromsø in March.");
    expect(r.closed).toBe(true);
    expect(r.newFacts.join(" ")).toContain("Tromsø");
  });

  it("never closes for plans, hypotheticals, questions, denials, other people or the same value", () => {
    expect(closes("Ines", "I live in Bergen.", "Thinking about moving to Tromsø next year.").closed).toBe(false);
    expect(closes("Ines", "I live in Bergen.", "If we moved to Tromsø I'd need a better coat.").closed).toBe(false);
    expect(closes("Ines", "I live in Bergen.", "Should we move to Tromsø?").closed).toBe(false);
    expect(closes("Ines", "I work at Ericsson.", "I'm not leaving Ericsson, whatever they offer.").closed).toBe(false);
    expect(closes("Ines", "I work at Ericsson.", "My husband quit Ericsson and joined Saab.").closed).toBe(false);
    expect(closes("Ines", "I live in Bergen.", "Still in Bergen, still raining.").closed).toBe(false);
    expect(closes("Ines", "I'm married to Kofi.", "We nearly split up last year but we're fine.").closed).toBe(false);
  });
});
