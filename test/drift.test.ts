import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../src/adapters/embedders/hash-embedder.js";
import { createUseEmbedder, type UseEmbedder } from "../src/adapters/embedders/use-embedder.js";
import { LanceStore } from "../src/adapters/lancedb/lance-store.js";
import { USE_CALIBRATION } from "../src/core/drift/calibration.js";
import { scoreDrift } from "../src/core/drift/drift-score.js";
import { Verdict } from "../src/gen/agentmem/v1/common_pb.js";
import { DriftService } from "../src/gen/agentmem/v1/drift_service_pb.js";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { checkDrift, getAnchors } from "../src/services/drift/check.js";
import { DRIFT_CALIBRATION } from "./fixtures/drift-calibration.js";
import { createTestApp, type TestApp } from "./support/harness.js";

const GOAL = "Assess vessel traffic in the Port of Long Beach.";
const ZULU = "report times in Zulu";
const ON_TOPIC = "Vessel traffic at the Port of Long Beach was heavy today, with 14 container ships arriving between 0600Z and 1800Z.";
const SOURDOUGH = "Here is a recipe for sourdough bread.";
const MORE_OFF_TOPIC = [
  "Mix flour, water and salt, then let the dough rise overnight.",
  "My favorite football team won the championship last night.",
  "Here are ten tips for a better night's sleep.",
  "Knitting a scarf requires two needles and some yarn.",
  "Try this lemon cake: beat butter and sugar, add eggs and lemon zest.",
];
const PASS = [Verdict.ON_TRACK, Verdict.NUDGE];

let t: TestApp;
let embedder: UseEmbedder;
beforeAll(async () => {
  embedder = createUseEmbedder();
  await embedder.warmUp();
  t = await createTestApp({ embedder });
});
afterAll(() => t.close());

describe("DriftService with the use embedder", () => {
  it("passes an on-topic answer, blocks sourdough, and five more off-topic turns do not make the sixth pass", async () => {
    const drift = t.client(DriftService);
    const scope = { session: "long-beach" };
    const set = await drift.check({ scope, goal: GOAL, constraints: [ZULU] });
    expect(set.verdict).toBe(Verdict.UNSPECIFIED);

    const on = await drift.check({ scope, response: ON_TOPIC });
    expect(PASS).toContain(on.verdict);
    expect(on.needsIntervention).toBe(false);
    expect(on.nearestAnchor).toBe(GOAL);

    const off = await drift.check({ scope, response: SOURDOUGH });
    expect(off.verdict).toBe(Verdict.BLOCK);
    expect(off.needsIntervention).toBe(true);
    expect(off.corrective).toContain(GOAL);
    expect(off.corrective).toContain(ZULU);
    expect(off.score).toBeGreaterThanOrEqual(0.7);
    const c = off.components!;
    expect(off.score).toBeCloseTo(0.55 * c.goalDistance + 0.3 * c.centroidDistance + 0.15 * c.novelty, 9);

    for (const response of MORE_OFF_TOPIC) {
      const r = await drift.check({ scope, response });
      expect(r.needsIntervention, response).toBe(true);
    }
    const sixth = await drift.check({ scope, response: SOURDOUGH });
    expect(sixth.verdict).toBe(Verdict.BLOCK);
    expect(sixth.score).toBeCloseTo(off.score, 9);

    const anchors = await drift.getAnchors({ scope });
    expect(anchors).toMatchObject({ goal: GOAL, constraints: [ZULU], acceptedTurns: 1n });
  });

  it("scores the Lucenia example in one call: anchors set and the response blocked", async () => {
    const drift = t.client(DriftService);
    const res = await drift.check({ scope: { session: "thread-42" }, goal: GOAL, constraints: [ZULU], response: SOURDOUGH });
    expect(res.verdict).toBe(Verdict.BLOCK);
    expect(res.needsIntervention).toBe(true);
    expect(res.corrective.split("\n")[0]).toBe(GOAL);
    for (const d of [res.components!.goalDistance, res.components!.centroidDistance, res.components!.novelty]) {
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(1);
    }
  });

  it("moves the centroid only with accepted turns and restarts it when the goal changes", async () => {
    const drift = t.client(DriftService);
    const scope = { user: "centroid" };
    await drift.check({ scope, goal: GOAL });
    for (const response of DRIFT_CALIBRATION[0].onTopic.slice(0, 3)) await drift.check({ scope, response });
    await drift.check({ scope, response: SOURDOUGH });
    expect((await drift.getAnchors({ scope })).acceptedTurns).toBe(3n);
    const next = await drift.check({ scope, response: DRIFT_CALIBRATION[0].onTopic[3] });
    expect(next.components!.centroidDistance).toBeLessThanOrEqual(next.components!.goalDistance);
    await drift.check({ scope, goal: "Plan a one-week family vacation to Japan." });
    expect((await drift.getAnchors({ scope })).acceptedTurns).toBe(0n);
    const port = await drift.check({ scope, response: ON_TOPIC });
    expect(port.verdict).toBe(Verdict.BLOCK);
  });
});

