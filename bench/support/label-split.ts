import { createHash } from "node:crypto";

/** The two halves every judgement label set is split into. */
export type Half = "tune" | "validate";

/** Lower case, typographic apostrophes folded, runs of whitespace collapsed, trimmed. */
export function normaliseLabelText(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'").toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The fixed 50/50 split: sha256 of the normalised text; an even first byte is *tune*, an odd one
 * *validate*. Rules and prototypes are chosen on tune only; validate is read for the report.
 */
export function halfOf(text: string): Half {
  const first = createHash("sha256").update(normaliseLabelText(text)).digest()[0];
  return first % 2 === 0 ? "tune" : "validate";
}
