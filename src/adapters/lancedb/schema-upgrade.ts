import type { Table } from "@lancedb/lancedb";
import type { Field, Schema } from "apache-arrow";

/**
 * Adds to an existing table the columns of `schema` it lacks, when they are nullable: a column a
 * later version added to a table kind (for example `memories.trace_number`). LanceDB adds an
 * all-null column without rewriting any data file, so a table written by an older version stays
 * readable and writable; its rows read the new column as null ("not known"), which each codec
 * maps to a default. A column that cannot be null is never added (the table is left as it is and
 * the first read or write naming it fails loudly). Another process adding the same column at the
 * same time is fine: the loser finds it there.
 * Returns the names of the columns added.
 */
export async function addMissingColumns(table: Table, schema: Schema): Promise<string[]> {
  const missing = await missingNullable(table, schema);
  if (missing.length === 0) return [];
  try {
    await table.addColumns(missing);
  } catch (error) {
    // Someone else (another replica) added them meanwhile.
    if ((await missingNullable(table, schema)).length > 0) throw error;
  }
  return missing.map((f) => f.name);
}

async function missingNullable(table: Table, schema: Schema): Promise<Field[]> {
  const have = new Set((await table.schema()).fields.map((f) => f.name));
  return schema.fields.filter((f) => !have.has(f.name) && f.nullable);
}
