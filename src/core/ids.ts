import { createHash } from "node:crypto";
import type { ScopeKey } from "./records.js";

/** Lower-cases, trims and collapses whitespace: the text identity used for ids and dedup. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** SHA-256 of the normalised text, hex. */
export function contentHash(text: string): string {
  return createHash("sha256").update(normalizeText(text)).digest("hex");
}

/** Content-addressed memory id: a hash of tenant, scope and text (32 hex characters). */
export function memoryId(tenant: string, key: ScopeKey, text: string): string {
  return createHash("sha256")
    .update([tenant, key.namespace, key.agent, key.session, key.user, normalizeText(text)].join("\u0000"))
    .digest("hex")
    .slice(0, 32);
}

/** Stable id for anything derived from its parts (episodes, audit records). */
export function derivedId(prefix: string, ...parts: (string | number)[]): string {
  return `${prefix}_${createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 24)}`;
}
