import { countTokens } from "gpt-tokenizer";
import type { ScoredCandidate } from "../../core/fact-search.js";
import { type BlockUnit, factLine, fillBlock, messageLine } from "../../core/block-lines.js";
import type { EpisodeRecord, ScopeKey } from "../../core/records.js";
import type { ServiceDeps } from "../deps.js";
import { factHitToProto, turnHitToProto } from "./fact-hits.js";
import { loadProfile } from "./profiles.js";
import { type FactHit, questionSignals, searchFacts, searchTurns } from "./search.js";

/** A validated PromptBlock. */
export interface PromptBlockInput {
  key: ScopeKey;
  query: string;
  budgetTokens: number;
}

/** Facts and raw turns considered for a block. */
const BLOCK_FACTS = 20;
const BLOCK_TURNS = 5;

type Row = { kind: "fact"; hit: FactHit } | { kind: "turn"; hit: ScoredCandidate<EpisodeRecord> };

/**
 * A dated block for a prompt: `Profile so far: …` first, then the most relevant facts (each after
 * the outdated rows it replaced, marked `[outdated as of …]`) and raw turns (`[message]`), in
 * score order, cut to `budgetTokens` counted with the o200k tokenizer (gpt-tokenizer).
 */
export async function promptBlock(deps: ServiceDeps, tenant: string, input: PromptBlockInput) {
  const signals = await questionSignals(deps, input.query);
  const [facts, turns, profile] = await Promise.all([
    searchFacts(deps, tenant, { key: input.key, query: input.query, k: BLOCK_FACTS }, signals),
    searchTurns(deps, tenant, input.key, input.query, BLOCK_TURNS, signals),
    loadProfile(deps, tenant, input.key),
  ]);
  const rows: Row[] = [...facts.map((hit) => ({ kind: "fact" as const, hit })), ...turns.map((hit) => ({ kind: "turn" as const, hit }))];
  rows.sort((a, b) => b.hit.score - a.hit.score);
  const units: BlockUnit<Row>[] = rows.map((row) => {
    if (row.kind === "turn") {
      const e = row.hit.item;
      return { row, lines: [messageLine(e.observedAt, e.name !== "" ? e.name : e.role, e.content)] };
    }
    const m = row.hit.item;
    const own = factLine(m.validFrom, m.text, m.validTo);
    const older = row.hit.history.map((h) => factLine(h.validFrom, h.text, h.validTo));
    return older.length > 0 ? { row, lines: [...older, own], fallback: [own] } : { row, lines: [own] };
  });
  const filled = fillBlock(profile?.text ?? "", units, input.budgetTokens, countTokens);
  return {
    block: filled.block,
    tokensUsed: filled.tokens,
    rows: filled.included.map(({ row, lines }) =>
      row.kind === "turn" ? turnHitToProto(row.hit) : factHitToProto(tenant, { ...row.hit, history: lines.length > 1 ? row.hit.history : [] }),
    ),
  };
}
