import { createHash } from "node:crypto";
import { invalidArgument } from "../../core/errors.js";

// Opaque keyset tokens: the sort key of the last row served, bound to a fingerprint of the
// listing (tenant, scope, filters), so a token cannot be replayed against another scope. A
// keyset, unlike an offset, neither repeats nor skips a row when rows move between pages.

/** The sort key of the last row of a page: a number (time or position) and the row id. */
export interface Cursor {
  at: number;
  id: string;
}

function fingerprint(parts: readonly string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("base64url").slice(0, 16);
}

/** Encodes the cursor after which the next page of the listing `parts` starts. */
export function encodeCursor(cursor: Cursor, parts: readonly string[]): string {
  return Buffer.from(JSON.stringify({ a: cursor.at, i: cursor.id, f: fingerprint(parts) })).toString("base64url");
}

/** Decodes a token ("" → null: the first page); a token of another listing is INVALID_ARGUMENT. */
export function decodeCursor(token: string, parts: readonly string[]): Cursor | null {
  if (token === "") return null;
  try {
    const t = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { a?: unknown; i?: unknown; f?: unknown };
    if (typeof t.a === "number" && Number.isFinite(t.a) && typeof t.i === "string" && t.f === fingerprint(parts)) return { at: t.a, id: t.i };
  } catch {
    // Fall through: any undecodable token is invalid.
  }
  throw invalidArgument("page_token", "INVALID_PAGE_TOKEN", "page_token is not valid for this request");
}
