import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import fc from "fast-check";

// Random and hostile requests for any RPC, built from its protobuf descriptor, so RPCs added
// later are fuzzed without touching this file. Values lean on the edges: empty, just over a
// limit, absurd counts, unknown enum numbers, timestamps outside RFC 3339, filter injection.

/** Strings that try to break out of a LanceDB (DataFusion SQL) filter or a table name. */
export const INJECTIONS = [
  "' OR '1'='1",
  "x' OR user <> 'x",
  "'; DROP TABLE memories__default; --",
  "seed') OR ('a'='a",
  "`user` = `user`",
  "\\' OR 1=1 --",
  "%",
  "_",
  "seed\u0000",
  "../../etc/passwd",
  "memories__other",
  '" OR ""="',
  "1; DELETE FROM episodes",
] as const;

const VALID_IDS = ["seed", "u1", "a.b:c@d-e_f", "x".repeat(128)];

const hostileText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\n\t", "é漢字🙂", "\u202e\u200b") },
  { weight: 1, arbitrary: fc.constantFrom(129, 257, 4_097, 32_769, 40_000).map((n) => "y".repeat(n)) },
);

// Scope values are mostly valid so calls reach the deeper checks; hostile often enough to test them.
function stringFor(field: DescField, tenant: string): fc.Arbitrary<string> {
  const mostly = (valid: fc.Arbitrary<string>) => fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostileText });
  switch (field.name) {
    case "tenant":
      return mostly(fc.constantFrom("", tenant));
    case "namespace":
    case "agent":
    case "session":
      return mostly(fc.constantFrom("", "", ...VALID_IDS));
    case "user":
    case "external_id":
      return mostly(fc.constantFrom("seed", "u1", ...VALID_IDS));
    case "id":
      return fc.oneof(fc.constantFrom(...VALID_IDS), hostileText);
    case "role":
      return fc.constantFrom("user", "assistant", "system", "tool", "root", "");
    default:
      return hostileText;
  }
}

const int32s = fc.oneof(fc.constantFrom(0, 1, -1, 3, 100, 101, 1_000, 1_001, 32_001, 2_147_483_647, -2_147_483_648), fc.integer());
const uint32s = fc.oneof(fc.constantFrom(0, 1, 100, 101, 1_001, 4_294_967_295), fc.nat());
const int64s = fc.oneof(
  fc.constantFrom(0n, 1n, -1n, 101n, 1_001n, 9_007_199_254_740_993n, 9_223_372_036_854_775_807n, -9_223_372_036_854_775_808n),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
);
const uint64s = fc.oneof(fc.constantFrom(0n, 1n, 101n, 18_446_744_073_709_551_615n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));
const doubles = fc.oneof(fc.constantFrom(0, 0.5, 1, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, -0), fc.double());

function scalar(field: DescField, type: ScalarType, tenant: string): fc.Arbitrary<unknown> {
  switch (type) {
    case ScalarType.STRING:
      return stringFor(field, tenant);
    case ScalarType.BYTES:
      return fc.oneof(fc.uint8Array({ maxLength: 16 }), fc.constant(new Uint8Array(6 * 2 ** 20)));
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return int32s;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return uint32s;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64s;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return uint64s;
    case ScalarType.FLOAT:
      return doubles.map(Math.fround);
    default:
      return doubles;
  }
}

const timestamp = fc.record({
  seconds: fc.oneof(
    fc.constantFrom(0n, -62_135_596_801n, 253_402_300_800n, 1_767_225_600n, -9_223_372_036_854_775_808n, 9_223_372_036_854_775_807n),
    fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
  ),
  nanos: fc.constantFrom(0, 1, 999_999_999, 1_000_000_000, -1, 2_147_483_647),
});

function enumValue(field: DescField): fc.Arbitrary<number> {
  const known = (field.enum?.values ?? []).map((v) => v.number);
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.constantFrom(-1, 99, 2_147_483_647) });
}

/** True when a generated value holds an oversized byte field (the 6 MiB image). */
function holdsLargeBytes(value: unknown, depth = 0): boolean {
  if (value instanceof Uint8Array) return value.length > 1024;
  if (depth > 8 || value === null || typeof value !== "object") return false;
  return Object.values(value as Record<string, unknown>).some((v) => holdsLargeBytes(v, depth + 1));
}

/**
 * Occasionally far more elements than any limit allows (copies of one element, cheap to make).
 * An element holding the 6 MiB image is not copied: 1,001 copies made a 6 GB request that the
 * in-process transport serialised until the worker ran out of heap (over real HTTP the body cap
 * rejects it first, see http-limits.test.ts).
 */
function listOf<T>(element: fc.Arbitrary<T>): fc.Arbitrary<T[]> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(element, { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.tuple(element, fc.constantFrom(33, 101, 1_001)).map(([e, n]) => Array.from({ length: holdsLargeBytes(e) ? 1 : n }, () => e)),
    },
  );
}

function valueOf(field: DescField, depth: number, tenant: string): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field, field.scalar, tenant);
    case "enum":
      return enumValue(field);
    case "message":
      return messageArbitrary(field.message, depth + 1, tenant);
    case "list":
      if (field.listKind === "scalar") return listOf(scalar(field, field.scalar, tenant));
      if (field.listKind === "enum") return listOf(enumValue(field));
      return listOf(messageArbitrary(field.message, depth + 1, tenant));
    case "map": {
      const key = field.mapKey === ScalarType.STRING ? fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "a=b", "k".repeat(65))) : fc.constant("1");
      const value = field.mapKind === "scalar" ? scalar(field, field.scalar, tenant) : field.mapKind === "enum" ? enumValue(field) : messageArbitrary(field.message, depth + 1, tenant);
      return fc.oneof(
        { weight: 6, arbitrary: fc.dictionary(key, value, { maxKeys: 3 }) },
        { weight: 1, arbitrary: fc.tuple(value, fc.constant(40)).map(([v, n]) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, v]))) },
      );
    }
  }
}

/**
 * A plain init object for `create(schema, init)`: any subset of the fields, hostile values.
 * Tenant fields mostly name `tenant` (the caller's own) or none, so calls pass the tenant check.
 */
export function requestArbitrary(schema: DescMessage, tenant: string): fc.Arbitrary<Record<string, unknown>> {
  return messageArbitrary(schema, 0, tenant);
}

function messageArbitrary(schema: DescMessage, depth: number, tenant: string): fc.Arbitrary<Record<string, unknown>> {
  if (schema.typeName === "google.protobuf.Timestamp") return timestamp;
  if (depth > 2) return fc.constant({});
  const fields = Object.fromEntries(schema.fields.map((f) => [f.localName, valueOf(f, depth, tenant)]));
  return fc.record(fields, { requiredKeys: [] });
}
