// LanceDB table names allow [A-Za-z0-9_.-]; tenants also allow ':' and '@'. Every character
// outside [A-Za-z0-9-] (including '_') becomes `_xx` (hex), so names are reversible and a
// tenant can never spell the `__` separator.

/** Encodes a tenant id for use inside a table name. */
export function encodeTenant(tenant: string): string {
  return tenant.replace(/[^A-Za-z0-9-]/g, (ch) => `_${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Reverses `encodeTenant`. */
export function decodeTenant(encoded: string): string {
  return encoded.replace(/_([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

// A tenant's big kinds (`memories`, `episodes`) may be split into shard tables by end-user:
// `<kind>.s<index>of<count>__<encoded tenant>` (e.g. `memories.s03of08__default`), see
// `sharded-collection.ts`. A table without the `.sXXofYY` part is unsharded (count 1).

/** The name of a tenant's table of `kind`: shard `index` of `count`, or the unsharded table when count is 1. */
export function tableName(kind: string, tenant: string, shard?: { index: number; count: number }): string {
  const enc = encodeTenant(tenant);
  if (!shard || shard.count <= 1) return `${kind}__${enc}`;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${kind}.s${pad(shard.index)}of${pad(shard.count)}__${enc}`;
}

/** A per-tenant table name taken apart; null for a name without the `__` separator. */
export interface ParsedTableName {
  /** The table kind without any shard part (`memories`). */
  kind: string;
  /** The decoded tenant. */
  tenant: string;
  /** The shard, for a shard table. */
  shard?: { index: number; count: number };
}

const SHARD_PART = /^(.+)\.s(\d+)of(\d+)$/;

/** Takes a table name apart (kind, shard, tenant); null when it is not a per-tenant table. */
export function parseTableName(name: string): ParsedTableName | null {
  const at = name.indexOf("__");
  if (at <= 0) return null;
  const prefix = name.slice(0, at);
  const tenant = decodeTenant(name.slice(at + 2));
  const m = SHARD_PART.exec(prefix);
  if (!m) return { kind: prefix, tenant };
  return { kind: m[1], tenant, shard: { index: Number(m[2]), count: Number(m[3]) } };
}

/** The kind of a table name's prefix (`memories.s03of08` → `memories`). */
export function baseKind(prefix: string): string {
  return SHARD_PART.exec(prefix)?.[1] ?? prefix;
}
