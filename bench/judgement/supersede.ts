import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { pino } from "pino";
import { createApp } from "../../src/app.js";
import { createApiInterceptors, createInProcessTransport } from "../../src/compose/api-interceptors.js";
import { loadConfig } from "../../src/config.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import type { Embedder } from "../../src/ports/embedder.js";
import type { LabelledScenario } from "../support/judgement-labels.js";
import type { Half } from "../support/label-split.js";

/** One scenario run through Add, Add a year later, then Search. */
export interface ScenarioRow {
  half: Half;
  /** The label set it comes from. */
  source: string;
  kind: string;
  slot: string;
  closes: boolean;
  first: string;
  second: string;
  question: string;
  expected: string;
  /** Facts the first Add stored, and which of them the second Add closed. */
  firstFacts: string[];
  closed: string[];
  secondFacts: string[];
  top: string;
  /** The first five Search hits with their score, the category the Add filed them under, and whether they replaced a fact. */
  hits: { text: string; score: number; category: string; replaced: boolean }[];
  closedRight: boolean;
  topRight: boolean;
  right: boolean;
}

/** The figures of one half. */
export interface ScenarioFigures {
  scenarios: number;
  right: number;
  accuracy: number;
  negatives: number;
  /** Negatives (closes = false) where the second Add closed a fact of the first. */
  negativesThatClosed: number;
  positivesClosed: number;
  positives: number;
}

const T0 = Date.UTC(2025, 2, 1, 12);
const YEAR = 365 * 86_400_000;

/** Runs every scenario in-process over a real LanceDB temp dir with `--llm none`, one end-user each. */
export async function runScenarios(embedder: Embedder, scenarios: readonly LabelledScenario[]): Promise<ScenarioRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-bench-judgement-"));
  const config = loadConfig({ data: dir, embedder: embedder.mode === "hash" ? "hash" : "use", llm: "none" }, { AGENTMEM_LOG_LEVEL: "silent" });
  const app = await createApp(config, { embedder, logger: pino({ level: "silent" }) });
  const client = createClient(MemoryService, createInProcessTransport(config, app, createApiInterceptors(config, app, app.deps.logger)));
  const rows: ScenarioRow[] = [];
  try {
    for (const [i, s] of scenarios.entries()) {
      const scope = { user: `scenario-${i}` };
      const first = await client.add({ scope, observedAt: timestampFromMs(T0), messages: [{ role: "user", name: s.speaker, content: s.first }] });
      const second = await client.add({ scope, observedAt: timestampFromMs(T0 + YEAR), messages: [{ role: "user", name: s.speaker, content: s.second }] });
      const firstIds = new Set(first.added.map((m) => m.id));
      const closed = second.superseded.filter((m) => firstIds.has(m.id)).map((m) => m.text);
      const found = await client.search({ scope, query: s.question, k: 5 });
      const categories = new Map([...first.added, ...second.added].map((m) => [m.id, m.category] as const));
      const top = found.hits[0]?.memory ?? "";
      const closedRight = s.closes ? closed.length > 0 : closed.length === 0;
      const topRight = top.toLowerCase().includes(s.expected.toLowerCase());
      rows.push({
        half: s.half,
        source: s.source,
        kind: s.kind,
        slot: s.slot,
        closes: s.closes,
        first: s.first,
        second: s.second,
        question: s.question,
        expected: s.expected,
        firstFacts: first.added.map((m) => m.text),
        closed,
        secondFacts: second.added.map((m) => m.text),
        top,
        hits: found.hits.map((h) => ({ text: h.memory, score: h.score, category: categories.get(h.id) ?? "", replaced: h.history.length > 0 })),
        closedRight,
        topRight,
        right: closedRight && topRight,
      });
    }
  } finally {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Accuracy and negatives that closed a fact, over some rows. */
export function scenarioFigures(rows: readonly ScenarioRow[]): ScenarioFigures {
  const right = rows.filter((r) => r.right).length;
  const negatives = rows.filter((r) => !r.closes);
  const positives = rows.filter((r) => r.closes);
  return {
    scenarios: rows.length,
    right,
    accuracy: rows.length === 0 ? 0 : Math.round((right / rows.length) * 1000) / 1000,
    negatives: negatives.length,
    negativesThatClosed: negatives.filter((r) => r.closed.length > 0).length,
    positives: positives.length,
    positivesClosed: positives.filter((r) => r.closed.length > 0).length,
  };
}

/** Two lines per wrong scenario. */
export function scenarioFailures(rows: readonly ScenarioRow[]): string[] {
  return rows
    .filter((r) => !r.right)
    .map(
      (r) =>
        `[${r.closes ? "close" : "keep"} ${r.slot}/${r.kind}] ${r.closedRight ? "" : r.closes ? "NOT CLOSED " : "CLOSED "}${r.topRight ? "" : `TOP lacks "${r.expected}" `}\n` +
        `      1: ${r.first} → ${JSON.stringify(r.firstFacts)}\n      2: ${r.second} → ${JSON.stringify(r.secondFacts)}\n      Q: ${r.question} → ${r.top}`,
    );
}
