import { createHash } from "node:crypto";
import { invalidArgument } from "../core/errors.js";

// Opaque page tokens: an offset bound to a fingerprint of the query it belongs to, so a token
// cannot be replayed against another scope or list.

function fingerprint(parts: readonly string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 16);
}

/** Encodes the next offset for a listing identified by `parts`. */
export function encodePageToken(offset: number, parts: readonly string[]): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint(parts) })).toString("base64url");
}

/** Decodes a page token ("" → 0); a token from another listing is INVALID_ARGUMENT. */
export function decodePageToken(token: string, parts: readonly string[]): number {
  if (token === "") return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { o?: unknown; f?: unknown };
    if (typeof parsed.o === "number" && Number.isInteger(parsed.o) && parsed.o >= 0 && parsed.f === fingerprint(parts)) return parsed.o;
  } catch {
    // Fall through to the error below: any undecodable token is invalid.
  }
  throw invalidArgument("page_token", "INVALID_PAGE_TOKEN", "page_token is not valid for this request");
}
