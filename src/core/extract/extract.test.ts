import { describe, expect, it } from "vitest";
import { findDates, formatLongDate, parseEventDate } from "./dates.js";
import { extractOffline } from "./offline-extractor.js";
import { parseExtractorAnswer } from "./proposed-fact.js";
import { conflictingSlots, findSlots } from "./slots.js";
import { firstPersonStatement, toThirdPerson, withImpliedSpeaker } from "./first-person.js";

const MAR_02_2026 = Date.UTC(2026, 2, 2, 10);

describe("dates", () => {
  it("reads extractor dates; a month-only date is the first of that month", () => {
    expect(parseEventDate("2026-03")).toBe(Date.UTC(2026, 2, 1));
    expect(parseEventDate("2025-01-14")).toBe(Date.UTC(2025, 0, 14));
    expect(parseEventDate("2024")).toBe(Date.UTC(2024, 0, 1));
    expect(parseEventDate(null)).toBeNull();
    expect(parseEventDate("")).toBeNull();
    expect(parseEventDate("2025-02-30")).toBeNaN();
    expect(parseEventDate("March 2026")).toBeNaN();
  });

  it("formats the block's dates with a zero-padded day", () => {
    expect(formatLongDate(Date.UTC(2026, 2, 2, 23))).toBe("March 02, 2026");
    expect(formatLongDate(Date.UTC(2025, 0, 14))).toBe("January 14, 2025");
  });

  it("finds absolute, relative and bare-year dates against the reference", () => {
    const [jan] = findDates("what did I do on January 14, 2025?", MAR_02_2026);
    expect([jan.start, jan.end, jan.granularity, jan.absolute]).toEqual([Date.UTC(2025, 0, 14), Date.UTC(2025, 0, 15), "day", true]);
    const [yesterday] = findDates("yesterday I went swimming", MAR_02_2026);
    expect([yesterday.start, yesterday.absolute]).toEqual([Date.UTC(2026, 2, 1), false]);
    const [month] = findDates("I started in March 2024", MAR_02_2026);
    expect([month.start, month.end, month.granularity]).toEqual([Date.UTC(2024, 2, 1), Date.UTC(2024, 3, 1), "month"]);
    const [year] = findDates("in 2023 I lived in Berlin", MAR_02_2026);
    expect([year.start, year.granularity]).toEqual([Date.UTC(2023, 0, 1), "year"]);
  });

  it("reads 'last month', 'next week', 'this year' as dates, and a length of time as none", () => {
    expect(findDates("I moved to Leeds last month", MAR_02_2026).map((d) => d.start)).toEqual([Date.UTC(2026, 1, 1)]);
    expect(findDates("we fly out next week", MAR_02_2026)).toHaveLength(1);
    expect(findDates("this year has been hard", MAR_02_2026).map((d) => d.start)).toEqual([Date.UTC(2026, 0, 1)]);
    for (const span of ["I've lived in Leeds for ten years", "married for 3 years now", "for the past two years", "I worked there for two years before that", "it rained eleven days straight"]) {
      expect(findDates(span, MAR_02_2026), span).toEqual([]);
    }
    const facts = extractOffline({ messages: [{ id: "m1", role: "user", name: "Dee", content: "I have been with Octavia Housing for six years." }], observedAt: MAR_02_2026, storedFacts: [], strategies: [] });
    expect(facts.map((f) => [f.text, f.eventDate])).toEqual([["Dee has been with Octavia Housing for six years.", null]]);
  });
});

describe("extractor answer schema", () => {
  const item = { text: "Maya moved to Paris.", category: "semantic", importance: 9, event_date: "2026-03", entities: ["Maya"], sources: ["t1"], supersedes: ["a1"] };

  it("accepts exactly the seed's JSON", () => {
    const parsed = parseExtractorAnswer(JSON.stringify({ memory: [item] }));
    expect(parsed).toEqual({
      ok: true,
      facts: [{ text: "Maya moved to Paris.", category: "semantic", importance: 9, eventDate: Date.UTC(2026, 2, 1), entities: ["Maya"], sources: ["t1"], supersedes: ["a1"], factType: "semantic" }],
    });
  });

  it("rejects anything else", () => {
    const bad = [
      "not json",
      JSON.stringify([item]),
      JSON.stringify({ memory: [item], extra: 1 }),
      JSON.stringify({ memory: [{ ...item, importance: 11 }] }),
      JSON.stringify({ memory: [{ ...item, event_date: "soon" }] }),
      JSON.stringify({ memory: [{ ...item, mood: "happy" }] }),
      JSON.stringify({ memory: [{ ...item, text: "" }] }),
    ];
    for (const content of bad) expect(parseExtractorAnswer(content).ok, content).toBe(false);
  });
});

