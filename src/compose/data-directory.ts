import * as lancedb from "@lancedb/lancedb";
import { LanceStore } from "../adapters/lancedb/lance-store.js";
import { parseTableName } from "../adapters/lancedb/table-names.js";
import type { Store } from "../ports/store.js";

/** One table of a data directory; per-tenant tables (`<kind>__<tenant>`) name their kind and tenant. */
export interface DataTable {
  name: string;
  /** `memories`, `episodes`, …; "" for a table that is not per-tenant. A shard table (`memories.s03of08__…`) names its kind. */
  kind: string;
  /** The decoded tenant; "" for a table that is not per-tenant. */
  tenant: string;
}

/**
 * A data directory opened for offline work (`agentmem reembed`, with the server stopped): its
 * tables, their sizes, and stores over them for a given vector dimension.
 */
export interface DataDirectory {
  tables(): Promise<DataTable[]>;
  /** A table's row count and vector dimension (0 when it has no vector column). */
  describe(name: string): Promise<{ rows: number; dimension: number }>;
  dropTable(name: string): Promise<void>;
  /** A store over the directory whose tables hold `dimension`-d vectors; the caller closes it. */
  store(dimension: number): Store;
  close(): void;
}

/** Opens a data directory (or any LanceDB URI) for offline work; `tableShards` as configured (new tenants' layout). */
export async function openDataDirectory(uri: string, tableShards?: number): Promise<DataDirectory> {
  const db = await lancedb.connect(uri);
  return {
    async tables() {
      return (await db.tableNames()).map((name) => {
        const parsed = parseTableName(name);
        return parsed ? { name, kind: parsed.kind, tenant: parsed.tenant } : { name, kind: "", tenant: "" };
      });
    },
    async describe(name) {
      const table = await db.openTable(name);
      const field = (await table.schema()).fields.find((f) => f.name === "vector");
      return { rows: await table.countRows(), dimension: (field?.type as { listSize?: number } | undefined)?.listSize ?? 0 };
    },
    dropTable: (name) => db.dropTable(name),
    store: (dimension) => new LanceStore({ uri, dimension, tableShards }),
    close: () => db.close(),
  };
}
