/**
 * A typed filter over stored columns. Code builds conditions with these helpers; only the storage
 * adapter's filter module turns them into engine syntax (with escaping), never string interpolation.
 */
export type Scalar = string | number | boolean;

/** One filter node. */
export type Condition =
  | { op: "true" }
  | { op: "eq" | "ne" | "lt" | "lte" | "gt" | "gte"; column: string; value: Scalar }
  | { op: "in"; column: string; values: readonly Scalar[] }
  | { op: "null" | "notNull"; column: string }
  | { op: "hasAll"; column: string; values: readonly string[] }
  | { op: "and" | "or"; conditions: readonly Condition[] }
  | { op: "not"; condition: Condition };

/** Builders for conditions. */
export const where = {
  all: (): Condition => ({ op: "true" }),
  eq: (column: string, value: Scalar): Condition => ({ op: "eq", column, value }),
  ne: (column: string, value: Scalar): Condition => ({ op: "ne", column, value }),
  lt: (column: string, value: Scalar): Condition => ({ op: "lt", column, value }),
  lte: (column: string, value: Scalar): Condition => ({ op: "lte", column, value }),
  gt: (column: string, value: Scalar): Condition => ({ op: "gt", column, value }),
  gte: (column: string, value: Scalar): Condition => ({ op: "gte", column, value }),
  in: (column: string, values: readonly Scalar[]): Condition => ({ op: "in", column, values }),
  isNull: (column: string): Condition => ({ op: "null", column }),
  notNull: (column: string): Condition => ({ op: "notNull", column }),
  hasAll: (column: string, values: readonly string[]): Condition => ({ op: "hasAll", column, values }),
  and: (...conditions: (Condition | undefined)[]): Condition => ({
    op: "and",
    conditions: conditions.filter((c): c is Condition => c !== undefined && c.op !== "true"),
  }),
  or: (...conditions: Condition[]): Condition => ({ op: "or", conditions }),
  not: (condition: Condition): Condition => ({ op: "not", condition }),
};
