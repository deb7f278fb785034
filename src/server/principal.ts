import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { AgentMemError } from "../core/errors.js";
import { checkScopeValue } from "../core/scope.js";

/** A caller's role; each includes the ones before it. */
export type Role = "read" | "write" | "admin";

/** Who is calling: resolved once per request by the auth interceptor. */
export interface Principal {
  /** Key id for logs and audit (never the key itself); "dev" in dev mode. */
  keyId: string;
  /** The tenant pinned from the key; null in dev mode (the request may name one). */
  tenant: string | null;
  role: Role;
}

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

/** The principal of a request. */
export function principalOf(ctx: HandlerContext): Principal {
  return ctx.values.get(principalKey);
}
