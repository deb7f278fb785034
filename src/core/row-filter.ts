import type { Condition, Scalar } from "./condition.js";

/** A stored row keyed by column name, as the filter sees it (lists as arrays, SQL NULL as null). */
export type ColumnRow = Readonly<Record<string, unknown>>;

/** A compiled condition: SQL three-valued logic, `null` meaning UNKNOWN. */
type Predicate = (row: ColumnRow) => boolean | null;

function compare(op: "eq" | "ne" | "lt" | "lte" | "gt" | "gte", value: Scalar): (cell: unknown) => boolean | null {
  return (cell) => {
    if (cell === null || cell === undefined) return null;
    const a = cell as Scalar;
    switch (op) {
      case "eq":
        return a === value;
      case "ne":
        return a !== value;
      case "lt":
        return a < value;
      case "lte":
        return a <= value;
      case "gt":
        return a > value;
      case "gte":
        return a >= value;
    }
  };
}

function compile(c: Condition): Predicate {
  switch (c.op) {
    case "true":
      return () => true;
    case "eq":
    case "ne":
    case "lt":
    case "lte":
    case "gt":
    case "gte": {
      const test = compare(c.op, c.value);
      const column = c.column;
      return (row) => test(row[column]);
    }
    case "in": {
      const values = new Set<unknown>(c.values);
      const column = c.column;
      return (row) => (row[column] == null ? null : values.has(row[column]));
    }
    case "null":
      return (row) => row[c.column] == null;
    case "notNull":
      return (row) => row[c.column] != null;
    case "hasAll": {
      const column = c.column;
      const values = c.values;
      return (row) => {
        const cell = row[column];
        if (cell == null) return null;
        const have = new Set(cell as readonly unknown[]);
        return values.every((v) => have.has(v));
      };
    }
    case "and": {
      const parts = c.conditions.map(compile);
      return (row) => {
        let unknown = false;
        for (const p of parts) {
          const r = p(row);
          if (r === false) return false;
          if (r === null) unknown = true;
        }
        return unknown ? null : true;
      };
    }
    case "or": {
      const parts = c.conditions.map(compile);
      return (row) => {
        let unknown = false;
        for (const p of parts) {
          const r = p(row);
          if (r === true) return true;
          if (r === null) unknown = true;
        }
        return unknown ? null : false;
      };
    }
    case "not": {
      const inner = compile(c.condition);
      return (row) => {
        const r = inner(row);
        return r === null ? null : !r;
      };
    }
  }
}

/**
 * Compiles a condition to a row test with the engine's semantics (`renderCondition` + SQL NULL
 * rules): a row passes only when the condition is TRUE, never when it is UNKNOWN.
 */
export function rowFilter(condition: Condition): (row: ColumnRow) => boolean {
  const predicate = compile(condition);
  return (row) => predicate(row) === true;
}

/**
 * The values a condition restricts `column` to, if it does (how a read of held rows picks an index
 * lookup by `id`, `trace_number` … over a scan; never how the end-user is found, which the
 * caller names): `=` or `IN` at the top, the
 * intersection over the parts of an AND that restrict it, or the union over an OR whose every
 * branch restricts it. No row with another value in `column` can match.
 */
export function lookupValues(condition: Condition, column: string): ReadonlySet<Scalar> | undefined {
  if (condition.op === "eq" && condition.column === column) return new Set([condition.value]);
  if (condition.op === "in" && condition.column === column) return new Set(condition.values);
  if (condition.op === "and") {
    let out: Set<Scalar> | undefined;
    for (const c of condition.conditions) {
      const values = lookupValues(c, column);
      if (values) out = out ? new Set([...out].filter((v) => values.has(v))) : new Set(values);
    }
    return out;
  }
  if (condition.op === "or" && condition.conditions.length > 0) {
    const union = new Set<Scalar>();
    for (const c of condition.conditions) {
      const values = lookupValues(c, column);
      if (!values) return undefined;
      for (const v of values) union.add(v);
    }
    return union;
  }
  return undefined;
}
