import { createHash } from "node:crypto";
import type { Connection } from "@lancedb/lancedb";
import { arrow } from "../../src/adapters/lancedb/arrow.js";
import { encodeTenant } from "../../src/adapters/lancedb/table-names.js";

// Columns that reads change on purpose (use tracking) and tables that every call or a
// background task writes (the audit trail, provider counters, recorded uses): not "data" for this digest.
const VOLATILE_COLUMNS = new Set(["last_accessed_at", "access_count"]);
const VOLATILE_TABLES = new Set(["audit", "usage", "memory_use"]);

/**
 * A hash of every stored row of a tenant (vectors and use-tracking columns aside), to show that a
 * rejected call changed nothing.
 */
export async function tenantDigest(db: Connection, tenant: string): Promise<string> {
  const suffix = `__${encodeTenant(tenant)}`;
  const hash = createHash("sha256");
  for (const name of (await db.tableNames()).filter((n) => n.endsWith(suffix)).sort()) {
    if (VOLATILE_TABLES.has(name.slice(0, -suffix.length))) continue;
    const table = await db.openTable(name);
    const columns = (await table.schema()).fields.filter((f) => !arrow.DataType.isFixedSizeList(f.type) && !VOLATILE_COLUMNS.has(f.name)).map((f) => f.name);
    const rows = ((await table.query().select(columns).toArray()) as Record<string, unknown>[]).map((r) =>
      JSON.stringify(columns.map((c) => r[c]), (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
    );
    // An empty table a read path created on first use holds no data.
    if (rows.length > 0) hash.update(`${name}\n${rows.sort().join("\n")}\n`);
  }
  return hash.digest("hex");
}