describe("first person", () => {
  it("rewrites statements in the third person and skips questions and filler", () => {
    expect(toThirdPerson("I live in London and work as a nurse.", "Maya")).toBe("Maya lives in London and works as a nurse.");
    expect(toThirdPerson("I don't eat meat, my partner does.", "Maya")).toBe("Maya does not eat meat, Maya's partner does.");
    expect(toThirdPerson("I am a nurse.", "the user")).toBe("The user is a nurse.");
    expect(firstPersonStatement("Can you help me?")).toBe("none");
    expect(firstPersonStatement("I see.")).toBe("none");
    expect(firstPersonStatement("We adopted a dog.")).toBe("plural");
  });

  it("gives a turn that opens with a past or -ing form, or 'been', its speaker; not requests or modals", () => {
    expect(withImpliedSpeaker("Been with Octavia Housing for six years.")).toBe("I have been with Octavia Housing for six years.");
    expect(withImpliedSpeaker("Driving a forklift at the Ikea depot, nights mostly.")).toBe("I am driving a forklift at the Ikea depot, nights mostly.");
    expect(withImpliedSpeaker("Emigrated to Perth with the kids.")).toBe("I emigrated to Perth with the kids.");
    expect(withImpliedSpeaker("Order me a taxi for six.")).toBe("Order me a taxi for six.");
    expect(withImpliedSpeaker("Should be moving to Bath soon.")).toBe("Should be moving to Bath soon.");
    expect(withImpliedSpeaker("Were moving to Bath in May.")).toBe("Were moving to Bath in May.");
    expect(withImpliedSpeaker("Working late again?")).toBe("Working late again?");
  });

  it("stores a subjectless statement of the speaker's state as the speaker's fact", () => {
    // Both were stored as nothing before the verb's form was read.
    const stored = (content: string) => extractOffline({ messages: [{ id: "m1", role: "user", name: "Dee", content }], observedAt: MAR_02_2026, storedFacts: [], strategies: [] }).map((f) => f.text);
    expect(stored("Selling conservatories for a firm in Swindon, mostly commission.")).toEqual(["Dee is selling conservatories for a firm in Swindon, mostly commission."]);
    expect(stored("Been with Octavia Housing since the spring.").join(" | ")).toMatch(/^Dee has been with Octavia Housing/);
  });
});

describe("slots", () => {
  it("finds the speaker's slots and ignores other people's", () => {
    expect(findSlots("Maya lives in London and works as a nurse at St Thomas'.")).toEqual([
      { slot: "lives_in", value: "london", subject: "Maya" },
      { slot: "works_at", value: "st thomas", subject: "Maya" },
      { slot: "job", value: "nurse", subject: "Maya" },
    ]);
    expect(findSlots("My sister lives in Rome.")).toEqual([{ slot: "lives_in", value: "rome", subject: "" }]);
    expect(findSlots("I got married last June.")).toEqual([{ slot: "relationship", value: "married", subject: "I" }]);
    expect(findSlots("My name is Maya Lopez.")).toEqual([{ slot: "name", value: "maya lopez", subject: "I" }]);
  });

  it("a new value of the same slot conflicts; the same value or another slot does not", () => {
    const stored = findSlots("Maya lives in London.");
    expect(conflictingSlots(findSlots("Maya moved from London to Paris."), stored, ["Maya"])).toEqual(["lives_in"]);
    expect(conflictingSlots(findSlots("Maya lives in London, UK."), stored, ["Maya"])).toEqual([]);
    expect(conflictingSlots(findSlots("Maya works at Google."), stored, ["Maya"])).toEqual([]);
    expect(conflictingSlots(findSlots("Her sister Ana lives in Rome."), stored, ["Maya"])).toEqual([]);
  });
});

