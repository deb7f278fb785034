import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

/** A caller's mistake, reported before anything is sent: `INVALID_ARGUMENT` naming the field. */
export function badArgument(what: string, expected: string): ConnectError {
  return new ConnectError(`${what}: expected ${expected}`, Code.InvalidArgument);
}

const INTEGER_64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

function scalarOk(type: ScalarType, v: unknown): string | null {
  switch (type) {
    case ScalarType.STRING:
      return typeof v === "string" ? null : "a string";
    case ScalarType.BOOL:
      return typeof v === "boolean" ? null : "a boolean";
    case ScalarType.BYTES:
      return v instanceof Uint8Array ? null : "a Uint8Array";
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return typeof v === "number" ? null : "a number";
    default:
      if (INTEGER_64.has(type)) return typeof v === "bigint" || Number.isInteger(v) || (typeof v === "string" && /^-?\d+$/.test(v)) ? null : "an integer or bigint";
      return Number.isInteger(v) ? null : "an integer";
  }
}

function checkValue(field: DescField, kind: "scalar" | "enum" | "message", v: unknown, path: string): void {
  if (kind === "message" && field.message) return checkRequestShape(field.message, v, path);
  if (kind === "enum") {
    if (!Number.isInteger(v)) throw badArgument(path, `an enum value (a number from ${field.enum?.name ?? "the enum"})`);
    return;
  }
  const problem = scalarOk(field.scalar ?? ScalarType.STRING, v);
  if (problem) throw badArgument(path, problem);
}

/**
 * Checks a request object against its message schema: known fields only, each of the right type,
 * recursively. The generated client would otherwise send a wrong value silently or fail with an
 * internal serialisation error.
 */
export function checkRequestShape(desc: DescMessage, value: unknown, path = desc.name): void {
  if (value instanceof Date) throw badArgument(path, "a Timestamp (use timestampFromDate(date))");
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badArgument(path, `an object (${desc.typeName})`);
  const typeName = (value as { $typeName?: string }).$typeName;
  if (typeName !== undefined) {
    if (typeName !== desc.typeName) throw badArgument(path, `a ${desc.typeName}, not a ${typeName}`);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const at = `${path}.${key}`;
    const field = desc.fields.find((f) => f.localName === key);
    if (!field) {
      if (desc.oneofs.some((o) => o.localName === key)) continue;
      throw badArgument(at, `no such field; ${desc.name} has ${desc.fields.map((f) => f.localName).join(", ")}`);
    }
    switch (field.fieldKind) {
      case "list":
        if (!Array.isArray(v)) throw badArgument(at, "an array");
        v.forEach((item, i) => checkValue(field, field.listKind, item, `${at}[${i}]`));
        break;
      case "map":
        if (v === null || typeof v !== "object" || Array.isArray(v)) throw badArgument(at, "an object of key/value pairs");
        for (const [k, item] of Object.entries(v)) checkValue(field, field.mapKind, item, `${at}.${k}`);
        break;
      default:
        checkValue(field, field.fieldKind, v, at);
    }
  }
}

/** A non-empty string argument of a convenience call, e.g. `userId`. */
export function requireString(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "") throw badArgument(name, "a non-empty string");
  return value;
}

/** An optional options argument: undefined or a plain object. */
export function optionsObject<T extends object>(name: string, value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badArgument(name, "an options object");
  return value;
}
