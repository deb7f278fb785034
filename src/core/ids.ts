import { hash } from "node:crypto";
import type { ScopeKey } from "./records.js";

/** Lower-cases, trims and collapses whitespace: the text identity used for ids and dedup. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

// `crypto.hash` (one-shot, Node ≥ 20.12) is ~4× faster than createHash for short inputs; ingest
// hashes three times a row.

/** SHA-256 of the normalised text, hex. */
export function contentHash(text: string): string {
  return hash("sha256", normalizeText(text));
}

/** Content-addressed memory id: a hash of tenant, scope and text (32 hex characters). */
export function memoryId(tenant: string, key: ScopeKey, text: string): string {
  return idOfNormalized(tenant, key, normalizeText(text));
}

/** `memoryId` and `contentHash` of one text, normalising it once (the ingest path needs both). */
export function memoryIdentity(tenant: string, key: ScopeKey, text: string): { id: string; contentHash: string } {
  const normalized = normalizeText(text);
  return { id: idOfNormalized(tenant, key, normalized), contentHash: hash("sha256", normalized) };
}

function idOfNormalized(tenant: string, key: ScopeKey, normalized: string): string {
  return hash("sha256", [tenant, key.namespace, key.agent, key.session, key.user, normalized].join("\u0000")).slice(0, 32);
}

/** Stable id for anything derived from its parts (episodes, audit records). */
export function derivedId(prefix: string, ...parts: (string | number)[]): string {
  return `${prefix}_${hash("sha256", parts.join("\u0000")).slice(0, 24)}`;
}
