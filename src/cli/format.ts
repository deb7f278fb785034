import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";
import { FactType, type Hit, MatchStrength, type Memory } from "../../sdk/index.js";

const LONG = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "2-digit", timeZone: "UTC" });

/** `January 14, 2025` (the prompt block's date style), or "" when unset. */
export function longDate(t: Timestamp | undefined): string {
  return t ? LONG.format(timestampDate(t)) : "";
}

/** `2025-01-14`, or "" when unset. */
export function isoDay(t: Timestamp | undefined): string {
  return t ? timestampDate(t).toISOString().slice(0, 10) : "";
}

/** `2025-01-14 09:30`, or "" when unset. */
export function isoMinute(t: Timestamp | undefined): string {
  return t ? timestampDate(t).toISOString().slice(0, 16).replace("T", " ") : "";
}

/** `strong` / `moderate` / `weak`. */
export function strength(s: MatchStrength): string {
  return s === MatchStrength.UNSPECIFIED ? "unrated" : MatchStrength[s].toLowerCase();
}

/** `semantic`, `event`, …. */
export function factType(t: FactType): string {
  return (FactType[t] ?? "UNSPECIFIED").toLowerCase();
}

/** One numbered, dated hit line plus the closed rows it replaced, indented. */
export function hitLines(hit: Hit, rank: number): string[] {
  const date = longDate(hit.eventDate ?? hit.validFrom ?? hit.createdAt);
  const sim = hit.components ? ` sim ${hit.components.similarity.toFixed(2)}` : "";
  const head = `${String(rank).padStart(2)}. (${date}) ${hit.kind === "message" ? "[message] " : ""}${hit.memory}`;
  const why = `    ${strength(hit.strength)} · score ${hit.score.toFixed(3)}${sim} · ${factType(hit.factType)} · ${hit.id}`;
  const replaced = hit.history.map((m) => `    replaced: (${longDate(m.validFrom)}) ${m.text}${m.validTo ? ` [outdated as of ${longDate(m.validTo)}]` : ""}`);
  return [head, why, ...replaced];
}

/** One fact line: `2025-01-14 .. 2026-03-02  text  [outdated]`. */
export function factLine(m: Memory): string {
  const from = isoDay(m.validFrom);
  const to = m.validTo ? isoDay(m.validTo) : "now";
  const event = m.eventDate ? ` (happened ${isoDay(m.eventDate)})` : "";
  const flags = [m.validTo ? "outdated" : "", m.pinned ? "pinned" : "", factType(m.factType)].filter(Boolean).join(", ");
  return `${from} .. ${to.padEnd(10)}  ${m.text}${event}  [${flags}]`;
}
