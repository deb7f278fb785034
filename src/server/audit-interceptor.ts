import { type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "pino";
import { AgentMemError } from "../core/errors.js";
import type { ScopeKey } from "../core/records.js";
import { SCOPE_VALUE } from "../core/scope.js";
import { requiredRole } from "../services/method-roles.js";
import type { AuditLog } from "../services/privacy/audit-log.js";
import { type AuditNote, auditNoteKey, DEV_TENANT, principalKey } from "../services/request-context.js";

/** The key id of the context's default principal: no key was verified. */
const ANONYMOUS = principalKey.defaultValue.keyId;
const INTEGER_TYPES = new Set([
  ScalarType.INT32,
  ScalarType.INT64,
  ScalarType.UINT32,
  ScalarType.UINT64,
  ScalarType.SINT32,
  ScalarType.SINT64,
  ScalarType.FIXED32,
  ScalarType.FIXED64,
  ScalarType.SFIXED32,
  ScalarType.SFIXED64,
]);

type WireScope = Partial<Record<"tenant" | keyof ScopeKey, unknown>>;
type Fields = Record<string, unknown>;

/** A stored scope value: as sent when valid, else a marker (never the hostile string itself). */
function clean(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  return SCOPE_VALUE.test(value) ? value : "(invalid)";
}

function scopeOf(scope: WireScope | undefined): ScopeKey {
  return { namespace: clean(scope?.namespace), agent: clean(scope?.agent), session: clean(scope?.session), user: clean(scope?.user) };
}

/** The scope a request names: its `scope`, the scope all batch `items` share, or `external_id` as the user. */
function requestScope(message: Fields): ScopeKey {
  if (message.scope) return scopeOf(message.scope as WireScope);
  const items = message.items as { scope?: WireScope }[] | undefined;
  if (Array.isArray(items) && items.length > 0) {
    const scopes = items.map((i) => scopeOf(i.scope));
    const shared = (f: keyof ScopeKey) => (scopes.every((s) => s[f] === scopes[0][f]) ? scopes[0][f] : "");
    return { namespace: shared("namespace"), agent: shared("agent"), session: shared("session"), user: shared("user") };
  }
  return scopeOf({ user: message.externalId });
}

/** The tenant a request names (dev mode only decides by it). */
function requestTenant(message: Fields): string {
  const items = message.items as { scope?: WireScope }[] | undefined;
  const named = (message.scope as WireScope | undefined)?.tenant ?? message.tenant ?? (Array.isArray(items) ? items[0]?.scope?.tenant : undefined);
  return typeof named === "string" && SCOPE_VALUE.test(named) ? named : DEV_TENANT;
}

/** Every integer and every list / map size in a response: how much the call did, never what. */
export function countsOf(schema: DescMessage, message: Fields): Record<string, number> {
  const out: Record<string, number> = {};
  for (const field of schema.fields) {
    const value = message[field.localName];
    if (field.fieldKind === "list" && Array.isArray(value)) out[field.name] = value.length;
    else if (field.fieldKind === "map" && value && typeof value === "object") out[field.name] = Object.keys(value).length;
    else if (field.fieldKind === "scalar" && INTEGER_TYPES.has(field.scalar)) out[field.name] = Number(value ?? 0);
  }
  return out;
}

/** An error as an outcome: its code in UPPER_SNAKE_CASE. */
function outcomeOf(error: unknown): string {
  if (error instanceof AgentMemError) return error.code;
  if (error instanceof ConnectError) return Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
  return "INTERNAL";
}

/**
 * Writes one audit record for every call that can change data (write role) and every admin call,
 * refused ones included: time, actor (the key id), operation, scope, outcome and counts — never
 * content. It wraps the auth interceptor, which names the principal (also when the role is too
 * low); calls without a valid key are not recorded. Handlers add counts with `noteAudit`.
 */
export function createAuditInterceptor(log: AuditLog, logger: Logger): Interceptor {
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const role = requiredRole(method);
    if (role === null || role === "read" || req.stream) return next(req);
    const message = req.message as unknown as Fields;
    const at = log.now();
    const note: AuditNote = { id: log.newId(at), counts: {} };
    req.contextValues.set(auditNoteKey, note);
    let outcome = "OK";
    let counts: Record<string, number> = {};
    try {
      const res = await next(req);
      if (!res.stream) counts = countsOf(req.method.output, res.message as unknown as Fields);
      return res;
    } catch (error) {
      outcome = outcomeOf(error);
      throw error;
    } finally {
      // The auth interceptor (inside this one) has named the principal by now; a caller without
      // a valid key is nobody's to record.
      const principal = req.contextValues.get(principalKey);
      const tenant = principal.tenant ?? requestTenant(message);
      const record = {
        id: note.id,
        at,
        actor: principal.keyId,
        operation: method,
        scope: note.scope ?? requestScope(message),
        outcome,
        counts: { ...counts, ...note.counts },
      };
      // The call's own result stands; a failed audit write is loud in the log.
      if (principal.keyId !== ANONYMOUS) {
        // Refused and failed calls are summed per key, operation and outcome, so a flood of them cannot grow the trail without bound.
        const write = outcome === "OK" ? log.append(tenant, record) : log.appendRefused(tenant, record);
        const written = write.catch((error: unknown) => logger.error({ err: String(error), method, tenant }, "audit write failed"));
        // An admin call (erase, export, retention, the trail itself) answers once its record is
        // durable. A data write answers without waiting: its record commits right behind it (a
        // read of the trail waits for it; shutdown too), which took that commit, ~5 ms, out of
        // every Remember and Process; a crash in that window loses the record, never the data.
        if (role === "admin") await written;
      }
    }
  };
}