describe("offline extractor", () => {
  it("extracts dated facts with entities and closes contradicted slots", () => {
    const facts = extractOffline({
      observedAt: MAR_02_2026,
      strategies: [],
      storedFacts: [
        { id: "a1", text: "Maya lives in London and works as a nurse at St Thomas'." },
        { id: "a2", text: "Maya's sister Ana lives in Rome." },
        { id: "a3", text: "Maya is single." },
      ],
      messages: [
        { id: "t1", role: "user", name: "Maya", content: "Big news: I just moved from London to Paris! Yesterday I went to a bakery with Sam. Any tips?" },
        { id: "t2", role: "assistant", name: "", content: "I love Paris bakeries." },
      ],
    });
    expect(facts.map((f) => [f.text, f.supersedes, f.eventDate, f.sources])).toEqual([
      ["Maya just moved from London to Paris!", ["a1"], Date.UTC(2026, 2, 2), ["t1"]],
      ["On March 1, 2026 Maya went to a bakery with Sam.", [], Date.UTC(2026, 2, 1), ["t1"]],
    ]);
    expect(facts[0].importance).toBe(9);
    expect(facts[0].entities).toEqual(expect.arrayContaining(["London", "Paris", "Maya"]));
    expect(facts[1].factType).toBe("event");
  });

  it("reads a statement by the speaker's own name as the speaker's, and another name's as not", () => {
    const run = (content: string) =>
      extractOffline({ observedAt: MAR_02_2026, strategies: [], storedFacts: [{ id: "g1", text: "Gwen lives in Swansea." }], messages: [{ id: "t1", role: "user", name: "Gwen", content }] });
    expect(run("Gwen has officially moved to Cardiff!").map((f) => f.supersedes)).toEqual([["g1"]]);
    expect(run("Rhys has officially moved to Cardiff!")).toEqual([]);
  });

  it("keeps only the requested kinds with strategies", () => {
    const facts = extractOffline({
      observedAt: MAR_02_2026,
      strategies: ["preferences"],
      storedFacts: [],
      messages: [{ id: "t1", role: "user", name: "Li", content: "I love spicy food. I work at Acme." }],
    });
    expect(facts.map((f) => f.text)).toEqual(["Li loves spicy food."]);
  });
});

describe("offline extractor: how a statement stands to the speaker's present", () => {
  const categoryOf = (content: string) =>
    extractOffline({ messages: [{ id: "m1", role: "user", name: "Lucy", content }], observedAt: MAR_02_2026, storedFacts: [], strategies: [] }).map((f) => f.category);

  it("files plans, wishes, denied changes, the past, stays and someone else's news as not current", () => {
    expect(categoryOf("I'm thinking about moving to Edinburgh.")).toEqual(["hypothetical"]);
    expect(categoryOf("If I marry Tom I'm not taking his name.")).toEqual(["hypothetical"]);
    expect(categoryOf("I'm going to start at HSBC next month.")).toEqual(["plan"]);
    expect(categoryOf("I'm not leaving Spotify, whatever the rumours say.")).toEqual(["denied"]);
    expect(categoryOf("I used to live in Rome.")).toEqual(["past"]);
    expect(categoryOf("I'm in Frankfurt for two weeks for a course.")).toEqual(["temporary"]);
    expect(categoryOf("My husband just got promoted to headteacher at his school!")).toEqual(["about_others"]);
  });

  it("keeps the speaker's actual statements and events in their own category", () => {
    expect(categoryOf("I live in London.")).toEqual(["location"]);
    expect(categoryOf("Left teaching in July and retrained as an electrician, first proper job on site next week.")).toEqual(["work"]);
  });

  it("reads a thing of the speaker's as the speaker's, and a person of the speaker's as someone else", () => {
    // Until round 10 every "my/our" subject was someone else's news, ranked down in Search.
    const notOthers = ["My flat's in Belfast, city centre.", "Our little house in Asheville needs a new roof.", "My employer is Novo Nordisk.", "My job is stressful."];
    for (const s of notOthers) expect(categoryOf(s)).not.toContain("about_others");
    expect(categoryOf("My sister moved to Leeds last spring.")).toEqual(["about_others"]);
    expect(categoryOf("Our neighbours sold their house.")).toEqual(["about_others"]);
  });
});
