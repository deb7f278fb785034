import { createHash, timingSafeEqual } from "node:crypto";
import type { Interceptor } from "@connectrpc/connect";
import { AgentMemError } from "../core/errors.js";
import type { ApiKey } from "../config.js";
import type { Principal } from "../core/principal.js";
import { requiredRole, roleAllows } from "../services/method-roles.js";
import { principalKey } from "../services/request-context.js";

interface KeyEntry {
  digest: Buffer;
  principal: Principal;
}

/** A short public id for a key: the first 12 hex characters of its SHA-256. */
export function keyIdOf(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 12);
}

/** Resolves an `Authorization` header to a principal, or throws UNAUTHENTICATED. */
export type Authenticator = (header: string | null) => Principal;

/**
 * Checks `Authorization: Bearer KEY` against the configured keys. Without keys every caller is a
 * dev-mode admin. Keys are compared as SHA-256 digests in constant time, against every configured
 * key, and never logged.
 */
export function createAuthenticator(keys: readonly ApiKey[]): Authenticator {
  const entries: KeyEntry[] = keys.map((k) => ({
    digest: createHash("sha256").update(k.key).digest(),
    principal: { keyId: keyIdOf(k.key), tenant: k.tenant, role: k.role },
  }));
  return (header) => {
    if (entries.length === 0) return { keyId: "dev", tenant: null, role: "admin" };
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
    if (!token) throw new AgentMemError("UNAUTHENTICATED", "MISSING_API_KEY", "send an API key as `Authorization: Bearer KEY`");
    const digest = createHash("sha256").update(token).digest();
    let found: Principal | null = null;
    for (const e of entries) if (timingSafeEqual(e.digest, digest)) found = e.principal;
    if (!found) throw new AgentMemError("UNAUTHENTICATED", "INVALID_API_KEY", "the API key is not valid");
    return found;
  };
}

/** Resolves the caller with {@link createAuthenticator} and checks the RPC's role. */
export function createAuthInterceptor(keys: readonly ApiKey[]): Interceptor {
  const authenticate = createAuthenticator(keys);
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const need = requiredRole(method);
    if (need === null) return next(req);
    const principal = authenticate(req.header.get("authorization"));
    // Set before the role check so the audit trail can name the key a refused call came from.
    req.contextValues.set(principalKey, principal);
    if (!roleAllows(principal.role, need)) {
      throw new AgentMemError("PERMISSION_DENIED", "ROLE_TOO_LOW", `${method} needs the ${need} role; this key has ${principal.role}`);
    }
    return next(req);
  };
}
