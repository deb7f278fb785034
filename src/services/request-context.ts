// The request context: what the interceptors put in a call's context values (the caller, the
// audit note) and how handlers and router wrappers read it. One module, so the tenant a
// request acts on is decided the same way everywhere.
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { AgentMemError } from "../core/errors.js";
import type { Principal } from "../core/principal.js";
import type { ScopeKey } from "../core/records.js";
import { checkScopeValue } from "../core/scope.js";

/** The principal of a call the auth interceptor never saw: no tenant, no role to act with. */
const NOBODY: Principal = Object.freeze({ keyId: "anonymous", tenant: null, role: "read" });

/** Context key carrying the principal (fails closed: without the auth interceptor, `resolveTenant` refuses). */
export const principalKey = createContextKey<Principal>(NOBODY);

/** The tenant used when dev mode requests name none. */
export const DEV_TENANT = "default";

/**
 * Resolves the tenant a request acts on: the key's tenant (a request naming another one is
 * PERMISSION_DENIED), or in dev mode the named tenant or `default`.
 */
export function resolveTenant(ctx: HandlerContext, requested: string): string {
  const p = ctx.values.get(principalKey);
  if (p === NOBODY) throw new AgentMemError("UNAUTHENTICATED", "NO_PRINCIPAL", "the call was not authenticated");
  if (p.tenant === null) {
    // Dev mode trusts the named tenant, but it still becomes a table name: validate it like any scope value.
    checkScopeValue("tenant", requested);
    return requested || DEV_TENANT;
  }
  if (requested !== "" && requested !== p.tenant) {
    throw new AgentMemError("PERMISSION_DENIED", "TENANT_MISMATCH", "the request names a tenant that this API key does not belong to");
  }
  return p.tenant;
}

/** The scope fields a request names: `scope`, or each `items[].scope` of a batch. */
export interface NamedScope {
  tenant?: string;
  user?: string;
}

/** Every scope a request names (`scope`, then `items[].scope`), read before the handler parses it. */
export function scopesOf(req: unknown): NamedScope[] {
  const m = req as { scope?: NamedScope; items?: { scope?: NamedScope }[] };
  return [m.scope, ...(m.items ?? []).map((i) => i.scope)].filter((s): s is NamedScope => s !== undefined);
}

/**
 * The tenant `resolveTenant` will settle on for a scope, without its checks: the key's tenant,
 * else the named one, else `default`. For router wrappers that run before the handler (usage
 * attribution, the erase barrier); the handler's own `resolveTenant` still refuses a mismatch.
 */
export function tenantOf(ctx: HandlerContext, scope: NamedScope | undefined): string {
  return ctx.values.get(principalKey).tenant ?? (scope?.tenant || DEV_TENANT);
}

/** The principal of a request. */
export function principalOf(ctx: HandlerContext): Principal {
  return ctx.values.get(principalKey);
}

/**
 * What a handler tells the audit trail about its call. The audit interceptor puts one in the
 * context of every audited call and writes it after the handler returns or throws.
 */
export interface AuditNote {
  /** The audit record's id, fixed before the handler runs (Erase returns it). */
  readonly id: string;
  /** Numbers the handler knows (rows deleted per table, items stored …); never content. */
  counts: Record<string, number>;
  /** The scope the call acted on, when the request's own `scope` does not say it (e.g. Erase). */
  scope?: ScopeKey;
}

/** Context key of the call's audit note (null when the call is not audited). */
export const auditNoteKey = createContextKey<AuditNote | null>(null);

/** Adds counts (and the scope acted on) to the call's audit record, if it has one. */
export function noteAudit(ctx: HandlerContext, counts: Record<string, number>, scope?: ScopeKey): void {
  const note = ctx.values.get(auditNoteKey);
  if (!note) return;
  Object.assign(note.counts, counts);
  if (scope) note.scope = scope;
}

/** The id the call's audit record will have ("" when the call is not audited). */
export function auditIdOf(ctx: HandlerContext): string {
  return ctx.values.get(auditNoteKey)?.id ?? "";
}
