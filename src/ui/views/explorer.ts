import { FactType, type Hit, MatchStrength } from "../../gen/agentmem/v1/common_pb.js";
import { day, fill, fixed, h } from "../dom.js";

/** `strong` / `moderate` / `weak` for a hit. */
export function strengthName(s: MatchStrength): string {
  switch (s) {
    case MatchStrength.STRONG:
      return "strong";
    case MatchStrength.MODERATE:
      return "moderate";
    case MatchStrength.WEAK:
      return "weak";
    default:
      return "unrated";
  }
}

/** `semantic`, `event`, … for a fact type. */
export function factTypeName(t: FactType): string {
  return (FactType[t] ?? "UNSPECIFIED").toLowerCase();
}

function bar(label: string, value: number, title: string): HTMLElement {
  const level = h("i");
  // Set through the CSSOM: the page's CSP forbids inline style attributes.
  level.style.width = `${Math.round(Math.max(0, Math.min(1, value)) * 100)}%`;
  return h("span", { class: "bar-cell", title }, label, h("span", { class: "mini" }, level), fixed(value));
}

/** Why a hit matched: each scoring component, scaled 0..1 (decay is a multiplier). */
function why(hit: Hit): HTMLElement {
  const c = hit.components;
  if (!c) return h("div", { class: "why" }, "no components reported");
  return h(
    "div",
    { class: "why", "data-why": "" },
    bar("meaning", c.vector, "vector channel, min-max scaled over the candidates"),
    bar("words", c.lexical, "BM25 channel, min-max scaled over the candidates"),
    bar("names", c.names, "share of the query's names found in the memory"),
    bar("salience", c.salience, "importance, pinning and use"),
    h("span", { title: "recency decay, half-life 30 days since last use" }, `recency ×${fixed(c.decay)}`),
    h("span", { title: "final fused score" }, `score ${fixed(c.fused, 3)}`),
  );
}

function hitCard(hit: Hit): HTMLElement {
  const strength = strengthName(hit.strength);
  const similarity = hit.components?.similarity ?? 0;
  const dates = [
    hit.eventDate ? `happened ${day(hit.eventDate)}` : "",
    hit.validFrom ? `recorded ${day(hit.validFrom)}` : "",
    hit.validTo ? `outdated ${day(hit.validTo)}` : "",
  ].filter(Boolean);
  const tags = Object.entries(hit.tags).map(([k, v]) => h("span", { class: "tag" }, `${k}=${v}`));
  return h(
    "article",
    { class: "hit", "data-hit": hit.id, "data-strength": strength },
    h("div", { class: "text" }, hit.kind === "message" ? "[message] " : "", hit.memory),
    h("div", { class: "side" }, h("span", { class: `badge ${strength}` }, strength), " ", h("span", { class: "sim", title: "cosine similarity to the query" }, `sim ${fixed(similarity)}`)),
    why(hit),
    h("div", { class: "meta" }, factTypeName(hit.factType), dates.length ? ` · ${dates.join(" · ")}` : "", " ", ...tags),
    ...hit.history.map((old) => h("div", { class: "chain-old" }, `replaced: (${day(old.validFrom)}) ${old.text}`, old.validTo ? ` [outdated as of ${day(old.validTo)}]` : "")),
  );
}

/** Renders the hits of a Recall or Search, best first. */
export function renderHits(el: HTMLElement, meta: HTMLElement, hits: Hit[], tookMillis: bigint, query: string): void {
  fill(meta, `${hits.length} match${hits.length === 1 ? "" : "es"} in ${tookMillis} ms`);
  if (hits.length === 0) return fill(el, h("p", { class: "muted" }, `Nothing in this user's memory matches “${query}”.`));
  fill(el, ...hits.map(hitCard));
}