describe("DriftService anchors", () => {
  it("re-embeds the anchors and restarts the centroid when the embedding model changes", async () => {
    const drift = t.client(DriftService);
    const scope = { user: "model-switch" };
    await drift.check({ scope, goal: GOAL, constraints: [ZULU], response: ON_TOPIC });
    expect((await drift.getAnchors({ scope })).acceptedTurns).toBe(1n);
    const key = { namespace: "", agent: "", session: "", user: "model-switch" };
    const hashed = { ...t.app.deps, embedder: createHashEmbedder() };
    const r = await checkDrift(hashed, "default", { key, response: ON_TOPIC });
    expect(r.score?.accepted).toBe(true);
    const row = await getAnchors(hashed, "default", key);
    expect(row).toMatchObject({ goal: GOAL, constraints: [ZULU], acceptedTurns: 1, embedModel: hashed.embedder.model });
    expect([row!.goalVector.length, row!.constraintVectors[0].length, row!.centroid.length]).toEqual([384, 384, 384]);
  });

  it("rejects an empty check with INVALID_ARGUMENT and changes nothing", async () => {
    const drift = t.client(DriftService);
    const scope = { user: "empty" };
    for (const req of [{ scope }, { scope, goal: "  ", response: "" }]) {
      const err = await drift.check(req).catch((e: unknown) => e);
      expect(ConnectError.from(err).code).toBe(Code.InvalidArgument);
      expect(ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason).toBe("DRIFT_INPUT_REQUIRED");
    }
    const blank = await drift.check({ scope, constraints: [""] }).catch((e: unknown) => e);
    expect(ConnectError.from(blank).code).toBe(Code.InvalidArgument);
    expect(await drift.getAnchors({ scope })).toMatchObject({ goal: "", constraints: [], acceptedTurns: 0n });
  });

  it("keeps anchors per scope, durably, and clears them", async () => {
    const drift = t.client(DriftService);
    await drift.check({ scope: { user: "ana" }, goal: GOAL, constraints: [ZULU, "cite AIS sources"] });
    expect((await drift.getAnchors({ scope: { user: "bob" } })).goal).toBe("");
    const reader = new LanceStore({ uri: t.dir, dimension: t.app.deps.embedder.dimension });
    const rows = await (await reader.anchors("default")).find({ op: "eq", column: "user", value: "ana" });
    await reader.close();
    expect(rows.map((r) => [r.goal, r.constraints, r.goalVector.length, r.constraintVectors.map((v) => v.length)])).toEqual([
      [GOAL, [ZULU, "cite AIS sources"], 512, [512, 512]],
    ]);
    const withConstraintsOnly = await drift.check({ scope: { user: "ana" }, constraints: [ZULU] });
    expect(withConstraintsOnly.verdict).toBe(Verdict.UNSPECIFIED);
    expect(await drift.getAnchors({ scope: { user: "ana" } })).toMatchObject({ goal: GOAL, constraints: [ZULU] });
    expect((await drift.clearAnchors({ scope: { user: "ana" } })).cleared).toBe(true);
    expect((await drift.clearAnchors({ scope: { user: "ana" } })).cleared).toBe(false);
    expect((await drift.getAnchors({ scope: { user: "ana" } })).goal).toBe("");
  });
});

// The calibration property on the real `use` model: the math the DriftService runs for the first
// answer of a scope (goal and constraints set, no centroid yet), without a store round trip.
describe("drift calibration on the use embedder", () => {
  for (const set of DRIFT_CALIBRATION) {
    it(`separates on-topic from off-topic answers for "${set.goal}"`, async () => {
      const [goal, ...rest] = await embedder.embed([set.goal, ...set.constraints, ...set.onTopic, ...set.offTopic]);
      const constraints = set.constraints.map((text, i) => ({ text, vector: rest[i] }));
      const answers = rest.slice(set.constraints.length);
      const ref = { goal: { text: set.goal, vector: goal }, constraints };
      set.onTopic.forEach((text, i) => {
        const s = scoreDrift(answers[i], ref, USE_CALIBRATION);
        expect(["on_track", "nudge"], `${text} (${s.score.toFixed(3)})`).toContain(s.verdict);
      });
      set.offTopic.forEach((text, i) => {
        const s = scoreDrift(answers[set.onTopic.length + i], ref, USE_CALIBRATION);
        expect(s.verdict, `${text} (${s.score.toFixed(3)})`).toBe("block");
      });
    });
  }
});
