import type { Condition, Scalar } from "../../core/condition.js";

// The one place that writes LanceDB (DataFusion SQL) filter strings. Column names come from code,
// never from requests, and are checked anyway; every value is escaped here.
const COLUMN = /^[a-z_][a-z0-9_]*$/;

function column(name: string): string {
  if (!COLUMN.test(name)) throw new Error(`invalid column name ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

/** Renders a scalar as a SQL literal. */
export function literal(value: Scalar): string {
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("non-finite number in filter");
    return String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
}

const COMPARATORS = { eq: "=", ne: "<>", lt: "<", lte: "<=", gt: ">", gte: ">=" } as const;

/** Renders a condition as a filter string, or `undefined` when it matches everything. */
export function renderCondition(condition: Condition): string | undefined {
  switch (condition.op) {
    case "true":
      return undefined;
    case "eq":
    case "ne":
    case "lt":
    case "lte":
    case "gt":
    case "gte":
      return `${column(condition.column)} ${COMPARATORS[condition.op]} ${literal(condition.value)}`;
    case "in":
      return condition.values.length === 0
        ? "FALSE"
        : `${column(condition.column)} IN (${condition.values.map(literal).join(", ")})`;
    case "null":
      return `${column(condition.column)} IS NULL`;
    case "notNull":
      return `${column(condition.column)} IS NOT NULL`;
    case "hasAll":
      return condition.values.length === 0
        ? undefined
        : `array_has_all(${column(condition.column)}, [${condition.values.map(literal).join(", ")}])`;
    case "and":
    case "or": {
      const parts = condition.conditions.map(renderCondition).filter((p): p is string => p !== undefined);
      if (parts.length === 0) return condition.op === "and" ? undefined : "FALSE";
      if (parts.length === 1) return parts[0];
      return parts.map((p) => `(${p})`).join(condition.op === "and" ? " AND " : " OR ");
    }
    case "not": {
      const inner = renderCondition(condition.condition);
      return inner === undefined ? "FALSE" : `NOT (${inner})`;
    }
  }
}

/** At most this many runs of fragment ids in one filter (two conditions each; LanceDB refuses more than 500). */
export const MAX_FRAGMENT_RUNS = 200;

/**
 * The rows stored in the given fragments, by row address (`_rowid` is the fragment id in the high
 * 32 bits and the offset in the low ones while a table has no stable row ids, LanceDB's default;
 * `_rowaddr` always is). Consecutive ids make one range, and the ranges are split over as many
 * filters as keep each under LanceDB's 500 conditions: folds of shards that 10k single writes had
 * left in hundreds of fragments failed ("the filter expression is too long"; 600 one-row
 * fragments in `fragment-fold.test.ts`, 300 passed).
 */
export function inFragments(fragmentIds: readonly number[], column = "_rowid"): string[] {
  const ids = [...new Set(fragmentIds)].sort((a, b) => a - b);
  for (const id of ids) if (!Number.isSafeInteger(id) || id < 0 || id > 0xffffffff) throw new Error(`invalid fragment id ${id}`);
  const runs: [number, number][] = [];
  for (const id of ids) {
    const last = runs[runs.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else runs.push([id, id]);
  }
  const range = ([first, last]: [number, number]) => `(${column} >= ${BigInt(first) << 32n} AND ${column} < ${BigInt(last + 1) << 32n})`;
  const filters: string[] = [];
  for (let i = 0; i < runs.length; i += MAX_FRAGMENT_RUNS) filters.push(runs.slice(i, i + MAX_FRAGMENT_RUNS).map(range).join(" OR "));
  return filters;
}
